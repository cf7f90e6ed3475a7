package dpu

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// TenantSnapshot is everything DecideTenant looks at.
type TenantSnapshot struct {
	Now time.Time
	// Requests are the HostMaintenance requests, and the served medik8s
	// NodeMaintenance objects as Drain requests (see nodeMaintenanceRequest).
	Requests []*dpuv1.HostMaintenance
	// Nodes by name; a request naming a node not in the map is for a
	// missing node.
	Nodes map[string]TenantNode
	// Pools by name.
	Pools map[string]TenantPool
	// Drains are the drainer's results, by node (in memory: a restart only
	// drains again, which is quick once the pods are gone).
	Drains map[string]DrainState
	// CoalesceWait bounds how long a drained host waits for a pending
	// update to finish staging so that one reboot applies both.
	CoalesceWait time.Duration
	// AnnounceWait bounds how long a paired host's new update waits for its
	// DPU to ask for maintenance, counted from the target's creation.
	AnnounceWait time.Duration
	// DesiredRelease is the OpenShift release the cluster runs or upgrades
	// to (ClusterVersion status.desired.version); "" when unknown (no
	// ClusterVersion: not OpenShift, or not read because no Reboot request
	// is open).
	DesiredRelease string
}

// TenantNode is what DecideTenant knows of a tenant node.
type TenantNode struct {
	View node.NodeView
	// Pool is the node's primary pool ("" if none).
	Pool string
	// ControlPlane: the node is a master / control-plane node.
	ControlPlane bool
	// HoldRecord is MaintenanceCordonAnnotation's value; HasHold its presence.
	HoldRecord string
	HasHold    bool
	// UpdateDrain: the drain controller's cycle for a config update is open
	// (drain requested or served, uncordon not served yet).
	UpdateDrain   bool
	RebootRequest string // rebootRequest (controller -> daemon)
	LastReboot    string // lastReboot (daemon -> controller)
	// Taint is the value of the DPUNotReadyTaintKey taint; HasTaint its presence.
	Taint    string
	HasTaint bool
	// UpdateHeld says what holds the node's update back by its pool's own
	// rules (breaker, holds, windows, cluster gates; node.UpdateHold); ""
	// when nothing does. A held update is neither coalesced with a
	// maintenance's reboot nor handed the drained node.
	UpdateHeld string
}

// TenantPool is what DecideTenant knows of a pool.
type TenantPool struct {
	Name   string
	Target string
	Paused bool
	// MaxUnavailable is the pool's maxUnavailable as a node count.
	MaxUnavailable int
	// TargetSince is when the target config was created; zero if unknown.
	TargetSince time.Time
	// TargetRelease is the release the target config was rendered for (its
	// release-image-version annotation, which the MCO's render stamps);
	// "" if unknown.
	TargetRelease string
}

// releaseToRender returns the release the cluster upgrades to when pool's
// config for it is not rendered yet ("" otherwise): the CVO has made the
// release desired, and the pool's target still carries another release's
// stamp (the MCO's operator judges its own upgrade by the same stamp:
// pkg/operator/sync.go, release-4.21). A new release's config comes to
// every pool, even one whose content does not change (re-stamped).
func releaseToRender(p TenantPool, desired string) string {
	if desired == "" || p.TargetRelease == "" || p.TargetRelease == desired {
		return ""
	}
	return desired
}

// DrainState is the drainer's view of a node's drain since its hold began.
type DrainState struct {
	Running   bool
	Succeeded bool
	// Err is the last failed attempt's error, while retrying.
	Err string
}

// NodeActionKind is one change DecideTenant asks for on a node.
type NodeActionKind string

