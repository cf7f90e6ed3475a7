package dpu

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// serveStanding keeps the node's Pair and Taint requests: they hold
// nothing, so they need no place and are in effect at once.
func (d *tenantDecider) serveStanding(name string) {
	n := d.s.Nodes[name]
	for _, r := range d.byNode[name] {
		switch r.obj.Spec.Action {
		case dpuv1.ActionPair:
			d.servePair(r, n)
		case dpuv1.ActionTaint:
			d.serveTaint(r, n)
		}
	}
}

// servePair reports the host's pending update, which the infra side reads
// to ask for its DPU's maintenance early, and until when the update waits
// for that (the gate, TenantGateVerdict, does the waiting).
func (d *tenantDecider) servePair(r *reqState, n TenantNode) {
	name, dpu := n.View.Name, dpuOf(r.obj)
	pool := d.s.Pools[n.Pool]
	r.status.PendingUpdate, r.status.HoldUpdateUntil = "", nil
	msg := fmt.Sprintf("host %s has DPU %s; no update pending", name, dpu)
	if pool.Target != "" && !pool.Paused && n.View.Current != pool.Target {
		r.status.PendingUpdate = pool.Target
		msg = fmt.Sprintf("host %s has DPU %s; its update to %s goes with the DPU's maintenance when there is one", name, dpu, pool.Target)
		if until, ok := announceDeadline(pool, d.s.AnnounceWait); ok {
			t := metav1.NewTime(until)
			r.status.HoldUpdateUntil = &t
			msg = fmt.Sprintf("host %s has DPU %s; its update to %s waits until %s for the DPU to ask for maintenance, so that one drain and one reboot serve both",
				name, dpu, pool.Target, until.UTC().Format(time.RFC3339))
		}
	}
	r.status.Phase = dpuv1.PhaseActive
	r.status.Message = msg
	d.cond(r, dpuv1.ConditionAdmitted, metav1.ConditionTrue, dpuv1.ReasonPaired, fmt.Sprintf("host %s is paired with DPU %s", name, dpu))
}

// serveTaint taints the host of a DPU that is down.
func (d *tenantDecider) serveTaint(r *reqState, n TenantNode) {
	name, dpu := n.View.Name, dpuOf(r.obj)
	why := r.obj.Spec.Reason
	if why == "" {
		why = fmt.Sprintf("DPU %s is down", dpu)
	}
	if !n.HasTaint || n.Taint != dpu {
		d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeTaint, Node: name, TaintValue: dpu, Why: why})
	}
	msg := fmt.Sprintf("node %s is tainted %s=%s:NoSchedule: %s", name, constants.DPUNotReadyTaintKey, dpu, why)
	r.status.Phase = dpuv1.PhaseActive
	r.status.Message = msg
	d.cond(r, dpuv1.ConditionAdmitted, metav1.ConditionTrue, dpuv1.ReasonTainted, msg)
}

// announceDeadline is when a paired host's update to the pool's target
// stops waiting for its DPU: the target's creation plus the wait.
func announceDeadline(pool TenantPool, wait time.Duration) (time.Time, bool) {
	if pool.TargetSince.IsZero() || wait <= 0 {
		return time.Time{}, false
	}
	return pool.TargetSince.Add(wait), true
}

// dpuOf names the DPU a request speaks for (its infra-node annotation).
func dpuOf(hm *dpuv1.HostMaintenance) string {
	if x := hm.Annotations[constants.InfraNodeAnnotation]; x != "" {
		return x
	}
	return "unnamed"
}

// requestKind tells HostMaintenance requests from the NodeMaintenance
// objects served as Drain requests: the two are never duplicates.
func requestKind(hm *dpuv1.HostMaintenance) string {
	if strings.HasPrefix(hm.Name, nodeMaintenanceKind+"/") {
		return nodeMaintenanceKind
	}
	return dpuv1.HostMaintenanceKind
}

// TenantGateInput is what the tenant planner's gate looks at for one node.
type TenantGateInput struct {
	Node node.NodeView
	// Pool is the node's pool (its target and when the target appeared).
	Pool TenantPool
	// Requests are the open requests for the node (HostMaintenance, and
	// NodeMaintenance as Drain requests).
	Requests     []*dpuv1.HostMaintenance
	AnnounceWait time.Duration
	Now          time.Time
	// RequestsUnknown is set while the requests are not read yet (the
	// controller's caches have not synced, as after its restart): an empty
	// Requests then says nothing, and a paired host granted now would not
	// wait for its DPU.
	RequestsUnknown bool
}

// TenantGateVerdict decides whether the tenant planner may grant a node its
// config update. It is pure.
//   - A node with an open Drain or Reboot request is left to the
//     maintenance: its update is coalesced with the maintenance's reboot,
//     or handed the drained node when the maintenance ends.
//   - A node with a Pair request (it has a DPU) waits, from the moment the
//     target appeared, up to AnnounceWait for the DPU to ask for a Drain:
//     both clusters may have started their updates at the same moment, and
//     whichever drain comes first then serves both.
//   - While the requests are unknown, no node is granted: the gate fails
//     closed.
func TenantGateVerdict(in TenantGateInput) (bool, string) {
	if in.RequestsUnknown {
		return false, fmt.Sprintf("the HostMaintenance requests are not read yet (caches syncing): node %s may have a DPU or open maintenance", in.Node.Name)
	}
	var pair *dpuv1.HostMaintenance
	for _, hm := range in.Requests {
		if hm.DeletionTimestamp != nil || hm.Status.Phase.Terminal() {
			continue
		}
		switch {
		case hm.Spec.Action.Holds():
			phase := hm.Status.Phase
			if phase == "" {
				phase = dpuv1.PhasePending
			}
			return false, fmt.Sprintf("%s %s (%s, %s) is open for node %s; its update is applied with the maintenance",
				requestKind(hm), strings.TrimPrefix(hm.Name, nodeMaintenanceKind+"/"), hm.Spec.Action, phase, in.Node.Name)
		case hm.Spec.Action == dpuv1.ActionPair && pair == nil:
			pair = hm
		}
	}
	if pair == nil || in.Pool.Target == "" || in.Node.Current == in.Pool.Target {
		return true, ""
	}
	if in.AnnounceWait > 0 && in.Pool.TargetSince.IsZero() {
		// The wait counts from the target's creation; a cache that has
		// not shown the new rendered config yet (a watch reconnecting)
		// must not let the host go ahead of its DPU.
		return false, fmt.Sprintf("node %s has DPU %s: its update waits for the DPU, and when %s was created is not read yet",
			in.Node.Name, dpuOf(pair), in.Pool.Target)
	}
	until, ok := announceDeadline(in.Pool, in.AnnounceWait)
	if !ok || !in.Now.Before(until) {
		return true, ""
	}
	return false, fmt.Sprintf("node %s has DPU %s: its update waits until %s for the DPU to ask for maintenance, so that one drain serves both",
		in.Node.Name, dpuOf(pair), until.UTC().Format(time.RFC3339))
}
