package node

import (
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func roledPool(name, role string) *mcfgv1.MachineConfigPool {
	p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if role != "" {
		p.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/" + role: ""}}
	}
	return p
}

func roledNode(roles ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
	for _, r := range roles {
		n.Labels["node-role.kubernetes.io/"+r] = ""
	}
	return n
}

func TestPrimaryPool(t *testing.T) {
	pools := []*mcfgv1.MachineConfigPool{roledPool("worker", "worker"), roledPool("master", "master"),
		roledPool("infra", "infra"), roledPool("gpu", "gpu"), roledPool("everything", "")}
	for _, tc := range []struct {
		roles []string
		want  string
		err   bool
	}{
		{roles: []string{"worker"}, want: "worker"},
		{roles: []string{"master", "worker"}, want: "master"},
		{roles: []string{"worker", "infra"}, want: "infra"},
		{roles: []string{"worker", "infra", "gpu"}, err: true},
		{roles: []string{"storage"}, want: ""},
	} {
		p, err := PrimaryPool(pools, roledNode(tc.roles...))
		if (err != nil) != tc.err {
			t.Errorf("%v: err = %v", tc.roles, err)
			continue
		}
		got := ""
		if p != nil {
			got = p.Name
		}
		if got != tc.want {
			t.Errorf("%v: pool = %q, want %q", tc.roles, got, tc.want)
		}
	}
}

func TestPhaseOf(t *testing.T) {
	for _, tc := range []struct {
		n    NodeView
		want Phase
	}{
		{updatedNode("a", 0), PhaseUpdated},
		{granted(doneNode("a", oldCfg, 0)), PhaseUpdating},
		{staged(doneNode("a", oldCfg, 0)), PhaseStaged},
		{with(doneNode("a", oldCfg, 0), func(n *NodeView) { n.Stage = newCfg }), PhaseStaging},
		{doneNode("a", oldCfg, 0), PhasePending},
		{with(granted(doneNode("a", oldCfg, 0)), func(n *NodeView) { n.State = "Degraded" }), PhaseDegraded},
	} {
		if got := PhaseOf(tc.n, newCfg); got != tc.want {
			t.Errorf("PhaseOf(%+v) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

// TestPrimaryPoolInvalidSelector: a pool whose nodeSelector does not parse
// only leaves in doubt the nodes it might select; every other node keeps its
// pool (issue 16: one broken pool dropped every node from every pool).
func TestPrimaryPoolInvalidSelector(t *testing.T) {
	broken := roledPool("infra", "infra")
	broken.Spec.NodeSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "zone", Operator: "Near", Values: []string{"a"}}}
	badValue := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}
	badValue.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/gpu": "not a valid value!"}}
	pools := []*mcfgv1.MachineConfigPool{roledPool("worker", "worker"), roledPool("master", "master"), broken, badValue}
	for _, tc := range []struct {
		roles []string
		want  string
		err   bool
	}{
		{roles: []string{"worker"}, want: "worker"},
		{roles: []string{"master"}, want: "master"},
		{roles: []string{"master", "infra"}, err: true}, // infra might select it
		{roles: []string{"worker", "infra"}, err: true},
		{roles: []string{"storage"}, want: ""},
		{roles: []string{"worker", "gpu"}, err: true}, // gpu's selector needs the label, with a value it cannot have
	} {
		p, err := PrimaryPool(pools, roledNode(tc.roles...))
		if (err != nil) != tc.err {
			t.Errorf("%v: err = %v, want error %v", tc.roles, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		got := ""
		if p != nil {
			got = p.Name
		}
		if got != tc.want {
			t.Errorf("%v: pool = %q, want %q", tc.roles, got, tc.want)
		}
	}
}