const (
	// NodeHold records the hold (MaintenanceCordonAnnotation=Record, when
	// not recorded yet) and cordons the node. It restarts the drain.
	NodeHold NodeActionKind = "Hold"
	// NodeDrain makes sure a drain of the (held, cordoned) node runs.
	NodeDrain NodeActionKind = "Drain"
	// NodeReboot sets rebootRequest=Token, and desiredConfig=Config in the
	// same write when Config is set (a reboot coalesced with the update).
	NodeReboot NodeActionKind = "Reboot"
	// NodeGrant hands a held, drained node whose last request ended to its
	// staged pending update: desiredConfig=Config. The hold stays until the
	// update is done, so one drain serves the maintenance and the update.
	NodeGrant NodeActionKind = "Grant"
	// NodeRelease ends the hold: stops any drain, uncordons when
	// MakeSchedulable, and removes the hold record.
	NodeRelease NodeActionKind = "Release"
	// NodeTaint puts the DPU-not-ready taint (value TaintValue) on the node.
	NodeTaint NodeActionKind = "Taint"
	// NodeUntaint removes the DPU-not-ready taint.
	NodeUntaint NodeActionKind = "Untaint"
)

// NodeAction is one change on a node.
type NodeAction struct {
	Kind NodeActionKind
	Node string
	// Record (Hold): the hold record to write; "" when already recorded.
	Record string
	// Token and Config (Reboot); Config (Grant).
	Token  string
	Config string
	// ExpectDesired (Reboot with Config, Grant): desiredConfig must still be
	// this value for the write to apply, so a concurrent grant is not
	// overwritten.
	ExpectDesired string
	// MakeSchedulable (Release).
	MakeSchedulable bool
	// TaintValue (Taint) names the DPU that is down.
	TaintValue string
	// Why (Taint, Untaint) is recorded in the node's event.
	Why string
}

// StatusUpdate is a request's new status.
type StatusUpdate struct {
	Name   string
	UID    string
	Status dpuv1.HostMaintenanceStatus
}

// TenantPlan is DecideTenant's result: node changes first, then statuses.
type TenantPlan struct {
	Nodes    []NodeAction
	Statuses []StatusUpdate
	// Waiting is true when a request waits on something that makes no
	// event (a staging deadline), so the caller should look again soon.
	Waiting bool
}

// DecideTenant decides what the tenant controller does next. It is pure.
//
// Rules:
//   - A request for a missing node, for a control-plane node, or a second
//     open request with the same action (and kind) for the same node, is
//     Rejected.
//   - Drain and Reboot requests are admitted in creation order. A request
//     for a node that is already held joins the hold. Otherwise a node with
//     a config update in flight waits for it to finish; and the request
//     takes a place within its pool's maxUnavailable by the rule the node
//     planner uses (node.PlacesUsed): the node's own unavailability does
//     not count as a place it already has (a NotReady node or a person's
//     cordon may clear, the hold would not). The first request that finds
//     no place blocks the later ones of its pool.
//   - An admitted node is recorded as held, cordoned and drained. Drain
//     requests then stay Drained. Reboot requests ask the node's daemon to
//     reboot (coalesced with a staged update of the pool's target when there
//     is one, waiting up to CoalesceWait for a staging one), and complete
//     in the plan that lets go of the node: after the daemon acknowledged
//     the reboot and any coalesced update is done.
//   - A held node that no open request holds any more is, once no update
//     is under way on it, handed to its staged pending update (one drain for
//     both) or released: uncordoned unless a person had cordoned it before.
//   - Pair requests stay Active and report the host's pending update (the
//     planner's gate, TenantGateVerdict, holds that update back for a while
//     so that the DPU's maintenance can take it along). Taint requests taint
//     their node; the taint goes when no Taint request is left.
func DecideTenant(s TenantSnapshot) TenantPlan {
	d := tenantDecider{s: s, byNode: map[string][]*reqState{}}
	d.load()
	d.validate()
	d.admit()
	for _, name := range sortedKeys(d.byNode) {
		d.serveNode(name)
		d.serveStanding(name)
	}
	d.release()
	return d.result()
}

// reqState is a request being decided.
type reqState struct {
	obj    *dpuv1.HostMaintenance
	status dpuv1.HostMaintenanceStatus
}

