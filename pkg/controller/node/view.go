package node

import (
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// NodeView is what the planner knows of one node: the node protocol's
// annotations and the scheduling facts the MCO looks at.
type NodeView struct {
	Name    string
	Labels  map[string]string
	Zone    string // topology.kubernetes.io/zone, when HasZone
	HasZone bool
	Created time.Time

	Current string // currentConfig (daemon)
	Desired string // desiredConfig (controller: you may disrupt)
	Stage   string // stageConfig (controller: you may stage)
	Staged  string // stagedConfig (daemon: staged and finalization-locked)
	State   string // Working, Done, Degraded, Unreconcilable
	Reason  string
	// Hold is the node's disruptionHold annotation (a person's reason), "" if none.
	Hold string
	// DesiredDrain is the daemon's drain request (drain-<config> once it
	// has started to disrupt the node for config).
	DesiredDrain string
	// StageFailure is the daemon's stageFailure annotation as written
	// (kept verbatim: a revocation tests it), "" if none; StageFailed is
	// its value and StageFailureErr why it does not parse.
	StageFailure    string
	StageFailed     constants.StageFailure
	StageFailureErr string

	// Addresses are the node's InternalIP, ExternalIP and Hostname
	// addresses (to find its etcd member by URL).
	Addresses []string

	// Ready is the MCO's readiness: Ready=True, DiskPressure=False and
	// NetworkUnavailable=False (absent conditions do not count against it).
	Ready         bool
	Unschedulable bool

	// UpdateOrder is the admin's order (constants.UpdateOrderAnnotation)
	// when HasUpdateOrder: higher first, 0 never. Without the annotation
	// the node's order is DefaultUpdateOrder (see order), so a NodeView
	// built without these fields is an ordinary node. UpdateOrderErr says
	// why the annotation does not parse.
	UpdateOrder    int
	HasUpdateOrder bool
	UpdateOrderErr string
}

// order is the node's place in the admin's order: higher goes first.
func (n NodeView) order() int {
	if n.HasUpdateOrder {
		return n.UpdateOrder
	}
	return DefaultUpdateOrder
}

// keptOut reports a node the admin keeps out of updates (update-order 0).
func (n NodeView) keptOut() bool { return n.HasUpdateOrder && n.UpdateOrder == 0 }

// stageFailedFor reports whether the node's stage of cfg failed (and is
// being retried). A stageFailure that does not parse names no config; it
// counts as failed for every config, so a value nobody can read holds the
// node rather than being taken as "no failure".
func (n NodeView) stageFailedFor(cfg string) bool {
	return n.StageFailure != "" && (n.StageFailureErr != "" || n.StageFailed.Config == cfg)
}

// revocable reports whether the node holds a grant of target that it has
// not started on and whose stage failed: the daemon is not Working and has
// asked no drain for it (the same rule the daemon uses to keep the failure
// harmless). Giving such a grant back frees the node's maxUnavailable
// place for a node that can stage; the daemon keeps retrying the stage.
// A cordoned node keeps its grant: its place is taken by the cordon
// anyway, and whoever cordoned it may be waiting for that very update (a
// DPU HostMaintenance coalesces its host's reboot with the grant).
func (n NodeView) revocable(target string) bool {
	return !n.Unschedulable && n.Desired == target && n.Current != "" && n.Current != n.Desired && n.StageFailureErr == "" && n.StageFailure != "" &&
		n.StageFailed.Config == n.Desired && n.State != constants.MachineConfigDaemonStateWorking &&
		n.DesiredDrain != constants.DrainRequest(n.Desired)
}

// done is the MCO's IsNodeDone: current == desired (both set) and state Done.
func (n NodeView) done() bool {
	return n.Current != "" && n.Desired != "" && n.Current == n.Desired &&
		n.State == constants.MachineConfigDaemonStateDone
}

// schedulable is the MCO's IsNodeReady: ready and not cordoned.
func (n NodeView) schedulable() bool { return n.Ready && !n.Unschedulable }

// FailingState reports a daemon in a terminal failure state.
func (n NodeView) FailingState() bool {
	return n.State == constants.MachineConfigDaemonStateDegraded ||
		n.State == constants.MachineConfigDaemonStateUnreconcilable
}

// failing is the MCO's IsNodeMCDFailing: an update that did not apply.
func (n NodeView) failing() bool { return n.Current != n.Desired && n.FailingState() }

// Unavailable is the MCO's IsUnavailableForUpdate: a node that is not ready
// or cordoned, or whose daemon is working (or has not started) on a config
// change. Such a node may go down, so it counts against maxUnavailable. A
// failing daemon does not: the MCO may retarget it.
func (n NodeView) Unavailable() bool {
	if !n.schedulable() {
		return true
	}
	if n.done() {
		return false
	}
	return !n.failing()
}

// degraded is the MCO's getDegradedMachines rule.
func (n NodeView) degraded() bool { return n.Desired != "" && n.FailingState() }

// updated is the MCO's IsDone for a non-layered pool: done at target.
func (n NodeView) updated(target string) bool { return n.done() && n.Desired == target }

// PoolView is what the planner knows of a MachineConfigPool.
type PoolView struct {
	Name       string
	Generation int64
	// Target is spec.configuration.name, the rendered config to roll out.
	Target string
	// Configuration is spec.configuration, copied to status when all nodes are updated.
	Configuration  mcfgv1.MachineConfigPoolStatusConfiguration
	Paused         bool
	MaxUnavailable *intstr.IntOrString // nil: 1, like the MCO
	// StageConcurrency bounds how many nodes stage at once; nil: all.
	StageConcurrency *intstr.IntOrString
	// ControlPlane marks the pool whose nodes run etcd members. The pool named
	// master is always one; a pool whose nodes are etcd members is one too.
	ControlPlane bool
	// Annotations are the pool's annotations: maintenance windows, holds and
	// the circuit breaker's settings are read from them.
	Annotations map[string]string
	// NewestFirst reverses the MCO's age order within a zone (the pool's
	// update-order annotation); UpdateOrderErr says why that does not parse.
	NewestFirst    bool
	UpdateOrderErr string
	// Status is the pool's status as last reported; the planner keeps what it
	// does not own (RenderDegraded, certificate expiries) and transition times.
	Status mcfgv1.MachineConfigPoolStatus
}

// ViewOfNode extracts a NodeView from a Node.
func ViewOfNode(n *corev1.Node) NodeView {
	a := n.Annotations
	zone, hasZone := n.Labels[constants.ZoneLabel]
	v := NodeView{
		Name:          n.Name,
		Labels:        n.Labels,
		Zone:          zone,
		HasZone:       hasZone,
		Created:       n.CreationTimestamp.Time,
		Current:       a[constants.CurrentConfigAnnotation],
		Desired:       a[constants.DesiredConfigAnnotation],
		Stage:         a[constants.StageConfigAnnotation],
		Staged:        a[constants.StagedConfigAnnotation],
		State:         a[constants.StateAnnotation],
		Reason:        a[constants.ReasonAnnotation],
		Addresses:     nodeAddresses(n),
		Hold:          a[constants.DisruptionHoldAnnotation],
		DesiredDrain:  a[constants.DesiredDrainAnnotation],
		Ready:         NodeReady(n),
		Unschedulable: n.Spec.Unschedulable,
	}
	raw, ok := a[constants.UpdateOrderAnnotation]
	if order, err := ParseNodeUpdateOrder(raw, ok); err != nil {
		v.UpdateOrderErr = err.Error()
	} else {
		v.UpdateOrder, v.HasUpdateOrder = order, ok
	}
	if raw, ok := a[constants.StageFailureAnnotation]; ok {
		v.StageFailure = raw
		f, _, err := constants.ParseStageFailure(raw)
		v.StageFailed = f
		if err != nil {
			v.StageFailureErr = err.Error()
		} else if raw == "" {
			// Present but empty: nothing to read, and nothing failed.
			v.StageFailure = ""
		}
	}
	return v
}

func nodeAddresses(n *corev1.Node) []string {
	var out []string
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName:
			out = append(out, a.Address)
		}
	}
	return out
}

