package node

import (
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func placementPool(name string, gen int64, selector map[string]string) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: gen},
		Spec:       mcfgv1.MachineConfigPoolSpec{NodeSelector: &metav1.LabelSelector{MatchLabels: selector}},
	}
}

func placementNode(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func names(ns []*corev1.Node) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

// TestPlacementsAgreeWithPrimaryPool: the remembered placements are always
// PrimaryPool's answer (the oracle, the MCO's GetPoolsForNode rules), after
// a node is replaced by a new object and after a pool's selector changes.
func TestPlacementsAgreeWithPrimaryPool(t *testing.T) {
	worker := placementPool("worker", 1, map[string]string{"node-role.kubernetes.io/worker": ""})
	infra := placementPool("infra", 1, map[string]string{"node-role.kubernetes.io/infra": ""})
	pools := []*mcfgv1.MachineConfigPool{worker, infra}
	nodes := []*corev1.Node{
		placementNode("a", map[string]string{"node-role.kubernetes.io/worker": ""}),
		placementNode("b", map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": ""}),
		placementNode("c", map[string]string{}),
	}
	var p placements
	check := func(step string) {
		t.Helper()
		for _, pool := range pools {
			var want []string
			for _, n := range nodes {
				if pp, err := PrimaryPool(pools, n); err == nil && pp != nil && pp.Name == pool.Name {
					want = append(want, n.Name)
				}
			}
			got := names(p.membersOf(pool.Name, pools, nodes))
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: members of %s = %v, PrimaryPool says %v", step, pool.Name, got, want)
			}
		}
	}
	check("first plan")
	check("same objects again")

	// The informer replaces a node's object when its labels change.
	nodes[2] = placementNode("c", map[string]string{"node-role.kubernetes.io/infra": ""})
	check("c labelled infra")

	// A pool's selector is spec: its generation moves.
	infra2 := placementPool("infra", 2, map[string]string{"node-role.kubernetes.io/nothing": ""})
	pools = []*mcfgv1.MachineConfigPool{worker, infra2}
	check("infra selects nothing")
}