func (r *reqState) phase() dpuv1.HostMaintenancePhase {
	if r.status.Phase == "" {
		return dpuv1.PhasePending
	}
	return r.status.Phase
}

// admitted: a Drain or Reboot request that holds its node.
func (r *reqState) admitted() bool {
	if !r.obj.Spec.Action.Holds() {
		return false
	}
	switch r.phase() {
	case dpuv1.PhaseDraining, dpuv1.PhaseDrained, dpuv1.PhaseRebooting:
		return true
	}
	return false
}

type tenantDecider struct {
	s       TenantSnapshot
	ordered []*reqState
	byNode  map[string][]*reqState // open requests per node, in order
	plan    TenantPlan
}

func (d *tenantDecider) load() {
	reqs := slices.Clone(d.s.Requests)
	slices.SortFunc(reqs, compareRequests)
	for _, hm := range reqs {
		if hm.DeletionTimestamp != nil {
			continue // gone as far as holds go
		}
		r := &reqState{obj: hm, status: *hm.Status.DeepCopy()}
		d.ordered = append(d.ordered, r)
		if !r.phase().Terminal() {
			d.byNode[hm.Spec.NodeName] = append(d.byNode[hm.Spec.NodeName], r)
		}
	}
}

// compareRequests is the service order: oldest first, then by name.
func compareRequests(a, b *dpuv1.HostMaintenance) int {
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func (d *tenantDecider) validate() {
	for _, name := range sortedKeys(d.byNode) {
		n, exists := d.s.Nodes[name]
		seen := map[string]*reqState{} // by kind and action
		var keep []*reqState
		// An admitted request is the one its duplicates defer to, even when
		// an older one (created in the same second, named before it) shows
		// up in the cache only after it was admitted: else both are served.
		reqs := slices.Clone(d.byNode[name])
		slices.SortStableFunc(reqs, func(a, b *reqState) int { return cmp.Compare(b2i(!a.admitted()), b2i(!b.admitted())) })
		for _, r := range reqs {
			key := requestKind(r.obj) + "/" + string(r.obj.Spec.Action)
			switch {
			case !exists:
				d.reject(r, dpuv1.ReasonNodeNotFound, fmt.Sprintf("node %s does not exist", name))
			case n.ControlPlane && !r.admitted():
				d.reject(r, dpuv1.ReasonControlPlane, fmt.Sprintf("node %s is a control-plane node; HostMaintenance serves workers only", name))
			case seen[key] != nil && !r.admitted():
				other := seen[key].obj.Name
				d.reject(r, dpuv1.ReasonDuplicate, fmt.Sprintf("node %s already has the open %s request %s; delete this one or wait for that one to end",
					name, r.obj.Spec.Action, other))
			default:
				if seen[key] == nil {
					seen[key] = r
				}
				keep = append(keep, r)
			}
		}
		if len(keep) == 0 {
			delete(d.byNode, name)
		} else {
			d.byNode[name] = keep
		}
	}
}

func (d *tenantDecider) reject(r *reqState, reason, msg string) {
	r.status.Phase = dpuv1.PhaseRejected
	r.status.Message = msg
	d.cond(r, dpuv1.ConditionAdmitted, metav1.ConditionFalse, reason, msg)
	r.status.CompletedTime = d.now()
}

// admit gives Pending Drain and Reboot requests their place, in order.
func (d *tenantDecider) admit() {
	views := map[string]node.NodeView{} // nodes as this plan leaves them
	used := map[string]int{}            // places taken, by pool
	for name, n := range d.s.Nodes {
		v := n.View
		if d.held(name, n) {
			v.Unschedulable = true
		}
		views[name] = v
		used[n.Pool] += node.PlacesUsed(d.pool(n.Pool).Target, v)
	}
	blocked := map[string]string{} // pool -> request that found no place
	for _, r := range d.ordered {
		name := r.obj.Spec.NodeName
		if !r.obj.Spec.Action.Holds() || r.phase() != dpuv1.PhasePending || !slices.Contains(d.byNode[name], r) {
			continue
		}
		n := d.s.Nodes[name]
		pool := d.pool(n.Pool)
		own := node.PlacesUsed(pool.Target, views[name])
		switch {
		case d.held(name, n):
			d.admitOne(r, n, "joins the hold on the node")
		case n.UpdateDrain || updating(n.View):
			d.wait(r, dpuv1.ReasonNodeUpdating, fmt.Sprintf("node %s is updating to %s; maintenance waits for it to finish",
				name, orNone(n.View.Desired)))
		case blocked[n.Pool] != "":
			d.wait(r, dpuv1.ReasonQueued, fmt.Sprintf("queued behind %s in pool %s", blocked[n.Pool], pool.Name))
		case used[n.Pool]-own+1 > pool.MaxUnavailable:
			blocked[n.Pool] = r.obj.Name
			d.wait(r, dpuv1.ReasonMaxUnavailable, fmt.Sprintf("pool %s has %d of maxUnavailable %d places taken by other nodes",
				pool.Name, used[n.Pool]-own, pool.MaxUnavailable))
		default:
			v := views[name]
			v.Unschedulable = true
			views[name] = v
			used[n.Pool] += node.PlacesUsed(pool.Target, v) - own
			d.admitOne(r, n, fmt.Sprintf("within pool %s maxUnavailable %d", pool.Name, pool.MaxUnavailable))
		}
	}
}

func (d *tenantDecider) pool(name string) TenantPool {
	if p, ok := d.s.Pools[name]; ok {
		return p
	}
	// Nodes outside any pool are served one at a time.
	return TenantPool{Name: "(none)", MaxUnavailable: 1}
}

// held reports whether the node is held, or will be by an admitted request.
func (d *tenantDecider) held(name string, n TenantNode) bool {
	return n.HasHold || slices.ContainsFunc(d.byNode[name], (*reqState).admitted)
}

func (d *tenantDecider) admitOne(r *reqState, n TenantNode, why string) {
	r.status.Phase = dpuv1.PhaseDraining
	r.status.AdmittedTime = d.now()
	r.status.Message = fmt.Sprintf("admitted (%s); draining node %s", why, n.View.Name)
	d.cond(r, dpuv1.ConditionAdmitted, metav1.ConditionTrue, dpuv1.ReasonAdmitted, "admitted: "+why)
}

func (d *tenantDecider) wait(r *reqState, reason, msg string) {
	r.status.Phase = dpuv1.PhasePending
	r.status.Message = msg
	d.cond(r, dpuv1.ConditionAdmitted, metav1.ConditionFalse, reason, msg)
}

// serveNode moves the admitted Drain and Reboot requests of one node along.
func (d *tenantDecider) serveNode(name string) {
	var active []*reqState
	for _, r := range d.byNode[name] {
		if r.admitted() {
			active = append(active, r)
		}
	}
	if len(active) == 0 {
		return
	}
	n := d.s.Nodes[name]
	drained := d.ensureDrained(name, n, active)
	for _, r := range active {
		if !drained {
			d.notDrained(r, name)
			continue
		}
		d.setDrained(r, name)
		if r.obj.Spec.Action == dpuv1.ActionReboot {
			d.serveReboot(r, n)
		}
	}
}

// ensureDrained asks for the hold, cordon and drain the node still needs,
// and reports whether it is drained: held, cordoned, and drained during
// this hold (a request of the hold already reached Drained, or the drainer
// just succeeded).
func (d *tenantDecider) ensureDrained(name string, n TenantNode, active []*reqState) bool {
	switch {
	case !n.HasHold:
		d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeHold, Node: name, Record: holdRecord(n)})
		return false
	case !n.View.Unschedulable:
		// Uncordoned behind our back: cordon again and drain again.
		d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeHold, Node: name})
		return false
	}
	if slices.ContainsFunc(active, func(r *reqState) bool {
		return meta.IsStatusConditionTrue(r.status.Conditions, dpuv1.ConditionDrained)
	}) {
		return true
	}
	ds := d.s.Drains[name]
	if ds.Succeeded {
		return true
	}
	d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeDrain, Node: name})
	return false
}

