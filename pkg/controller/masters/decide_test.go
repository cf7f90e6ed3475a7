package masters

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The expectations are the MCO's rule as read in
// pkg/controller/node/node_controller.go (release-4.21, db84d8368ef7),
// spelled with literal keys rather than this package's constants.
func TestDecide(t *testing.T) {
	const (
		master = "node-role.kubernetes.io/master"
		worker = "node-role.kubernetes.io/worker"
		cp     = "node-role.kubernetes.io/control-plane"
	)
	noSched := corev1.Taint{Key: master, Effect: corev1.TaintEffectNoSchedule}
	other := corev1.Taint{Key: "example.com/dedicated", Value: "db", Effect: corev1.TaintEffectNoExecute}
	node := func(labels map[string]string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	}
	cases := []struct {
		name       string
		node       *corev1.Node
		s          Scheduling
		wantLabels map[string]string // nil: labels unchanged
		wantTaints []corev1.Taint    // with setTaints
		setTaints  bool
	}{
		{name: "a worker is not touched", node: node(map[string]string{worker: ""}), s: Unschedulable},
		{name: "a node without labels is not touched", node: node(nil), s: Schedulable},
		{name: "unschedulable: taint added, control-plane label added",
			node: node(map[string]string{master: ""}), s: Unschedulable,
			wantLabels: map[string]string{master: "", cp: ""}, wantTaints: []corev1.Taint{noSched}, setTaints: true},
		{name: "unschedulable: worker label removed, other taints kept",
			node: node(map[string]string{master: "", cp: "", worker: ""}, other), s: Unschedulable,
			wantLabels: map[string]string{master: "", cp: ""}, wantTaints: []corev1.Taint{other, noSched}, setTaints: true},
		{name: "unschedulable and already so: nothing",
			node: node(map[string]string{master: "", cp: ""}, noSched), s: Unschedulable},
		{name: "unschedulable: a master taint with a value counts as the taint",
			node: node(map[string]string{master: "", cp: ""}, corev1.Taint{Key: master, Value: "x", Effect: corev1.TaintEffectNoSchedule}), s: Unschedulable},
		{name: "unschedulable: a master PreferNoSchedule taint is not the taint",
			node: node(map[string]string{master: "", cp: ""}, corev1.Taint{Key: master, Effect: corev1.TaintEffectPreferNoSchedule}), s: Unschedulable,
			wantTaints: []corev1.Taint{{Key: master, Effect: corev1.TaintEffectPreferNoSchedule}, noSched}, setTaints: true},
		{name: "schedulable: taint removed, worker label added",
			node: node(map[string]string{master: "", cp: ""}, noSched, other), s: Schedulable,
			wantLabels: map[string]string{master: "", cp: "", worker: ""}, wantTaints: []corev1.Taint{other}, setTaints: true},
		{name: "schedulable: every master NoSchedule taint removed",
			node: node(map[string]string{master: "", cp: "", worker: ""}, noSched, corev1.Taint{Key: master, Value: "x", Effect: corev1.TaintEffectNoSchedule}), s: Schedulable,
			wantTaints: nil, setTaints: true},
		{name: "schedulable: a worker label with a value is kept as it is",
			node: node(map[string]string{master: "", cp: "", worker: "yes"}), s: Schedulable},
		{name: "master label with a value is a master",
			node: node(map[string]string{master: "true", cp: ""}), s: Schedulable,
			wantLabels: map[string]string{master: "true", cp: "", worker: ""}},
		{name: "no Scheduler: only the control-plane label",
			node: node(map[string]string{master: "", worker: ""}), s: Leave,
			wantLabels: map[string]string{master: "", worker: "", cp: ""}},
		{name: "no Scheduler: a control-plane label with a value is kept",
			node: node(map[string]string{master: "", cp: "x"}, noSched), s: Leave},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.node.DeepCopy()
			got := Decide(tc.node, tc.s)
			if !reflect.DeepEqual(before, tc.node) {
				t.Fatalf("Decide changed its input: %v", tc.node)
			}
			if got.SetLabels != (tc.wantLabels != nil) || (tc.wantLabels != nil && !reflect.DeepEqual(got.Labels, tc.wantLabels)) {
				t.Errorf("labels: got set=%v %v, want %v", got.SetLabels, got.Labels, tc.wantLabels)
			}
			if got.SetTaints != tc.setTaints || !(len(got.Taints) == 0 && len(tc.wantTaints) == 0 || reflect.DeepEqual(got.Taints, tc.wantTaints)) {
				t.Errorf("taints: got set=%v %v, want set=%v %v", got.SetTaints, got.Taints, tc.setTaints, tc.wantTaints)
			}
			if got.Empty() != (tc.wantLabels == nil && !tc.setTaints) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

func TestSchedulingOf(t *testing.T) {
	sched := func(on bool) *configv1.Scheduler {
		return &configv1.Scheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.SchedulerSpec{MastersSchedulable: on}}
	}
	for _, tc := range []struct {
		s    *configv1.Scheduler
		want Scheduling
	}{{nil, Leave}, {sched(true), Schedulable}, {sched(false), Unschedulable}} {
		if got := SchedulingOf(tc.s); got != tc.want {
			t.Errorf("SchedulingOf(%v) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
