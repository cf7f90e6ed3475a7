package node

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// PoolStagesFailedCondition is True while a node of the pool reports a
// failed stage (constants.StageFailureAnnotation). Such nodes are not
// Degraded and keep serving; the condition is how a person learns that
// a pool's rollout is blocked on, say, a registry. (It belongs with
// tandem's other condition types in pkg/constants.)
const PoolStagesFailedCondition mcfgv1.MachineConfigPoolConditionType = "StagesFailed"

// stageFailures groups the nodes whose stage failed by the config they
// failed to stage ("" for an annotation that does not parse), each group
// sorted by node name.
func stageFailures(nodes []NodeView) map[string][]NodeView {
	out := map[string][]NodeView{}
	for _, n := range nodes {
		if n.StageFailure == "" {
			continue
		}
		cfg := n.StageFailed.Config
		if n.StageFailureErr != "" {
			cfg = ""
		}
		out[cfg] = append(out[cfg], n)
	}
	for _, ns := range out {
		slices.SortFunc(ns, func(a, b NodeView) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// StageFailedNodes counts the nodes that report a failed stage, of any
// config (tandem_mcc_pool_stage_failed_nodes).
func StageFailedNodes(nodes []NodeView) int {
	c := 0
	for _, n := range nodes {
		if n.StageFailure != "" {
			c++
		}
	}
	return c
}

// setStagesFailed reports the nodes whose stage failed in the StagesFailed
// condition and announces its transitions: StagesFailed when it becomes
// True, StagesRecovered when it goes back to False.
func setStagesFailed(status *mcfgv1.MachineConfigPoolStatus, prev mcfgv1.MachineConfigPoolStatus, nodes []NodeView, now time.Time) []Event {
	c := mcfgv1.MachineConfigPoolCondition{Type: PoolStagesFailedCondition, Status: corev1.ConditionFalse,
		Reason: "AsExpected", LastTransitionTime: metav1.NewTime(now)}
	byConfig := stageFailures(nodes)
	if len(byConfig) > 0 {
		var parts []string
		for _, cfg := range slices.Sorted(maps.Keys(byConfig)) {
			ns := byConfig[cfg]
			names := make([]string, 0, len(ns))
			for _, n := range ns {
				names = append(names, n.Name)
			}
			if cfg == "" {
				parts = append(parts, fmt.Sprintf("%d of %d nodes have a %s annotation that does not parse: %s (%s)",
					len(ns), len(nodes), constants.StageFailureAnnotation, truncate(ns[0].StageFailureErr, maxReasonLen), nodeList(names)))
				continue
			}
			parts = append(parts, fmt.Sprintf("%d of %d nodes failed to stage %s: %s (%s)",
				len(ns), len(nodes), cfg, truncate(ns[0].StageFailed.Reason, maxReasonLen), nodeList(names)))
		}
		c.Status, c.Reason, c.Message = corev1.ConditionTrue, "StageFailed", strings.Join(parts, "; ")
	}
	setCondition(status, c)
	was := conditionTrue(prev.Conditions, PoolStagesFailedCondition)
	switch is := c.Status == corev1.ConditionTrue; {
	case is && !was:
		return []Event{warning(EventStagesFailed, c.Message+"; the nodes keep serving and are not granted the config until a stage succeeds")}
	case !is && was:
		return []Event{normal(EventStagesRecovered, "No node of the pool reports a failed stage any more")}
	}
	return nil
}
