package dpu

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

const (
	cfgA = "rendered-worker-a"
	cfgB = "rendered-worker-b"
)

// doneNode is a ready, schedulable worker running cfgA.
func doneNode(name string, mods ...func(*TenantNode)) TenantNode {
	n := TenantNode{
		View: node.NodeView{Name: name, Current: cfgA, Desired: cfgA,
			State: constants.MachineConfigDaemonStateDone, Ready: true},
		Pool: "worker",
	}
	for _, m := range mods {
		m(&n)
	}
	return n
}

func held(record string) func(*TenantNode) {
	return func(n *TenantNode) { n.HasHold, n.HoldRecord, n.View.Unschedulable = true, record, true }
}

func cordoned(n *TenantNode) { n.View.Unschedulable = true }

func request(name, nodeName string, action dpuv1.HostMaintenanceAction, age time.Duration, mods ...func(*dpuv1.HostMaintenance)) *dpuv1.HostMaintenance {
	hm := &dpuv1.HostMaintenance{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1,
			CreationTimestamp: metav1.NewTime(t0.Add(-age))},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: nodeName, Action: action},
	}
	for _, m := range mods {
		m(hm)
	}
	return hm
}

// inPhase gives a request a status as if an earlier plan had set it.
func inPhase(p dpuv1.HostMaintenancePhase, drained bool) func(*dpuv1.HostMaintenance) {
	return func(hm *dpuv1.HostMaintenance) {
		hm.Status.Phase = p
		hm.Status.ObservedGeneration = hm.Generation
		meta.SetStatusCondition(&hm.Status.Conditions, metav1.Condition{Type: dpuv1.ConditionAdmitted,
			Status: metav1.ConditionTrue, Reason: dpuv1.ReasonAdmitted, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))})
		if drained {
			meta.SetStatusCondition(&hm.Status.Conditions, metav1.Condition{Type: dpuv1.ConditionDrained,
				Status: metav1.ConditionTrue, Reason: dpuv1.ReasonDrained, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))})
			dt := metav1.NewTime(t0.Add(-time.Minute))
			hm.Status.DrainedTime = &dt
		}
	}
}

func fromDPU(x string) func(*dpuv1.HostMaintenance) {
	return func(hm *dpuv1.HostMaintenance) {
		hm.Annotations = map[string]string{constants.InfraNodeAnnotation: x}
	}
}

func coalescedWith(cfg string) func(*dpuv1.HostMaintenance) {
	return func(hm *dpuv1.HostMaintenance) {
		hm.Status.CoalescedConfig = cfg
		hm.Status.RebootToken = RebootToken(hm)
	}
}

func snapshot(nodes []TenantNode, reqs ...*dpuv1.HostMaintenance) TenantSnapshot {
	s := TenantSnapshot{
		Now:          t0,
		Requests:     reqs,
		Nodes:        map[string]TenantNode{},
		Pools:        map[string]TenantPool{"worker": {Name: "worker", Target: cfgA, MaxUnavailable: 1}},
		Drains:       map[string]DrainState{},
		CoalesceWait: 10 * time.Minute,
	}
	for _, n := range nodes {
		s.Nodes[n.View.Name] = n
	}
	return s
}

