package nodemeta

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// FoldTaint's patch, applied by the JSON patch library the apiserver uses
// (gopkg.in/evanphx/json-patch.v4, k8s.io/apiserver's patch handler), sets
// the annotation and leaves the taint as the MCO's rule wants it; a node
// whose taints changed since it was read refuses the whole patch.
func TestFoldTaint(t *testing.T) {
	const old, target = "rendered-worker-a", "rendered-worker-b"
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker"}}
	pool.Spec.Configuration.Name = target
	paused := pool.DeepCopy()
	paused.Spec.Paused = true
	noSched := corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}
	dpu := corev1.Taint{Key: constants.DPUNotReadyTaintKey, Value: "dpu-0", Effect: corev1.TaintEffectNoSchedule}
	node := func(desired string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Annotations: map[string]string{
				constants.DesiredConfigAnnotation: desired, constants.CurrentConfigAnnotation: old}},
			Spec: corev1.NodeSpec{Taints: taints},
		}
	}
	cases := []struct {
		name       string
		read       *corev1.Node // what the controller's cache shows
		server     *corev1.Node // what the apiserver holds when the patch lands; nil: read
		pool       *mcfgv1.MachineConfigPool
		key, value string
		wantFold   bool
		wantErr    bool
		wantTaints []corev1.Taint
	}{
		{name: "stage: the taint goes on", read: node(old), pool: pool,
			key: constants.StageConfigAnnotation, value: target, wantFold: true, wantTaints: []corev1.Taint{UpdateInProgressTaint}},
		{name: "stage: other taints are kept", read: node(old, noSched), pool: pool,
			key: constants.StageConfigAnnotation, value: target, wantFold: true, wantTaints: []corev1.Taint{noSched, UpdateInProgressTaint}},
		{name: "grant: the taint comes off", read: node(old, noSched, UpdateInProgressTaint), pool: pool,
			key: constants.DesiredConfigAnnotation, value: target, wantFold: true, wantTaints: []corev1.Taint{noSched}},
		{name: "grant of the last taint leaves an empty list", read: node(old, UpdateInProgressTaint), pool: pool,
			key: constants.DesiredConfigAnnotation, value: target, wantFold: true, wantTaints: []corev1.Taint{}},
		{name: "grant to an untainted node: nothing to fold", read: node(old), pool: pool,
			key: constants.DesiredConfigAnnotation, value: target},
		{name: "stage of a tainted node: nothing to fold", read: node(old, UpdateInProgressTaint), pool: pool,
			key: constants.StageConfigAnnotation, value: target},
		{name: "paused pool: left alone", read: node(old), pool: paused,
			key: constants.StageConfigAnnotation, value: target},
		{name: "a taint added meanwhile: refused", read: node(old), server: node(old, dpu), pool: pool,
			key: constants.StageConfigAnnotation, value: target, wantFold: true, wantErr: true},
		{name: "a taint removed meanwhile: refused", read: node(old, dpu, UpdateInProgressTaint), server: node(old, UpdateInProgressTaint), pool: pool,
			key: constants.DesiredConfigAnnotation, value: target, wantFold: true, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			patch, fold := FoldTaint(tc.read, tc.pool, tc.key, tc.value)
			if fold != tc.wantFold {
				t.Fatalf("fold = %v, want %v", fold, tc.wantFold)
			}
			if !fold {
				return
			}
			server := tc.server
			if server == nil {
				server = tc.read
			}
			doc, err := json.Marshal(server)
			if err != nil {
				t.Fatal(err)
			}
			p, err := jsonpatch.DecodePatch(patch)
			if err != nil {
				t.Fatalf("patch %s does not decode: %v", patch, err)
			}
			out, err := p.Apply(doc)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("patch %s applied to a node whose taints changed", patch)
				}
				return
			}
			if err != nil {
				t.Fatalf("patch %s: %v", patch, err)
			}
			var got corev1.Node
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.Annotations[tc.key] != tc.value || got.Annotations[constants.CurrentConfigAnnotation] != old {
				t.Errorf("annotations after the patch: %v", got.Annotations)
			}
			if !slices.Equal(got.Spec.Taints, tc.wantTaints) && !(len(got.Spec.Taints) == 0 && len(tc.wantTaints) == 0) {
				t.Errorf("taints after the patch %v, want %v", got.Spec.Taints, tc.wantTaints)
			}
		})
	}
}

// Within FoldWindow of a new target the controller leaves only the taint
// additions that a stage write is still to carry.
func TestLeaveToFold(t *testing.T) {
	const old, target = "rendered-worker-a", "rendered-worker-b"
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker"}}
	pool.Spec.Configuration.Name = target
	node := func(desired, stage string, taints ...corev1.Taint) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Annotations: map[string]string{
			constants.DesiredConfigAnnotation: desired, constants.CurrentConfigAnnotation: old}},
			Spec: corev1.NodeSpec{Taints: taints}}
		if stage != "" {
			n.Annotations[constants.StageConfigAnnotation] = stage
		}
		return n
	}
	young, old2 := 5*time.Second, FoldWindow
	cases := []struct {
		name string
		n    *corev1.Node
		topo string
		age  time.Duration
		want bool
	}{
		{"a new target, not staged yet: the stage write brings the taint", node(old, ""), "", young, true},
		{"staged without the taint (a refused fold): write it", node(old, target), "", young, false},
		{"an old stage of an earlier target: still to be staged", node(old, old), "", young, true},
		{"the window is over", node(old, ""), "", old2, false},
		{"a removal is never left", node(target, target, UpdateInProgressTaint), "", young, false},
		{"an annotation to write too", node(old, ""), "HighlyAvailable", young, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch := Decide(tc.n, pool, tc.topo)
			if ch.Empty() {
				t.Fatal("the case needs a change")
			}
			if got := LeaveToFold(tc.n, pool, ch, tc.age, FoldWindow); got != tc.want {
				t.Errorf("LeaveToFold = %v, want %v (change %+v)", got, tc.want, ch)
			}
		})
	}
}