// holdRecord is the hold record for a node about to be held: whether the
// cordon it has is a person's. A cordon of an update's drain is not.
func holdRecord(n TenantNode) string {
	if n.View.Unschedulable && !n.UpdateDrain {
		return "true"
	}
	return "false"
}

func (d *tenantDecider) notDrained(r *reqState, name string) {
	ds := d.s.Drains[name]
	r.status.Phase = dpuv1.PhaseDraining
	if ds.Err != "" {
		msg := fmt.Sprintf("drain of node %s failing, retrying: %s", name, firstLine(ds.Err))
		r.status.Message = msg
		d.cond(r, dpuv1.ConditionDrained, metav1.ConditionFalse, dpuv1.ReasonDrainFailing, msg)
		return
	}
	r.status.Message = fmt.Sprintf("draining node %s", name)
	d.cond(r, dpuv1.ConditionDrained, metav1.ConditionFalse, dpuv1.ReasonDraining, r.status.Message)
}

func (d *tenantDecider) setDrained(r *reqState, name string) {
	if !meta.IsStatusConditionTrue(r.status.Conditions, dpuv1.ConditionDrained) {
		r.status.DrainedTime = d.now()
	}
	d.cond(r, dpuv1.ConditionDrained, metav1.ConditionTrue, dpuv1.ReasonDrained,
		fmt.Sprintf("node %s is cordoned and drained", name))
	if r.phase() == dpuv1.PhaseDraining {
		r.status.Phase = dpuv1.PhaseDrained
	}
	if r.obj.Spec.Action == dpuv1.ActionDrain {
		r.status.Message = fmt.Sprintf("node %s is cordoned and drained; held until this request is deleted", name)
	}
}