// duringUpgrade: w0, drained, has a Reboot request while the cluster runs
// or upgrades to release desired; the worker pool targets target, rendered
// for release targetRelease.
func duringUpgrade(target, targetRelease, desired string, mods ...func(*TenantNode)) TenantSnapshot {
	s := snapshot([]TenantNode{doneNode("w0", append([]func(*TenantNode){held("false")}, mods...)...)},
		request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
	s.Pools["worker"] = TenantPool{Name: "worker", Target: target, TargetRelease: targetRelease, MaxUnavailable: 1}
	s.DesiredRelease = desired
	return s
}

type wantStatus struct {
	phase  dpuv1.HostMaintenancePhase
	reason string // reason of the Admitted condition
	msg    string // substring of status.message, or of the Admitted condition's message
}

func TestDecideTenant(t *testing.T) {
	tests := []struct {
		name    string
		snap    func() TenantSnapshot
		nodes   []NodeAction
		status  map[string]wantStatus // only requests whose status changes
		waiting bool
	}{
		{
			name:   "request for a missing node is rejected",
			snap:   func() TenantSnapshot { return snapshot(nil, request("r1", "ghost", dpuv1.ActionDrain, time.Minute)) },
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRejected, dpuv1.ReasonNodeNotFound, "does not exist"}},
		},
		{
			name: "request for a control-plane node is rejected",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("m0", func(n *TenantNode) { n.ControlPlane = true })},
					request("r1", "m0", dpuv1.ActionReboot, time.Minute))
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRejected, dpuv1.ReasonControlPlane, "control-plane"}},
		},
		{
			name: "second open request with the same action is rejected; another action joins",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0")},
					request("r1", "w0", dpuv1.ActionDrain, 3*time.Minute),
					request("r2", "w0", dpuv1.ActionDrain, 2*time.Minute),
					request("r3", "w0", dpuv1.ActionReboot, time.Minute))
			},
			nodes: []NodeAction{{Kind: NodeHold, Node: "w0", Record: "false"}},
			status: map[string]wantStatus{
				"r1": {dpuv1.PhaseDraining, "", "admitted"},
				"r2": {dpuv1.PhaseRejected, dpuv1.ReasonDuplicate, "already has the open Drain request r1"},
				"r3": {dpuv1.PhaseDraining, "", "joins the hold"},
			},
		},
		{
			// TestHostMaintenanceFlood saw both served: created in the same
			// second, r2 was admitted before r1 reached the cache.
			name: "an older duplicate that arrives after its twin was admitted is the one rejected",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute),
					request("r2", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
			},
			nodes: []NodeAction{{Kind: NodeDrain, Node: "w0"}}, // r2's drain goes on
			status: map[string]wantStatus{
				"r1": {dpuv1.PhaseRejected, dpuv1.ReasonDuplicate, "already has the open Drain request r2"},
			},
		},
		{
			name: "admission in order within maxUnavailable; later requests queue behind",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0"), doneNode("w1"), doneNode("w2")},
					request("r2", "w1", dpuv1.ActionDrain, 2*time.Minute),
					request("r1", "w0", dpuv1.ActionDrain, 3*time.Minute),
					request("r3", "w2", dpuv1.ActionReboot, time.Minute))
			},
			nodes: []NodeAction{{Kind: NodeHold, Node: "w0", Record: "false"}},
			status: map[string]wantStatus{
				"r1": {dpuv1.PhaseDraining, "", "within pool worker maxUnavailable 1"},
				"r2": {dpuv1.PhasePending, dpuv1.ReasonMaxUnavailable, "1 of maxUnavailable 1"},
				"r3": {dpuv1.PhasePending, dpuv1.ReasonQueued, "queued behind r2"},
			},
		},
		{
			name: "a node the planner is updating uses the pool's capacity",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{
					doneNode("w0", func(n *TenantNode) { n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateWorking }),
					doneNode("w1")},
					request("r1", "w1", dpuv1.ActionDrain, time.Minute))
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhasePending, dpuv1.ReasonMaxUnavailable, "maxUnavailable"}},
		},
		{
			name: "maintenance of a node that is updating waits for the update",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{
					doneNode("w0", func(n *TenantNode) { n.View.Desired = cfgB; n.UpdateDrain = true })},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 2}
				return s
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhasePending, dpuv1.ReasonNodeUpdating, "updating to " + cfgB}},
		},
		{
			name: "a person's cordon is recorded",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", cordoned), doneNode("w1")},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute))
			},
			nodes:  []NodeAction{{Kind: NodeHold, Node: "w0", Record: "true"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDraining, "", "within pool worker maxUnavailable 1"}},
		},
		{
			name: "a person's cordon is no place of the hold's: it may be lifted, the hold would stay",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", cordoned), doneNode("w1", held("false"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute))
			},
			nodes:  []NodeAction{{Kind: NodeRelease, Node: "w1", MakeSchedulable: true}},
			status: map[string]wantStatus{"r1": {dpuv1.PhasePending, dpuv1.ReasonMaxUnavailable, "1 of maxUnavailable 1 places taken by other nodes"}},
		},
		{
			name: "a NotReady node is not admitted as already unavailable",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{
					doneNode("w0", func(n *TenantNode) { n.View.Ready = false }),
					doneNode("w1", func(n *TenantNode) { n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateWorking })},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute))
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhasePending, dpuv1.ReasonMaxUnavailable, "places taken by other nodes"}},
		},
		{
			name: "a NotReady node with a free place is admitted",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", func(n *TenantNode) { n.View.Ready = false }), doneNode("w1")},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute))
			},
			nodes:  []NodeAction{{Kind: NodeHold, Node: "w0", Record: "false"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDraining, "", "within pool worker maxUnavailable 1"}},
		},
		{
			name: "held and cordoned: the drain runs",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
			},
			nodes:  []NodeAction{{Kind: NodeDrain, Node: "w0"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDraining, "", "draining node w0"}},
		},
		{
			name: "a failing drain is reported",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
				s.Drains["w0"] = DrainState{Running: true, Err: "cannot evict pod as it would violate the pod's disruption budget\nmore"}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeDrain, Node: "w0"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDraining, "", "failing, retrying: cannot evict pod as it would violate the pod's disruption budget"}},
		},
		{
			name: "drained: a Drain request holds",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
				s.Drains["w0"] = DrainState{Succeeded: true}
				return s
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDrained, "", "held until this request is deleted"}},
		},
		{
			name: "uncordoned behind the hold's back: cordon and drain again",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", func(n *TenantNode) { n.HasHold, n.HoldRecord = true, "false" })},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
			},
			nodes:  []NodeAction{{Kind: NodeHold, Node: "w0"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseDraining, "", "draining"}},
		},
		{
			name: "drained reboot without a pending update: plain reboot request",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"))},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
				s.Drains["w0"] = DrainState{Succeeded: true}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "asked the daemon of node w0 to reboot it"}},
		},
		{
			name: "drained reboot with a staged update: coalesced into one write",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage, n.View.Staged = cfgB, cfgB })},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1", Config: cfgB, ExpectDesired: cfgA}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "apply its staged update " + cfgB}},
		},
		{
			name: "paused pool: no coalescing",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage, n.View.Staged = cfgB, cfgB })},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1, Paused: true}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "to reboot it"}},
		},
		{
			name: "drained reboot, the staged update held by the pool's rules: the reboot goes without it",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Stage, n.View.Staged = cfgB, cfgB
					n.UpdateHeld = "MaintenanceWindow: outside the maintenance windows"
				})}, request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "without its update to " + cfgB + ", which is held (MaintenanceWindow"}},
		},
		{
			name: "update still staging: wait for it",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage = cfgB })},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			waiting: true,
			status:  map[string]wantStatus{"r1": {dpuv1.PhaseDrained, "", "finish staging " + cfgB}},
		},
		{
			name: "update still staging after CoalesceWait: plain reboot",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage = cfgB })},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				s.Now = t0.Add(time.Hour)
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "to reboot it"}},
		},
		{
			// The CVO has made 4.21.1 desired; the MCO's render has not given
			// the pool its 4.21.1 config yet (the target is 4.21.0's).
			name:    "drained reboot during a release upgrade not rendered yet: wait for the render",
			snap:    func() TenantSnapshot { return duringUpgrade(cfgA, "4.21.0", "4.21.1") },
			waiting: true,
			status:  map[string]wantStatus{"r1": {dpuv1.PhaseDrained, "", "waiting for pool worker's config for release 4.21.1"}},
		},
		{
			name: "release upgrade not rendered after CoalesceWait: plain reboot",
			snap: func() TenantSnapshot {
				s := duringUpgrade(cfgA, "4.21.0", "4.21.1")
				s.Now = t0.Add(time.Hour)
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "to reboot it"}},
		},
		{
			name: "release rendered and staging: wait for the stage, then one reboot",
			snap: func() TenantSnapshot {
				return duringUpgrade(cfgB, "4.21.1", "4.21.1", func(n *TenantNode) { n.View.Stage = cfgB })
			},
			waiting: true,
			status:  map[string]wantStatus{"r1": {dpuv1.PhaseDrained, "", "finish staging " + cfgB}},
		},
		{
			// The render is seen before the planner's stageConfig write.
			name:    "release rendered, the host not told to stage yet: wait for the stage",
			snap:    func() TenantSnapshot { return duringUpgrade(cfgB, "4.21.1", "4.21.1") },
			waiting: true,
			status:  map[string]wantStatus{"r1": {dpuv1.PhaseDrained, "", "finish staging " + cfgB}},
		},
		{
			name:   "release rendered, the host's pool unchanged by it: plain reboot",
			snap:   func() TenantSnapshot { return duringUpgrade(cfgA, "4.21.1", "4.21.1") },
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "to reboot it"}},
		},
		{
			name: "paused pool during a release upgrade: no wait",
			snap: func() TenantSnapshot {
				s := duringUpgrade(cfgA, "4.21.0", "4.21.1")
				p := s.Pools["worker"]
				p.Paused = true
				s.Pools["worker"] = p
				return s
			},
			nodes:  []NodeAction{{Kind: NodeReboot, Node: "w0", Token: "hostmaintenance-uid-r1"}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "to reboot it"}},
		},
		{
			name: "reboot acknowledged: released and completed",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.RebootRequest, n.LastReboot = "hostmaintenance-uid-r1", "hostmaintenance-uid-r1"
				})}, request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseRebooting, true)))
			},
			nodes:  []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseCompleted, "", "rebooted; released"}},
		},
		{
			name: "reboot acknowledged but a Drain request still holds: no release",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.RebootRequest, n.LastReboot = "hostmaintenance-uid-r2", "hostmaintenance-uid-r2"
				})},
					request("r1", "w0", dpuv1.ActionDrain, 2*time.Minute, inPhase(dpuv1.PhaseDrained, true)),
					request("r2", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseRebooting, true)))
			},
			status: map[string]wantStatus{"r2": {dpuv1.PhaseCompleted, "", "rebooted; other requests still hold it"}},
		},
		{
			name: "coalesced reboot acknowledged before the update is done: wait",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateWorking
					n.RebootRequest, n.LastReboot = "hostmaintenance-uid-r1", "hostmaintenance-uid-r1"
				})}, request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseRebooting, true), coalescedWith(cfgB)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "waiting for its update to " + cfgB}},
		},
		{
			name: "coalesced reboot done, but the update's uncordon is not served yet: Rebooting until the release",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Current, n.View.Desired = cfgB, cfgB
					n.UpdateDrain = true
					n.RebootRequest, n.LastReboot = "hostmaintenance-uid-r1", "hostmaintenance-uid-r1"
				})}, request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseRebooting, true), coalescedWith(cfgB)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseRebooting, "", "waiting for the update under way on it before releasing it"}},
		},
		{
			name: "coalesced reboot done and the update's uncordon served: Completed in the plan that releases",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Current, n.View.Desired = cfgB, cfgB
					n.RebootRequest, n.LastReboot = "hostmaintenance-uid-r1", "hostmaintenance-uid-r1"
				})}, request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseRebooting, true), coalescedWith(cfgB)))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			nodes:  []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
			status: map[string]wantStatus{"r1": {dpuv1.PhaseCompleted, "", "runs " + cfgB + "; released"}},
		},
		{
			name: "maintenance over, the drained node has staged its pool's update: handed to it, still held",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage, n.View.Staged = cfgB, cfgB })})
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				s.Drains["w0"] = DrainState{Succeeded: true}
				return s
			},
			nodes: []NodeAction{{Kind: NodeGrant, Node: "w0", Config: cfgB, ExpectDesired: cfgA}},
		},
		{
			name: "maintenance over, the drained node's staged update is held (breaker open): released, not handed over",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Stage, n.View.Staged = cfgB, cfgB
					n.UpdateHeld = "CircuitBreaker: 1 node(s) failed"
				})})
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				s.Drains["w0"] = DrainState{Succeeded: true}
				return s
			},
			nodes: []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
		},
		{
			name: "maintenance over, not drained in this hold: plain release (the planner drains for the update)",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.View.Stage, n.View.Staged = cfgB, cfgB })})
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			nodes: []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
		},
		{
			name: "handed-over update under way: the hold waits for it",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateWorking
				})})
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
		},
		{
			name: "the update failed: the hold ends (the drain cycle keeps its own cordon)",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) {
					n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateDegraded
				})})
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1}
				return s
			},
			nodes: []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
		},
		{
			name: "a NodeMaintenance and a HostMaintenance Drain for one node share the hold",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0")},
					request("r1", "w0", dpuv1.ActionDrain, 2*time.Minute),
					request(nodeMaintenanceKind+"/dpu-tenant-w0", "w0", dpuv1.ActionDrain, time.Minute))
			},
			nodes: []NodeAction{{Kind: NodeHold, Node: "w0", Record: "false"}},
			status: map[string]wantStatus{
				"r1":                                   {dpuv1.PhaseDraining, "", "within pool worker"},
				nodeMaintenanceKind + "/dpu-tenant-w0": {dpuv1.PhaseDraining, "", "joins the hold"},
			},
		},
		{
			name: "a Pair request reports the host's pending update and how long it waits for the DPU",
			snap: func() TenantSnapshot {
				s := snapshot([]TenantNode{doneNode("w0")}, request("p", "w0", dpuv1.ActionPair, time.Hour, fromDPU("dpu-0")))
				s.Pools["worker"] = TenantPool{Name: "worker", Target: cfgB, MaxUnavailable: 1, TargetSince: t0.Add(-time.Minute)}
				s.AnnounceWait = 2 * time.Minute
				return s
			},
			status: map[string]wantStatus{"p": {dpuv1.PhaseActive, dpuv1.ReasonPaired, "waits until 2026-03-01T10:01:00Z for the DPU"}},
		},
		{
			name: "a Pair needs no place and holds nothing",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0"), doneNode("w1")},
					request("p", "w0", dpuv1.ActionPair, time.Hour, fromDPU("dpu-0")),
					request("r1", "w1", dpuv1.ActionDrain, time.Minute))
			},
			nodes: []NodeAction{{Kind: NodeHold, Node: "w1", Record: "false"}},
			status: map[string]wantStatus{
				"p":  {dpuv1.PhaseActive, dpuv1.ReasonPaired, "no update pending"},
				"r1": {dpuv1.PhaseDraining, "", "within pool worker maxUnavailable 1"},
			},
		},
		{
			name: "a Taint request taints its node, without a place",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0"), doneNode("w1", held("false"))},
					request("t", "w0", dpuv1.ActionTaint, time.Minute, fromDPU("dpu-0"),
						func(hm *dpuv1.HostMaintenance) { hm.Spec.Reason = "DPU dpu-0 NotReady for 45s" }),
					request("r1", "w1", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
			},
			nodes:  []NodeAction{{Kind: NodeTaint, Node: "w0", TaintValue: "dpu-0", Why: "DPU dpu-0 NotReady for 45s"}},
			status: map[string]wantStatus{"t": {dpuv1.PhaseActive, dpuv1.ReasonTainted, "dpu-not-ready=dpu-0:NoSchedule"}},
		},
		{
			name: "the Taint request is gone: the taint goes",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", func(n *TenantNode) { n.Taint, n.HasTaint = "dpu-0", true })})
			},
			nodes: []NodeAction{{Kind: NodeUntaint, Node: "w0", Why: "DPU dpu-0 is back"}},
		},
		{
			name: "another reboot token pending on the node: wait",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"), func(n *TenantNode) { n.RebootRequest = "someone-else" })},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDrained, true)))
			},
			status: map[string]wantStatus{},
		},
		{
			name: "request deleted mid-drain: released, a person's cordon kept",
			snap: func() TenantSnapshot {
				gone := metav1.NewTime(t0)
				return snapshot([]TenantNode{doneNode("w0", held("true"))},
					request("r1", "w0", dpuv1.ActionDrain, time.Minute, inPhase(dpuv1.PhaseDraining, false),
						func(hm *dpuv1.HostMaintenance) { hm.DeletionTimestamp = &gone }))
			},
			nodes: []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: false}},
		},
		{
			name:  "hold left without requests is released",
			snap:  func() TenantSnapshot { return snapshot([]TenantNode{doneNode("w0", held("false"))}) },
			nodes: []NodeAction{{Kind: NodeRelease, Node: "w0", MakeSchedulable: true}},
		},
		{
			name: "a new request on a held node joins the hold instead of releasing it",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0", held("false"))}, request("r2", "w0", dpuv1.ActionReboot, time.Second))
			},
			nodes:  []NodeAction{{Kind: NodeDrain, Node: "w0"}},
			status: map[string]wantStatus{"r2": {dpuv1.PhaseDraining, "", "draining node w0"}},
		},
		{
			name: "completed and rejected requests are left alone",
			snap: func() TenantSnapshot {
				return snapshot([]TenantNode{doneNode("w0")},
					request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseCompleted, true)),
					request("r2", "ghost", dpuv1.ActionReboot, time.Minute, func(hm *dpuv1.HostMaintenance) { hm.Status.Phase = dpuv1.PhaseRejected }))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DecideTenant(tt.snap())
			if !equalActions(p.Nodes, tt.nodes) {
				t.Errorf("node actions:\n got %+v\nwant %+v", p.Nodes, tt.nodes)
			}
			if p.Waiting != tt.waiting {
				t.Errorf("waiting = %v, want %v", p.Waiting, tt.waiting)
			}
			got := map[string]StatusUpdate{}
			for _, u := range p.Statuses {
				got[u.Name] = u
			}
			for name, w := range tt.status {
				u, ok := got[name]
				if !ok {
					t.Errorf("%s: no status update, want phase %s", name, w.phase)
					continue
				}
				if u.Status.Phase != w.phase {
					t.Errorf("%s: phase %s, want %s (message %q)", name, u.Status.Phase, w.phase, u.Status.Message)
				}
				if w.reason != "" {
					c := meta.FindStatusCondition(u.Status.Conditions, dpuv1.ConditionAdmitted)
					if c == nil || c.Reason != w.reason {
						t.Errorf("%s: Admitted condition %+v, want reason %s", name, c, w.reason)
					}
				}
				admitted := ""
				if c := meta.FindStatusCondition(u.Status.Conditions, dpuv1.ConditionAdmitted); c != nil {
					admitted = c.Message
				}
				if !strings.Contains(u.Status.Message, w.msg) && !strings.Contains(admitted, w.msg) {
					t.Errorf("%s: message %q (admitted: %q), want it to contain %q", name, u.Status.Message, admitted, w.msg)
				}
			}
			for _, hm := range tt.snap().Requests {
				u, ok := got[hm.Name]
				if _, want := tt.status[hm.Name]; !want && ok && u.Status.Phase != hm.Status.Phase {
					t.Errorf("%s: unexpected phase change %s -> %s (%s)", hm.Name, hm.Status.Phase, u.Status.Phase, u.Status.Message)
				}
			}
		})
	}
}

