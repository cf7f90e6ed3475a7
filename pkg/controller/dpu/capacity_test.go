package dpu

import (
	"testing"
	"time"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// TestMaxUnavailableSharedWithThePlanner is issue 16's hole (b): with
// maxUnavailable 1, A is Degraded on the pool's target and B gets a
// HostMaintenance. The MCO's rule (getAllCandidateMachines) keeps A's place:
// if its failure clears, A reboots at once. So B must wait, exactly as the
// planner would not grant B. The check is the MCO's rule, written here from
// its source, not the code under test.
func TestMaxUnavailableSharedWithThePlanner(t *testing.T) {
	failingA := doneNode("a", func(n *TenantNode) {
		n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateDegraded
	})
	s := snapshot([]TenantNode{failingA, doneNode("b")}, request("r1", "b", dpuv1.ActionDrain, time.Minute))
	s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}

	// The oracle: MCO capacity = maxUnavailable - unavailable - failing on target.
	unavailable, failingOnTarget := 0, 0
	for _, n := range s.Nodes {
		v := n.View
		ready := v.Ready && !v.Unschedulable
		done := v.Current != "" && v.Current == v.Desired && v.State == constants.MachineConfigDaemonStateDone
		failing := v.Current != v.Desired && (v.State == constants.MachineConfigDaemonStateDegraded ||
			v.State == constants.MachineConfigDaemonStateUnreconcilable)
		if !ready || (!done && !failing) {
			unavailable++
		}
		if v.Desired == cfgB && failing {
			failingOnTarget++
		}
	}
	if free := 1 - unavailable - failingOnTarget; free != 0 {
		t.Fatalf("oracle: %d free places, the scene is wrong", free)
	}

	p := DecideTenant(s)
	for _, a := range p.Nodes {
		if a.Node == "b" && a.Kind == NodeHold {
			t.Fatalf("b held while a, failing on the target, keeps the only place: %+v", p.Nodes)
		}
	}
	if len(p.Statuses) != 1 || p.Statuses[0].Status.Phase != dpuv1.PhasePending {
		t.Fatalf("r1: %+v, want Pending", p.Statuses)
	}

	// And the planner, on the same nodes, grants b nothing either.
	views := []node.NodeView{failingA.View, doneNode("b").View}
	if r := node.Plan(node.PoolView{Name: "worker", Target: cfgB}, views, node.Facts{}); len(r.Grant) != 0 {
		t.Fatalf("planner grants %v while a keeps the only place", r.Grant)
	}
}
