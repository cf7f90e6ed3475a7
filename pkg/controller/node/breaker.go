package node

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Breaker is the pool's circuit breaker: after Threshold nodes fail on the
// target, the rollout stops. A bad update then costs K nodes, not the pool;
// and the nodes staged ahead (a locked OS that would never be right) are
// unstaged. An admin resumes by naming the target in resumeRollout.
//
// A node fails once its Degraded condition has held for Grace: a blip (a
// registry that answered late, a write retried) opens nothing and
// unstages nothing. A node whose stage of the target has failed for Grace
// (its stageFailure annotation) fails too, but only stops new grants.
type Breaker struct {
	Threshold int           // K: failed nodes that open the breaker (default 1)
	Grace     time.Duration // how long a node is Degraded before it counts as failed
	Failed    []string      // nodes failing on the target for Grace or longer
	Pending   []string      // nodes failing on the target for less than Grace
	Open      bool          // the rollout is halted
	Resumed   bool          // an admin let the target go on past the breaker
	Invalid   string        // why a setting was ignored, if one was
	// StageFailed are the nodes of Failed counted for a stage of the target
	// that has failed for Grace or longer (StageFailure.Since). They stop
	// new grants like any failed node, but an open breaker unstages nothing
	// for them: a stage that fails everywhere (a registry outage) says
	// nothing against the OS the other nodes staged.
	StageFailed []string
}

// DefaultFailedNodeGrace is the breaker's grace when the pool sets none
// (constants.FailedNodeGraceAnnotation).
const DefaultFailedNodeGrace = 5 * time.Minute

// NodeDegraded is the NodeDegraded condition of a node's MachineConfigNode:
// whether it is True, and since when (its lastTransitionTime).
type NodeDegraded struct {
	True  bool
	Since time.Time
}

// DegradedConditions are the NodeDegraded conditions by node name. A node
// without an entry has no MachineConfigNode; a nil map means the
// MachineConfigNodes are not read. Either way nothing tells since when the
// node fails, and a failing node counts at once.
type DegradedConditions map[string]NodeDegraded

// DegradedConditionsOf reads the NodeDegraded condition of each
// MachineConfigNode (named by spec.node, else by its own name, which the
// MCO makes the node's).
func DegradedConditionsOf(mcns []*mcfgv1.MachineConfigNode) DegradedConditions {
	out := make(DegradedConditions, len(mcns))
	for _, m := range mcns {
		name := m.Spec.Node.Name
		if name == "" {
			name = m.Name
		}
		var d NodeDegraded
		if c := meta.FindStatusCondition(m.Status.Conditions, string(mcfgv1.MachineConfigNodeNodeDegraded)); c != nil {
			d = NodeDegraded{True: c.Status == metav1.ConditionTrue, Since: c.LastTransitionTime.Time}
		}
		out[name] = d
	}
	return out
}

// EvaluateBreaker looks at the pool's nodes at now. A node granted the
// target and not running it yet fails on the target once its
// MachineConfigNode's NodeDegraded condition has been True for the pool's
// grace (the daemon keeps it True while it retries a failing step; the
// node's state annotation flips to Working at each retry). A node whose
// daemon reports Degraded or Unreconcilable (the MCO's IsNodeMCDFailing)
// while its MachineConfigNode does not show it yet is pending; one without
// a MachineConfigNode counts at once (nothing tells since when it fails).
func EvaluateBreaker(pool PoolView, nodes []NodeView, degraded DegradedConditions, now time.Time) Breaker {
	b := Breaker{Threshold: 1, Grace: DefaultFailedNodeGrace}
	var invalid []string
	if s, ok := pool.Annotations[constants.MaxFailedNodesAnnotation]; ok {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			invalid = append(invalid, fmt.Sprintf("%s=%q is not a positive integer; using 1", constants.MaxFailedNodesAnnotation, s))
		} else {
			b.Threshold = k
		}
	}
	if s, ok := pool.Annotations[constants.FailedNodeGraceAnnotation]; ok {
		g, err := time.ParseDuration(s)
		if err != nil || g < 0 {
			invalid = append(invalid, fmt.Sprintf("%s=%q is not a duration of 0 or more (like 5m or 90s); using %s",
				constants.FailedNodeGraceAnnotation, s, DefaultFailedNodeGrace))
		} else {
			b.Grace = g
		}
	}
	b.Invalid = strings.Join(invalid, "; ")
	for _, n := range nodes {
		if n.Desired != pool.Target || n.Current == n.Desired {
			continue
		}
		d, known := degraded[n.Name]
		switch {
		case !known && n.failing(), known && d.True && now.Sub(d.Since) >= b.Grace:
			b.Failed = append(b.Failed, n.Name)
		case known && d.True, n.failing():
			b.Pending = append(b.Pending, n.Name)
		}
	}
	for _, n := range nodes {
		// A stage failure holds no grant and makes no node unavailable; it
		// counts here so that a cause failing every stage stops the grants
		// once it has lasted the grace, as a Degraded node would.
		if n.Current == pool.Target || !n.stageFailedFor(pool.Target) || n.StageFailureErr != "" ||
			now.Sub(n.StageFailed.Since) < b.Grace || slices.Contains(b.Failed, n.Name) {
			continue
		}
		b.Failed = append(b.Failed, n.Name)
		b.StageFailed = append(b.StageFailed, n.Name)
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

// unstages reports whether an open breaker withdraws the stages: only
// when the nodes Degraded on the target reach the limit by themselves.
func (b Breaker) unstages() bool { return len(b.Failed)-len(b.StageFailed) >= b.Threshold }

func (b Breaker) message(target string) string {
	effect := "the rollout is halted and staged nodes are unstaged"
	if !b.unstages() {
		effect = "the rollout is halted (staged nodes stay staged: failed stages say nothing against their OS)"
	}
	stages := ""
	if len(b.StageFailed) > 0 {
		stages = fmt.Sprintf(", %d of them failed to stage it (%s)", len(b.StageFailed), nodeList(b.StageFailed))
	}
	return fmt.Sprintf("%d node(s) failed on %s (%s)%s, the limit is %d: %s; "+
		"fix the cause, or set %s=%s on the pool to go on", len(b.Failed), target, nodeList(b.Failed), stages, b.Threshold,
		effect, constants.ResumeRolloutAnnotation, target)
}

// halt is the plan of an open breaker: nothing new is granted or staged,
// and, when Degraded nodes opened it (Breaker.unstages), nodes allowed to
// stage the target (but not granted it) lose that permission, so their
// daemons discard the staged OS.
func halt(r *Result, pool PoolView, nodes []NodeView, b Breaker) {
	msg := b.message(pool.Target)
	for _, n := range nodes {
		if n.Desired == pool.Target {
			continue // granted already: it finishes or fails on its own
		}
		if n.Current != pool.Target {
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: HoldCircuitBreaker, Message: msg})
		}
		if n.Stage != "" && b.unstages() {
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
	case len(b.Pending) > 0:
		c.Reason = "FailurePending"
		c.Message = fmt.Sprintf("%d node(s) Degraded on %s for less than %s (%s): counted as failed if it lasts",
			len(b.Pending), pool.Target, b.Grace, nodeList(b.Pending))
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