// NodeReady checks the conditions the MCO's CheckNodeReady checks.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		switch c.Type {
		case corev1.NodeReady:
			if c.Status != corev1.ConditionTrue {
				return false
			}
		case corev1.NodeDiskPressure, corev1.NodeNetworkUnavailable:
			if c.Status != corev1.ConditionFalse {
				return false
			}
		}
	}
	return true
}

// ViewOfPool extracts a PoolView from a MachineConfigPool.
func ViewOfPool(p *mcfgv1.MachineConfigPool) PoolView {
	v := PoolView{
		Name:           p.Name,
		Generation:     p.Generation,
		Target:         p.Spec.Configuration.Name,
		Configuration:  p.Spec.Configuration,
		Paused:         p.Spec.Paused,
		MaxUnavailable: p.Spec.MaxUnavailable,
		ControlPlane:   p.Name == constants.MasterPool,
		Annotations:    p.Annotations,
		Status:         *p.Status.DeepCopy(),
	}
	raw, ok := p.Annotations[constants.UpdateOrderAnnotation]
	newest, err := ParsePoolUpdateOrder(raw, ok)
	v.NewestFirst = newest
	if err != nil {
		v.UpdateOrderErr = err.Error()
	}
	if s, ok := p.Annotations[constants.StageConcurrencyAnnotation]; ok && s != "" {
		c := intstr.Parse(s)
		v.StageConcurrency = &c
	}
	return v
}
