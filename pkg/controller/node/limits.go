package node

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxUnavailable turns a pool's maxUnavailable into a node count the way the
// MCO's maxUnavailable does: nil means 1, a percent of total rounds down, and
// the result is never below 1 (a pool always makes progress).
func MaxUnavailable(v *intstr.IntOrString, total int) (int, error) {
	val := intstr.FromInt32(1)
	if v != nil {
		val = *v
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&val, total, false)
	if err != nil {
		return 0, fmt.Errorf("maxUnavailable %q: %w", val.String(), err)
	}
	return max(n, 1), nil
}

// StageConcurrency turns a pool's stage concurrency into a node count: nil
// means no bound (every node stages at once), a percent of total rounds up
// (staging is not disruptive, so round generously), never below 1.
func StageConcurrency(v *intstr.IntOrString, total int) (int, error) {
	if v == nil {
		return max(total, 1), nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0, fmt.Errorf("stage concurrency %q: %w", v.String(), err)
	}
	return max(n, 1), nil
}
