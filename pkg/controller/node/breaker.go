package node

import (
	"fmt"
	"strconv"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Breaker is the pool's circuit breaker: after Threshold nodes fail on the
// target, the rollout stops. A bad update then costs K nodes, not the pool;
// and the nodes staged ahead (a locked OS that would never be right) are
// unstaged. An admin resumes by naming the target in resumeRollout.
type Breaker struct {
	Threshold int      // K: failed nodes that open the breaker (default 1)
	Failed    []string // nodes failing on the target
	Open      bool     // the rollout is halted
	Resumed   bool     // an admin let the target go on past the breaker
	Invalid   string   // why the threshold annotation was ignored, if it was
}

// EvaluateBreaker looks at the pool's nodes: a node fails on the target when
// it was granted the target and its daemon reports Degraded or
// Unreconcilable (the MCO's IsNodeMCDFailing on the target).
func EvaluateBreaker(pool PoolView, nodes []NodeView) Breaker {
	b := Breaker{Threshold: 1}
	if s, ok := pool.Annotations[constants.MaxFailedNodesAnnotation]; ok {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			b.Invalid = fmt.Sprintf("%s=%q is not a positive integer; using 1", constants.MaxFailedNodesAnnotation, s)
		} else {
			b.Threshold = k
		}
	}
	for _, n := range nodes {
		if n.Desired == pool.Target && n.failing() {
			b.Failed = append(b.Failed, n.Name)
		}
	}
	if len(b.Failed) >= b.Threshold {
		if pool.Annotations[constants.ResumeRolloutAnnotation] == pool.Target {
			b.Resumed = true
		} else {
			b.Open = true
		}
	}
	return b
}

func (b Breaker) message(target string) string {
	return fmt.Sprintf("%d node(s) failed on %s (%s), the limit is %d: the rollout is halted and staged nodes are unstaged; "+
		"fix the cause, or set %s=%s on the pool to go on", len(b.Failed), target, nodeList(b.Failed), b.Threshold,
		constants.ResumeRolloutAnnotation, target)
}

// halt is the plan of an open breaker: nothing new is granted or staged,
// and nodes allowed to stage the target (but not granted it) lose that
// permission, so their daemons discard the staged OS.
func halt(r *Result, pool PoolView, nodes []NodeView, b Breaker) {
	msg := b.message(pool.Target)
	for _, n := range nodes {
		if n.Desired == pool.Target {
			continue // granted already: it finishes or fails on its own
		}
		if n.Current != pool.Target {
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: HoldCircuitBreaker, Message: msg})
		}
		if n.Stage != "" {
			r.Unstage = append(r.Unstage, n.Name)
		}
	}
}

// setRolloutHalted reports the breaker in the RolloutHalted condition and
// announces its transitions.
func setRolloutHalted(status *mcfgv1.MachineConfigPoolStatus, prev mcfgv1.MachineConfigPoolStatus, pool PoolView, b Breaker, now time.Time) []Event {
	c := mcfgv1.MachineConfigPoolCondition{Type: constants.PoolRolloutHaltedCondition, Status: corev1.ConditionFalse,
		LastTransitionTime: metav1.NewTime(now)}
	switch {
	case b.Open:
		c.Status, c.Reason, c.Message = corev1.ConditionTrue, "TooManyFailedNodes", b.message(pool.Target)
	case b.Resumed:
		c.Reason = "Resumed"
		c.Message = fmt.Sprintf("resumed past the circuit breaker by %s=%s with %d failed node(s) (%s)",
			constants.ResumeRolloutAnnotation, pool.Target, len(b.Failed), nodeList(b.Failed))
	}
	setCondition(status, c)
	var events []Event
	if b.Invalid != "" {
		events = append(events, warning(EventInvalidSetting, b.Invalid))
	}
	was := conditionTrue(prev.Conditions, constants.PoolRolloutHaltedCondition)
	switch {
	case b.Open && !was:
		events = append(events, warning(EventRolloutHalted, c.Message))
	case !b.Open && was:
		events = append(events, normal(EventRolloutResumed, "Rollout no longer halted: "+nonEmpty(c.Message, "no node fails on the target any more")))
	}
	return events
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
