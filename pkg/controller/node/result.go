package node

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

// Result is every decision of one Plan.
type Result struct {
	// Stage lists nodes to annotate stageConfig=Config (you may stage now).
	Stage []Assignment
	// Grant lists nodes to annotate desiredConfig=Config (you may disrupt now).
	Grant []Assignment
	// MoveLeader, when set, must be carried out before anything in a later
	// plan grants the leader's node. Plan never grants that node in the same
	// Result; the reconciler moves leadership and plans again.
	MoveLeader *LeaderMove
	// Holds lists nodes that want a grant and did not get one, and why.
	Holds []Hold
	// Status is the pool status to report; nil leaves it alone (the pool has
	// no target config yet).
	Status *mcfgv1.MachineConfigPoolStatus
	// Revocations lists grants given back: nodes granted the target whose
	// stage of it failed before they started (see NodeView.revocable). They
	// are written before any grant of the same plan, which counts their
	// places as free.
	Revocations []Revocation
	// Unstage lists nodes whose stageConfig is withdrawn (the circuit
	// breaker opened): their daemons discard the staged OS (cleanup -p).
	Unstage []string
	// Events to record on the pool.
	Events []Event
	// Breaker is the circuit breaker as this plan found it.
	Breaker Breaker

	// Figures for logs and metrics.
	MaxUnavailable int // after MCO rounding, at least 1
	Unavailable    int // nodes counting against MaxUnavailable before this plan
	Capacity       int // grants this plan could make before ordering and safety holds
}

// Assignment sets one node annotation to a rendered config.
type Assignment struct {
	Node   string
	Config string
}

// Revocation sets a node's desiredConfig from Config back to Current, on
// condition that desiredConfig, stageFailure and state still hold the
// values the plan saw (StageFailure and State verbatim; State "": no state
// annotation, which the daemon never writes empty): if the daemon moved on meanwhile (it started the
// update, or the stage succeeded), the write is refused and the next plan
// decides again.
type Revocation struct {
	Node         string
	Config       string // the desiredConfig given back
	Current      string // the node's currentConfig, its desiredConfig again
	StageFailure string // the stageFailure annotation, verbatim
	State        string
}

// LeaderMove moves etcd leadership from the member From to the member To.
type LeaderMove struct {
	// From and To are etcd member names (not node names).
	From string
	To   string
}

// HoldReason says why a node that wants a grant did not get one.
type HoldReason string

// Hold reasons. Safety holds (see Safety) are reported in the pool's
// DisruptionHeld condition; the others are the ordinary order of a rollout.
const (
	HoldMaxUnavailable     HoldReason = "MaxUnavailable"
	HoldInvalidMaxUnavail  HoldReason = "InvalidMaxUnavailable"
	HoldEtcdUnreachable    HoldReason = "EtcdUnreachable"
	HoldEtcdUnhealthy      HoldReason = "EtcdMemberUnhealthy"
	HoldEtcdQuorum         HoldReason = "EtcdQuorumBudget"
	HoldLeaderLast         HoldReason = "EtcdLeaderLast"
	HoldMoveLeaderPending  HoldReason = "EtcdMoveLeaderPending"
	HoldNoMoveLeaderTarget HoldReason = "EtcdNoMoveLeaderTarget"
	HoldEtcdMemberUnmapped HoldReason = "EtcdMemberWithoutNode"
	HoldGate               HoldReason = "DisruptionGate"
	HoldMaintenanceWindow  HoldReason = "MaintenanceWindow"
	HoldManual             HoldReason = "ManualHold"
	HoldBlockingPods       HoldReason = "BlockingPods"
	HoldFiringAlerts       HoldReason = "FiringAlerts"
	HoldCircuitBreaker     HoldReason = "CircuitBreakerOpen"
	// HoldInvalidSettings: the controller's settings (its ConfigMap) are
	// invalid, so it runs without them and disrupts nothing until they are
	// fixed.
	HoldInvalidSettings HoldReason = "InvalidSettings"
	// HoldOnClusterLayering: a MachineOSConfig selects the pool (on-cluster
	// layering, which tandem does not roll out); reported in the pool's
	// OnClusterLayeringRefused condition, not in DisruptionHeld.
	HoldOnClusterLayering HoldReason = "OnClusterLayering"
	// HoldStageFailed: the node's stage of the target failed (its
	// stageFailure annotation names it); it is not granted the target
	// while the daemon retries. Reported in the pool's StagesFailed
	// condition, not in DisruptionHeld: it holds one node, not the pool.
	HoldStageFailed HoldReason = "StageFailed"
	// HoldEtcdRevision: the etcd operator is rolling a new revision of its
	// static pods (it restarts the members one by one); the control-plane
	// pool's grants wait, so that no master reboots while a member
	// restarts (cluster-etcd-operator #1663).
	HoldEtcdRevision HoldReason = "EtcdRevisionRollout"
	// HoldUpdateOrder: the admin keeps the node out of updates (its
	// update-order is 0), or its update-order does not parse.
	HoldUpdateOrder HoldReason = "UpdateOrder"
	// HoldInvalidUpdateOrder: an update-order on the pool or on one of its
	// nodes does not parse; the whole pool waits for it to be fixed.
	HoldInvalidUpdateOrder HoldReason = "InvalidUpdateOrder"
)

// Safety reports whether the hold is for safety (something is wrong) rather
// than the ordinary order of a rollout.
func (r HoldReason) Safety() bool {
	switch r {
	case HoldInvalidMaxUnavail, HoldEtcdUnreachable, HoldEtcdUnhealthy, HoldNoMoveLeaderTarget, HoldGate,
		HoldMaintenanceWindow, HoldManual, HoldBlockingPods, HoldFiringAlerts, HoldCircuitBreaker, HoldInvalidSettings, HoldEtcdRevision,
		HoldUpdateOrder, HoldInvalidUpdateOrder:
		return true
	}
	return false
}

// Hold is one node held back.
type Hold struct {
	Node    string
	Reason  HoldReason
	Message string
}

// Event is one event to record on the pool.
type Event struct {
	Type    string // corev1.EventTypeNormal or corev1.EventTypeWarning
	Reason  string
	Message string
}

// Event reasons.
const (
	EventSetDesiredConfig = "SetDesiredConfig" // as the MCO names it
	EventSetStageConfig   = "SetStageConfig"
	EventMoveEtcdLeader   = "MoveEtcdLeader"
	EventDisruptionHeld   = "DisruptionHeld"
	EventDisruptionResume = "DisruptionResumed"
	EventInvalidSetting   = "InvalidSetting"
	EventRolloutHalted    = "RolloutHalted"
	EventRolloutResumed   = "RolloutResumed"
	// EventOnClusterLayeringRefused: a MachineOSConfig selects the pool.
	EventOnClusterLayeringRefused = "OnClusterLayeringRefused"
	// EventOnClusterLayeringCleared: no MachineOSConfig selects it any more.
	EventOnClusterLayeringCleared = "OnClusterLayeringCleared"
	// EventStagesFailed: the pool's StagesFailed condition became True.
	EventStagesFailed = "StagesFailed"
	// EventStagesRecovered: it went back to False.
	EventStagesRecovered = "StagesRecovered"
	// EventGrantRevoked: a grant was given back (one per Revocation).
	EventGrantRevoked = "GrantRevoked"
)

func normal(reason, msg string) Event {
	return Event{Type: corev1.EventTypeNormal, Reason: reason, Message: msg}
}
func warning(reason, msg string) Event {
	return Event{Type: corev1.EventTypeWarning, Reason: reason, Message: msg}
}
