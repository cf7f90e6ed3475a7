package nodemeta

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The rule is the MCO's (node_controller.go syncMachineConfigPool, release-4.20):
// tainted exactly while desiredConfig differs from the pool's target.
func TestDecide(t *testing.T) {
	noSched := corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}
	pool := func(target string, paused bool) *mcfgv1.MachineConfigPool {
		p := &mcfgv1.MachineConfigPool{}
		p.Spec.Configuration.Name, p.Spec.Paused = target, paused
		return p
	}
	node := func(desired, topo string, taints ...corev1.Taint) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{constants.DesiredConfigAnnotation: desired}}}
		if topo != "" {
			n.Annotations[constants.ControlPlaneTopologyAnnotation] = topo
		}
		n.Spec.Taints = taints
		return n
	}
	ha := "HighlyAvailable"
	cases := []struct {
		name     string
		node     *corev1.Node
		pool     *mcfgv1.MachineConfigPool
		topology string
		want     Change
	}{
		{"on the target, untainted: nothing", node("r2", ha), pool("r2", false), ha, Change{}},
		{"not yet granted: tainted, other taints kept", node("r1", ha, noSched), pool("r2", false), ha,
			Change{SetTaints: true, Taints: []corev1.Taint{noSched, UpdateInProgressTaint}}},
		{"already tainted: nothing", node("r1", ha, UpdateInProgressTaint), pool("r2", false), ha, Change{}},
		{"granted: the taint goes, others stay", node("r2", ha, UpdateInProgressTaint, noSched), pool("r2", false), ha,
			Change{SetTaints: true, Taints: []corev1.Taint{noSched}}},
		{"paused pool: nothing at all", node("r1", ""), pool("r2", true), ha, Change{}},
		{"no rendered config yet: topology only", node("", ""), pool("", false), ha,
			Change{Annotations: map[string]string{constants.ControlPlaneTopologyAnnotation: ha}}},
		{"topology differs", node("r2", "SingleReplica"), pool("r2", false), ha,
			Change{Annotations: map[string]string{constants.ControlPlaneTopologyAnnotation: ha}}},
		{"no ControllerConfig: topology untouched", node("r2", ""), pool("r2", false), "", Change{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.node, tc.pool, tc.topology); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
	cc := &mcfgv1.ControllerConfig{Spec: mcfgv1.ControllerConfigSpec{Infra: &configv1.Infrastructure{Status: configv1.InfrastructureStatus{ControlPlaneTopology: configv1.SingleReplicaTopologyMode}}}}
	if Topology(cc) != "SingleReplica" || Topology(nil) != "" {
		t.Fatalf("Topology = %q / %q", Topology(cc), Topology(nil))
	}
}
