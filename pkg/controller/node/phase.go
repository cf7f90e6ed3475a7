package node

import (
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

// Phase is where a node stands in a pool's rollout, for metrics and logs.
type Phase string

// Rollout phases, in order.
const (
	PhaseUpdated  Phase = "Updated"  // done at the target
	PhaseDegraded Phase = "Degraded" // the daemon failed
	PhaseUpdating Phase = "Updating" // granted, not done
	PhaseStaged   Phase = "Staged"   // staged and locked, waiting for a grant
	PhaseStaging  Phase = "Staging"  // allowed to stage, not staged yet
	PhasePending  Phase = "Pending"  // needs the target, not allowed to stage yet
)

// Phases lists every phase, so metrics report zeros too.
var Phases = []Phase{PhaseUpdated, PhaseDegraded, PhaseUpdating, PhaseStaged, PhaseStaging, PhasePending}

// PhaseOf places a node in the rollout to target.
func PhaseOf(n NodeView, target string) Phase {
	switch {
	case n.updated(target):
		return PhaseUpdated
	case n.degraded():
		return PhaseDegraded
	case n.Desired == target:
		return PhaseUpdating
	case n.Staged == target:
		return PhaseStaged
	case n.Stage == target:
		return PhaseStaging
	}
	return PhasePending
}

// UpdateFinished reports whether the pool just finished an update (Updating
// True -> Updated True) and how long it ran.
func UpdateFinished(prev, next mcfgv1.MachineConfigPoolStatus, now time.Time) (time.Duration, bool) {
	was := FindCondition(prev.Conditions, mcfgv1.MachineConfigPoolUpdating)
	done := FindCondition(next.Conditions, mcfgv1.MachineConfigPoolUpdated)
	if was == nil || was.Status != corev1.ConditionTrue || done == nil || done.Status != corev1.ConditionTrue {
		return 0, false
	}
	return now.Sub(was.LastTransitionTime.Time), true
}

// UpdatingFor reports how long the pool has been updating (0 if it is not).
func UpdatingFor(s mcfgv1.MachineConfigPoolStatus, now time.Time) time.Duration {
	c := FindCondition(s.Conditions, mcfgv1.MachineConfigPoolUpdating)
	if c == nil || c.Status != corev1.ConditionTrue {
		return 0
	}
	return now.Sub(c.LastTransitionTime.Time)
}