// serveReboot moves a Reboot request of a drained node along.
func (d *tenantDecider) serveReboot(r *reqState, n TenantNode) {
	name := n.View.Name
	token := r.status.RebootToken
	if token == "" {
		token = RebootToken(r.obj)
	}
	switch {
	case n.LastReboot == token:
		if cfg := r.status.CoalescedConfig; cfg != "" && !(n.View.Current == cfg && n.View.Desired == cfg &&
			n.View.State == constants.MachineConfigDaemonStateDone) {
			d.rebooting(r, token, fmt.Sprintf("node %s rebooted; waiting for its update to %s to finish", name, cfg))
			return
		}
		if !d.heldByOthers(name, r) && (n.UpdateDrain || (updating(n.View) && !n.View.FailingState())) {
			d.rebooting(r, token, fmt.Sprintf("node %s rebooted; waiting for the update under way on it before releasing it", name))
			return
		}
		d.rebooted(r, name)
	case n.RebootRequest == token:
		msg := fmt.Sprintf("waiting for the daemon of node %s to reboot it", name)
		if cfg := r.status.CoalescedConfig; cfg != "" {
			msg = fmt.Sprintf("waiting for the daemon of node %s to update it to %s and reboot it once", name, cfg)
		}
		d.rebooting(r, token, msg)
	case n.RebootRequest != "" && n.RebootRequest != n.LastReboot:
		r.status.Message = fmt.Sprintf("node %s has another reboot request (%s) pending; waiting for it", name, n.RebootRequest)
	default:
		d.requestReboot(r, n, token)
	}
}

// heldByOthers reports whether another admitted request holds the node.
func (d *tenantDecider) heldByOthers(name string, r *reqState) bool {
	return slices.ContainsFunc(d.byNode[name], func(x *reqState) bool { return x != r && x.admitted() })
}

