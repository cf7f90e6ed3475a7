package iso

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TargetSpec is a governor target as a user writes it after a governed
// policy's name (--io-policy=adaptive@3x, or the node's ioPolicy
// annotation): a multiple of the idle p99 the governor measures at the
// stage's start ("3x", at most TargetCeiling), or a latency ("5ms").
type TargetSpec struct {
	Multiple float64
	Latency  time.Duration
}

// ParseTargetSpec reads "3x" or "5ms".
func ParseTargetSpec(s string) (TargetSpec, error) {
	s = strings.TrimSpace(s)
	if m, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil || v <= 1 {
			return TargetSpec{}, fmt.Errorf("I/O governor target %q: want a multiple of the idle p99 above 1 (e.g. 2x) or a latency (e.g. 5ms)", s)
		}
		return TargetSpec{Multiple: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return TargetSpec{}, fmt.Errorf("I/O governor target %q: want a multiple of the idle p99 above 1 (e.g. 2x) or a latency (e.g. 5ms)", s)
	}
	return TargetSpec{Latency: d}, nil
}

func (t TargetSpec) String() string {
	if t.Latency > 0 {
		return t.Latency.String()
	}
	return strconv.FormatFloat(t.Multiple, 'g', -1, 64) + "x"
}

// apply makes the spec the options' target.
func (t TargetSpec) apply(o *Options) {
	if t.Latency > 0 {
		o.TargetP99, o.DiskTarget = t.Latency, t.Latency
		return
	}
	o.TargetP99, o.DiskTarget, o.TargetIdleMultiple = 0, 0, t.Multiple
}
