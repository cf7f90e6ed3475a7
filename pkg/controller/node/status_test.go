package node

import (
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func cond(s *mcfgv1.MachineConfigPoolStatus, t mcfgv1.MachineConfigPoolConditionType) mcfgv1.MachineConfigPoolCondition {
	if c := FindCondition(s.Conditions, t); c != nil {
		return *c
	}
	return mcfgv1.MachineConfigPoolCondition{}
}

func TestStatusCountsLikeTheMCO(t *testing.T) {
	nodes := []NodeView{
		updatedNode("ready", 0),
		with(updatedNode("cordoned", 1), func(n *NodeView) { n.Unschedulable = true }),
		granted(doneNode("working", oldCfg, 2)),
		with(granted(doneNode("broken", oldCfg, 3)), func(n *NodeView) {
			n.State, n.Reason = constants.MachineConfigDaemonStateDegraded, "disk full"
		}),
		doneNode("old", oldCfg, 4),
	}
	p := tolerant(pool("worker"))
	p.Generation = 7
	r := Plan(p, nodes, Facts{Now: epoch})
	s := r.Status
	got := [5]int32{s.MachineCount, s.UpdatedMachineCount, s.ReadyMachineCount, s.UnavailableMachineCount, s.DegradedMachineCount}
	if want := [5]int32{5, 2, 1, 2, 1}; got != want {
		t.Errorf("counts machine/updated/ready/unavailable/degraded = %v, want %v", got, want)
	}
	if s.ObservedGeneration != 7 {
		t.Errorf("observedGeneration = %d", s.ObservedGeneration)
	}
	for typ, want := range map[mcfgv1.MachineConfigPoolConditionType]corev1.ConditionStatus{
		mcfgv1.MachineConfigPoolUpdated: corev1.ConditionFalse, mcfgv1.MachineConfigPoolUpdating: corev1.ConditionTrue,
		mcfgv1.MachineConfigPoolNodeDegraded: corev1.ConditionTrue, mcfgv1.MachineConfigPoolDegraded: corev1.ConditionTrue,
		constants.PoolDisruptionHeldCondition: corev1.ConditionFalse,
	} {
		if c := cond(s, typ); c.Status != want {
			t.Errorf("condition %s = %q, want %q", typ, c.Status, want)
		}
	}
	nd := cond(s, mcfgv1.MachineConfigPoolNodeDegraded)
	if nd.Reason != "1 nodes are reporting degraded status on sync" || nd.Message != `Node broken is reporting: "disk full"` {
		t.Errorf("NodeDegraded = %+v", nd)
	}
	if s.CertExpirys == nil {
		t.Errorf("certExpirys must be an empty list, not null")
	}
}

func TestStatusAllUpdatedTakesSpecConfiguration(t *testing.T) {
	p := pool("worker")
	p.Configuration.Name = newCfg
	p.Status.Configuration.Name = oldCfg
	r := Plan(p, []NodeView{updatedNode("a", 0), updatedNode("b", 1)}, Facts{Now: epoch})
	if r.Status.Configuration.Name != newCfg {
		t.Errorf("status configuration = %q, want %q", r.Status.Configuration.Name, newCfg)
	}
	if c := cond(r.Status, mcfgv1.MachineConfigPoolUpdated); c.Status != corev1.ConditionTrue || c.Message != "All nodes are updated with MachineConfig "+newCfg {
		t.Errorf("Updated = %+v", c)
	}
	if c := cond(r.Status, mcfgv1.MachineConfigPoolUpdating); c.Status != corev1.ConditionFalse {
		t.Errorf("Updating = %+v", c)
	}
	// A pool not all updated keeps its last completed configuration.
	r = Plan(p, []NodeView{updatedNode("a", 0), doneNode("b", oldCfg, 1)}, Facts{Now: epoch})
	if r.Status.Configuration.Name != oldCfg {
		t.Errorf("status configuration moved before the rollout ended: %q", r.Status.Configuration.Name)
	}
}

func TestStatusPausedAndRenderDegraded(t *testing.T) {
	p := pool("worker")
	p.Paused = true
	p.Status.Conditions = []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolRenderDegraded, Status: corev1.ConditionTrue}}
	r := Plan(p, []NodeView{doneNode("a", oldCfg, 0)}, Facts{Now: epoch})
	if c := cond(r.Status, mcfgv1.MachineConfigPoolUpdating); c.Status != corev1.ConditionFalse || c.Message != "Pool is paused; will not update to MachineConfig "+newCfg {
		t.Errorf("Updating on a paused pool = %+v", c)
	}
	if c := cond(r.Status, mcfgv1.MachineConfigPoolDegraded); c.Status != corev1.ConditionTrue {
		t.Errorf("RenderDegraded must make the pool Degraded: %+v", c)
	}
	if c := cond(r.Status, mcfgv1.MachineConfigPoolRenderDegraded); c.Status != corev1.ConditionTrue {
		t.Errorf("RenderDegraded (not ours) was dropped: %+v", c)
	}
}

func TestStatusTransitionTimesAndHeldEventsOnce(t *testing.T) {
	cp := with2(pool(constants.MasterPool), constants.MasterPool)
	nodes := []NodeView{doneNode("m0", oldCfg, 0), doneNode("m1", oldCfg, 1), doneNode("m2", oldCfg, 2)}
	t0, t1, t2 := epoch, epoch.Add(time.Minute), epoch.Add(2*time.Minute)

	r := Plan(cp, nodes, Facts{Now: t0, Etcd: etcd3("m0", "m2")})
	held := cond(r.Status, constants.PoolDisruptionHeldCondition)
	if held.Status != corev1.ConditionTrue || held.Reason != string(HoldEtcdUnhealthy) {
		t.Fatalf("DisruptionHeld = %+v", held)
	}
	if !hasEvent(r, EventDisruptionHeld) {
		t.Fatalf("no DisruptionHeld event on the transition")
	}

	cp.Status = *r.Status
	r = Plan(cp, nodes, Facts{Now: t1, Etcd: etcd3("m0", "m2")})
	if hasEvent(r, EventDisruptionHeld) {
		t.Errorf("DisruptionHeld event repeated while nothing changed")
	}
	if c := cond(r.Status, mcfgv1.MachineConfigPoolUpdating); !c.LastTransitionTime.Equal(&metav1.Time{Time: t0}) {
		t.Errorf("Updating transition time moved without a transition: %v", c.LastTransitionTime)
	}

	cp.Status = *r.Status
	r = Plan(cp, nodes, Facts{Now: t2, Etcd: etcd3("m0")})
	if !hasEvent(r, EventDisruptionResume) || len(r.Grant) != 1 {
		t.Errorf("recovery: events %+v grants %v", r.Events, r.Grant)
	}
	if c := cond(r.Status, constants.PoolDisruptionHeldCondition); c.Status != corev1.ConditionFalse || !c.LastTransitionTime.Equal(&metav1.Time{Time: t2}) {
		t.Errorf("DisruptionHeld after recovery = %+v", c)
	}
}