// requestReboot asks the daemon for the reboot, coalesced with a staged
// update of the pool's target when there is one.
func (d *tenantDecider) requestReboot(r *reqState, n TenantNode, token string) {
	name := n.View.Name
	pool, hasPool := d.s.Pools[n.Pool]
	v := n.View
	pending := hasPool && pool.Target != "" && !pool.Paused && v.Current != pool.Target &&
		v.Desired == v.Current && !v.FailingState() && n.UpdateHeld == ""
	switch {
	case pending && v.Staged == pool.Target:
		r.status.CoalescedConfig = pool.Target
		d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeReboot, Node: name, Token: token,
			Config: pool.Target, ExpectDesired: v.Desired})
		d.rebooting(r, token, fmt.Sprintf("asked the daemon of node %s to apply its staged update %s with this reboot (one drain, one reboot)",
			name, pool.Target))
		return
	case pending && !d.coalesceDeadlinePassed(r):
		// Staging (or about to: the planner stages every node of a pool
		// whose rollout is not halted, and a halted one holds the update,
		// UpdateHeld): rebooting between the render and the stage would
		// leave the host to be drained and rebooted again for its update.
		d.plan.Waiting = true
		msg := fmt.Sprintf("waiting for node %s to finish staging %s, so one reboot applies both", name, pool.Target)
		r.status.Message = msg
		d.cond(r, dpuv1.ConditionRebooted, metav1.ConditionFalse, dpuv1.ReasonWaitingForStage, msg)
		return
	case hasPool && !pool.Paused && v.Desired == v.Current && !v.FailingState() && n.UpdateHeld == "" &&
		releaseToRender(pool, d.s.DesiredRelease) != "" && !d.coalesceDeadlinePassed(r):
		// A release upgrade has begun (the CVO made it desired) and the
		// render has not given the pool its config yet: rebooting now would
		// leave the host to be drained and rebooted again for it.
		d.plan.Waiting = true
		msg := fmt.Sprintf("waiting for pool %s's config for release %s (its target %s is release %s's), so one reboot applies both",
			n.Pool, d.s.DesiredRelease, pool.Target, pool.TargetRelease)
		r.status.Message = msg
		d.cond(r, dpuv1.ConditionRebooted, metav1.ConditionFalse, dpuv1.ReasonWaitingForRelease, msg)
		return
	}
	d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeReboot, Node: name, Token: token})
	msg := fmt.Sprintf("asked the daemon of node %s to reboot it", name)
	if n.UpdateHeld != "" && hasPool && v.Current != pool.Target {
		msg += fmt.Sprintf(", without its update to %s, which is held (%s)", pool.Target, n.UpdateHeld)
	}
	d.rebooting(r, token, msg)
}

func (d *tenantDecider) coalesceDeadlinePassed(r *reqState) bool {
	if r.status.DrainedTime == nil {
		return false
	}
	return !d.s.Now.Before(r.status.DrainedTime.Add(d.s.CoalesceWait))
}

func (d *tenantDecider) rebooting(r *reqState, token, msg string) {
	if r.status.RebootRequestedTime == nil {
		r.status.RebootRequestedTime = d.now()
	}
	r.status.RebootToken = token
	r.status.Phase = dpuv1.PhaseRebooting
	r.status.Message = msg
	reason := dpuv1.ReasonRebootRequested
	if r.status.CoalescedConfig != "" {
		reason = dpuv1.ReasonCoalesced
	}
	d.cond(r, dpuv1.ConditionRebooted, metav1.ConditionFalse, reason, msg)
}