func equalActions(a, b []NodeAction) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecideTenantSettles: once a plan's statuses are written, deciding
// again on the same world changes no status (no write on every sync).
func TestDecideTenantSettles(t *testing.T) {
	s := snapshot([]TenantNode{doneNode("w0", held("false")), doneNode("w1"), doneNode("w2")},
		request("r1", "w0", dpuv1.ActionDrain, 3*time.Minute, inPhase(dpuv1.PhaseDraining, false)),
		request("r2", "w1", dpuv1.ActionReboot, 2*time.Minute),
		request("r3", "ghost", dpuv1.ActionReboot, time.Minute))
	s.Drains["w0"] = DrainState{Succeeded: true}
	first := DecideTenant(s)
	if len(first.Statuses) != 3 {
		t.Fatalf("first plan updates %d statuses, want 3: %+v", len(first.Statuses), first.Statuses)
	}
	for _, u := range first.Statuses {
		for _, hm := range s.Requests {
			if hm.Name == u.Name {
				hm.Status = u.Status
			}
		}
	}
	s.Now = s.Now.Add(time.Minute)
	if again := DecideTenant(s); len(again.Statuses) != 0 {
		t.Errorf("second plan rewrites statuses: %+v", again.Statuses)
	}
}

func TestTenantTimestamps(t *testing.T) {
	s := snapshot([]TenantNode{doneNode("w0", held("false"))},
		request("r1", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseDraining, false)))
	s.Drains["w0"] = DrainState{Succeeded: true}
	p := DecideTenant(s)
	if len(p.Statuses) != 1 {
		t.Fatalf("statuses %+v", p.Statuses)
	}
	st := p.Statuses[0].Status
	if st.DrainedTime == nil || !st.DrainedTime.Time.Equal(t0) || st.RebootRequestedTime == nil || !st.RebootRequestedTime.Time.Equal(t0) {
		t.Errorf("timestamps drained=%v rebootRequested=%v, want both %v", st.DrainedTime, st.RebootRequestedTime, t0)
	}
	if st.RebootToken != "hostmaintenance-uid-r1" {
		t.Errorf("token %q", st.RebootToken)
	}
}

func TestUnavailableForUpdate(t *testing.T) {
	done := doneNode("w").View
	tests := []struct {
		name string
		v    func(node.NodeView) node.NodeView
		want bool
	}{
		{"done and ready", func(v node.NodeView) node.NodeView { return v }, false},
		{"not ready", func(v node.NodeView) node.NodeView { v.Ready = false; return v }, true},
		{"cordoned", func(v node.NodeView) node.NodeView { v.Unschedulable = true; return v }, true},
		{"granted", func(v node.NodeView) node.NodeView { v.Desired = cfgB; return v }, true},
		{"failing on its grant", func(v node.NodeView) node.NodeView {
			v.Desired, v.State = cfgB, constants.MachineConfigDaemonStateDegraded
			return v
		}, false},
		{"no daemon yet", func(v node.NodeView) node.NodeView { v.Current, v.Desired, v.State = "", "", ""; return v }, true},
	}
	for _, tt := range tests {
		if got := tt.v(done).Unavailable(); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
