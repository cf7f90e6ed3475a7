package governor

import (
	"context"
	"fmt"
	"time"
)

// TargetRule decides the governor's target when a stage starts: an absolute
// latency, or a multiple of the latency measured just before the stage
// (etcd's WAL fsync p99 with nothing staging), never above a ceiling. A
// relative target asks "do not let etcd feel the stage" on any disk: 2x a
// 1 ms idle p99 is 2 ms, where an absolute 10 ms would allow 10x.
type TargetRule struct {
	// Absolute, when > 0, is the target whatever the idle latency.
	Absolute time.Duration
	// Multiple of the idle latency, > 1.
	Multiple float64
	// Ceiling caps a relative target (etcd's own guidance is a WAL fsync
	// p99 under 10 ms), and is the target when no idle latency could be
	// measured.
	Ceiling time.Duration
	// Resolution is the smallest latency the signal tells apart: an idle
	// latency below it counts as it. etcd's histogram puts every fsync
	// under 1 ms in one bucket, so an idle p99 "under 1 ms" is 1 ms.
	Resolution time.Duration
}

// Validate reports a rule that cannot give a target.
func (r TargetRule) Validate() error {
	if r.Absolute > 0 {
		return nil
	}
	switch {
	case r.Multiple <= 1:
		return fmt.Errorf("governor: a relative target needs a multiple of the idle latency > 1, got %v", r.Multiple)
	case r.Ceiling <= 0:
		return fmt.Errorf("governor: a relative target needs a ceiling > 0, got %v", r.Ceiling)
	}
	return nil
}

// Resolve returns the target for an idle latency (ok false: none measured).
func (r TargetRule) Resolve(idle time.Duration, ok bool) time.Duration {
	if r.Absolute > 0 {
		return r.Absolute
	}
	if !ok {
		return r.Ceiling
	}
	idle = max(idle, r.Resolution)
	return min(r.Ceiling, time.Duration(r.Multiple*float64(idle)))
}

// String describes the rule for logs and reports.
func (r TargetRule) String() string {
	if r.Absolute > 0 {
		return r.Absolute.String()
	}
	return fmt.Sprintf("%gx the idle p99 at the stage's start, at most %v", r.Multiple, r.Ceiling)
}

// Idle is the latency measured before a stage.
type Idle struct {
	Latency time.Duration
	// Observations behind it (intervals, for a sampler of means).
	Observations uint64
	OK           bool
}

// MeasureIdle samples n intervals with nothing staging and returns the p99
// over all of them (the histograms summed), or, for a sampler without
// histograms, the mean of its valid samples. It primes the sampler first,
// so the governor can start from it at once.
func MeasureIdle(ctx context.Context, s Sampler, interval time.Duration, n int) (Idle, error) {
	if _, err := s.Sample(ctx); err != nil {
		return Idle{}, fmt.Errorf("governor: measure the idle latency: %w", err)
	}
	var total Histogram
	var sum time.Duration
	var valid uint64
	t := time.NewTicker(interval)
	defer t.Stop()
	for range n {
		select {
		case <-ctx.Done():
			return Idle{}, ctx.Err()
		case <-t.C:
		}
		x, err := s.Sample(ctx)
		if err != nil {
			return Idle{}, fmt.Errorf("governor: measure the idle latency: %w", err)
		}
		if !x.Valid {
			continue
		}
		total = total.Add(x.Hist)
		sum += x.P99
		valid++
	}
	return idleOf(total, sum, valid), nil
}

// idleOf is MeasureIdle's arithmetic: p99 of the summed histogram when the
// sampler gave histograms, else the mean of the valid samples.
func idleOf(total Histogram, sum time.Duration, valid uint64) Idle {
	if total.Count > 0 {
		q, _ := total.Quantile(0.99)
		return Idle{Latency: time.Duration(q * float64(time.Second)), Observations: total.Count, OK: true}
	}
	if valid == 0 {
		return Idle{}
	}
	return Idle{Latency: sum / time.Duration(valid), Observations: valid, OK: true}
}