// rebooted completes a Reboot request. It no longer holds the node, so
// release (below, in the same plan) lets go of the node when no other
// request holds it: Completed is written after that node change.
func (d *tenantDecider) rebooted(r *reqState, name string) {
	reason, msg := dpuv1.ReasonRebooted, fmt.Sprintf("node %s rebooted", name)
	if cfg := r.status.CoalescedConfig; cfg != "" {
		reason, msg = dpuv1.ReasonCoalesced, fmt.Sprintf("node %s rebooted once and runs %s", name, cfg)
	}
	d.cond(r, dpuv1.ConditionRebooted, metav1.ConditionTrue, reason, msg)
	r.status.Phase = dpuv1.PhaseCompleted
	r.status.CompletedTime = d.now()
	if d.heldByOthers(name, r) {
		msg += "; other requests still hold it"
	} else {
		msg += "; released"
	}
	r.status.Message = msg
	d.byNode[name] = slices.DeleteFunc(d.byNode[name], func(x *reqState) bool { return x == r })
}

// release ends the holds no open admitted request keeps, and removes the
// taints no Taint request keeps.
func (d *tenantDecider) release() {
	for _, name := range sortedKeys(d.s.Nodes) {
		n := d.s.Nodes[name]
		if n.HasTaint && !slices.ContainsFunc(d.byNode[name], func(r *reqState) bool { return r.obj.Spec.Action == dpuv1.ActionTaint }) {
			d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeUntaint, Node: name,
				Why: fmt.Sprintf("DPU %s is back", orNone(n.Taint))})
		}
		if !n.HasHold || slices.ContainsFunc(d.byNode[name], (*reqState).admitted) {
			continue
		}
		if n.UpdateDrain || (updating(n.View) && !n.View.FailingState()) {
			// An update runs on the node (coalesced, handed over, or granted
			// meanwhile): the hold lasts until it is done, or the node would
			// be schedulable between the maintenance and the update's drain.
			continue
		}
		if cfg := d.handOver(name, n); cfg != "" {
			d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeGrant, Node: name, Config: cfg, ExpectDesired: n.View.Desired})
			continue
		}
		d.plan.Nodes = append(d.plan.Nodes, NodeAction{Kind: NodeRelease, Node: name, MakeSchedulable: n.HoldRecord != "true"})
	}
}

// handOver returns the config a held node that was drained in this hold
// should be updated to before its release: its pool's target, when the node
// has staged it. One drain then serves the maintenance and the update.
func (d *tenantDecider) handOver(name string, n TenantNode) string {
	pool, ok := d.s.Pools[n.Pool]
	v := n.View
	if !ok || pool.Target == "" || pool.Paused || !d.s.Drains[name].Succeeded || !v.Ready {
		return ""
	}
	if v.Current == pool.Target || v.Desired != v.Current || v.Staged != pool.Target || v.FailingState() || n.UpdateHeld != "" {
		return ""
	}
	return pool.Target
}

func (d *tenantDecider) result() TenantPlan {
	for _, r := range d.ordered {
		if equality.Semantic.DeepEqual(r.status, r.obj.Status) {
			continue // includes terminal requests nobody touched
		}
		r.status.ObservedGeneration = r.obj.Generation
		if equality.Semantic.DeepEqual(r.status, r.obj.Status) {
			continue
		}
		d.plan.Statuses = append(d.plan.Statuses, StatusUpdate{Name: r.obj.Name, UID: string(r.obj.UID), Status: r.status})
	}
	return d.plan
}

func (d *tenantDecider) now() *metav1.Time {
	t := metav1.NewTime(d.s.Now)
	return &t
}

// cond sets a condition; the transition time only moves when the status does.
func (d *tenantDecider) cond(r *reqState, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&r.status.Conditions, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: r.obj.Generation, LastTransitionTime: metav1.NewTime(d.s.Now),
	})
}

// RebootToken is the rebootRequest token of a Reboot request: unique per
// request object, so a new request is never mistaken for a served one.
func RebootToken(hm *dpuv1.HostMaintenance) string {
	return "hostmaintenance-" + string(hm.UID)
}

// updating: the daemon has a grant it has not finished (or failed on).
func updating(v node.NodeView) bool {
	return v.Desired != "" && v.Desired != v.Current
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
