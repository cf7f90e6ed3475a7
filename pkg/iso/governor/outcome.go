package governor

import (
	"fmt"
	"time"
)

// Outcome is what a stage's governor achieved, as a user reads it in the
// node's Staged condition: whether the stage's own p99 stayed under the
// target (the quantity make bench-io judges as "held"), and whether the
// lever ran out. A target missed at the lever's floor means the stage
// cannot be made quieter with this lever: a higher target stages faster
// for the same etcd latency (docs/benchmarks.md, the frontier).
type Outcome struct {
	Target time.Duration
	// Quantile is the law's (0.99).
	Quantile float64
	// Seen and Slow: etcd's observations during the stage, and those over
	// the target.
	Seen, Slow float64
	// FloorBackoffs counts windows over target with the lever at its floor.
	FloorBackoffs int
}

// Outcome reports the stage so far from the law's state.
func (l Law) Outcome(s State) Outcome {
	return Outcome{Target: l.Target, Quantile: l.Quantile, Seen: s.Seen, Slow: s.Slow, FloorBackoffs: s.FloorBackoffs}
}

// Known tells whether the stage held any observation (a sampler of means,
// without histograms, counts none: nothing is known of its quantile).
func (o Outcome) Known() bool { return o.Seen > 0 }

// Held tells whether the stage's p99 stayed under the target: at most
// 1-Quantile of its observations were slower.
func (o Outcome) Held() bool { return o.Slow <= (1-o.Quantile)*o.Seen }

// String is the outcome as the Staged condition shows it, e.g. "target
// held (0.4% of 12315 fsyncs over it)" or "target missed (2.3% of 12315
// fsyncs over it; 41 windows over it at the lever's floor)".
func (o Outcome) String() string {
	if !o.Known() {
		return "no fsyncs observed"
	}
	verdict := "held"
	if !o.Held() {
		verdict = "missed"
	}
	out := fmt.Sprintf("target %s (%.1f%% of %.0f fsyncs over it", verdict, 100*o.Slow/o.Seen, o.Seen)
	if o.FloorBackoffs > 0 {
		out += fmt.Sprintf("; %d windows over it at the lever's floor", o.FloorBackoffs)
	}
	return out + ")"
}
