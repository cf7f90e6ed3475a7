package dpu

import (
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The cache answers per node object and per set of pools: a replaced node
// object or a changed pool selector is seen at once, never a stale answer.
func TestTenantNodeCacheFollowsChanges(t *testing.T) {
	pool := func(name, role string, gen int64) *mcfgv1.MachineConfigPool {
		p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: gen}}
		p.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + role: ""}}
		return p
	}
	mkNode := func(name, desired string, labels ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{},
			Annotations: map[string]string{constants.DesiredConfigAnnotation: desired}}}
		for _, l := range labels {
			n.Labels[constants.NodeRoleLabelPrefix+l] = ""
		}
		return n
	}
	var c tenantNodeCache
	log := klog.Background()
	worker, infra := pool("worker", "worker", 1), pool("infra", "infra", 1)
	pools := []*mcfgv1.MachineConfigPool{worker, infra}
	a, b := mkNode("a", "rendered-worker-1", "worker"), mkNode("b", "rendered-worker-1", "worker", "infra")

	check := func(step string, got []TenantNode, want map[string][2]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d nodes, want %d", step, len(got), len(want))
		}
		for _, tn := range got {
			w := want[tn.View.Name]
			if tn.Pool != w[0] || tn.View.Desired != w[1] {
				t.Errorf("%s: node %s in pool %q desired %q, want pool %q desired %q", step, tn.View.Name, tn.Pool, tn.View.Desired, w[0], w[1])
			}
		}
	}
	check("first", c.nodes(pools, []*corev1.Node{a, b}, log),
		map[string][2]string{"a": {"worker", "rendered-worker-1"}, "b": {"infra", "rendered-worker-1"}})
	check("again", c.nodes(pools, []*corev1.Node{a, b}, log),
		map[string][2]string{"a": {"worker", "rendered-worker-1"}, "b": {"infra", "rendered-worker-1"}})

	// The informer replaces a's object: its new annotations are read.
	a2 := mkNode("a", "rendered-worker-2", "worker")
	check("node replaced", c.nodes(pools, []*corev1.Node{a2, b}, log),
		map[string][2]string{"a": {"worker", "rendered-worker-2"}, "b": {"infra", "rendered-worker-1"}})

	// The infra pool's selector changes (a new generation): b moves back to worker.
	infra2 := pool("infra", "nothing-has-this-role", 2)
	check("selector changed", c.nodes([]*mcfgv1.MachineConfigPool{worker, infra2}, []*corev1.Node{a2, b}, log),
		map[string][2]string{"a": {"worker", "rendered-worker-2"}, "b": {"worker", "rendered-worker-1"}})
}
