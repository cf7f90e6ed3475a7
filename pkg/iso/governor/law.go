// Package governor keeps etcd's WAL fsync p99 under a target while OS staging
// writes as fast as that target allows. It samples a latency (etcd's
// etcd_disk_wal_fsync_duration_seconds histogram, or the block device's
// latency from /proc/diskstats) every interval and moves one staging lever
// (a write limit, a per-BDI dirty limit, ...) with a pure control law
// (Step), so the law is testable on recorded latency series without a disk.
package governor

import (
	"fmt"
	"math"
	"time"
)

// Law configures the control law. The zero value is not usable; start from
// DefaultLaw.
//
// The law judges windows, not single samples. etcd's histogram counts a
// few hundred fsyncs a second at most, so the p99 of one second is its
// second or third slowest fsync, rounded into a bucket that doubles: a
// law that moved on each second would chase that noise (the law before
// issue 25 did, and sank to its floor in some trials and not in others).
// The law sums the samples since its last judgment until they hold
// MinCount observations, then judges their p99 once. A window that has
// already spent its share of slow observations is judged at once: no later
// good sample can bring its p99 back under the target.
type Law struct {
	// Target is the p99 to stay under.
	Target time.Duration
	// Quantile is the share of observations that must stay under Target
	// (0.99: a p99); 1-Quantile is the budget of slow ones.
	Quantile float64
	// LowWater is the fraction of Target under which the limit may grow.
	// Between LowWater*Target and Target the limit holds: this dead band is
	// what stops the law from oscillating.
	LowWater float64
	// Increase is the factor by which the limit grows after a window under
	// LowWater*Target. Increase*LowWater < 1 guarantees that, on a disk
	// whose latency grows no faster than proportionally with the write
	// rate, a growth step never overshoots the target.
	Increase float64
	// Aim is where a back-off aims, as a fraction of Target: the limit is
	// cut by Aim*Target/p99 (at least by 10%, at most by MaxBackoff).
	Aim float64
	// MaxBackoff is the smallest factor one back-off may apply (0.5: never
	// cut below half in one step). A deep cut on one slow window makes the
	// stage's time depend on luck.
	MaxBackoff float64
	// MinCount is how many observations a window needs before it is judged
	// (a sampler of means, without histograms, judges every sample).
	MinCount uint64
	// MaxSamples judges a window after this many samples even if it holds
	// fewer than MinCount observations (etcd writing little).
	MaxSamples int
	// CeilingHold is how many judgments after a back-off the limit may
	// grow no higher than the last limit that met the target. A disk with
	// a knee (latency fine up to a rate, then a cliff) would otherwise be
	// probed over the cliff at every recovery.
	CeilingHold int
	// StageBudget: the limit grows only while the stage so far has spent
	// less than this fraction of its slow-observation budget (1-Quantile of
	// everything seen since the stage began), so that the stage's own p99
	// stays under the target, not only most windows'.
	StageBudget float64
	// Min and Max bound the limit in the lever's unit. Min keeps staging
	// moving however loaded the disk is.
	Min, Max float64
}

// DefaultLaw returns the law used by the adaptive policies for a target.
func DefaultLaw(target time.Duration, lo, hi float64) Law {
	return Law{
		Target:      target,
		Quantile:    0.99,
		LowWater:    0.6,
		Increase:    1.25,
		Aim:         0.8,
		MaxBackoff:  0.5,
		MinCount:    200,
		MaxSamples:  5,
		CeilingHold: 10,
		StageBudget: 0.5,
		Min:         lo,
		Max:         hi,
	}
}

// Validate reports a law that cannot work.
func (l Law) Validate() error {
	switch {
	case l.Target <= 0:
		return fmt.Errorf("governor: target must be > 0, got %v", l.Target)
	case l.Quantile <= 0.5 || l.Quantile >= 1:
		return fmt.Errorf("governor: quantile must be in (0.5,1), got %v", l.Quantile)
	case l.LowWater <= 0 || l.LowWater >= 1:
		return fmt.Errorf("governor: low water must be in (0,1), got %v", l.LowWater)
	case l.Increase <= 1:
		return fmt.Errorf("governor: increase must be > 1, got %v", l.Increase)
	case l.Increase*l.LowWater >= 1:
		return fmt.Errorf("governor: increase*lowWater = %v must be < 1, or a growth step can overshoot the target", l.Increase*l.LowWater)
	case l.Aim <= 0 || l.Aim > 1:
		return fmt.Errorf("governor: aim must be in (0,1], got %v", l.Aim)
	case l.MaxBackoff <= 0 || l.MaxBackoff >= 1:
		return fmt.Errorf("governor: maxBackoff must be in (0,1), got %v", l.MaxBackoff)
	case l.MaxSamples < 1:
		return fmt.Errorf("governor: maxSamples must be >= 1, got %d", l.MaxSamples)
	case l.StageBudget <= 0 || l.StageBudget > 1:
		return fmt.Errorf("governor: stageBudget must be in (0,1], got %v", l.StageBudget)
	case l.Min <= 0 || l.Max < l.Min:
		return fmt.Errorf("governor: need 0 < min <= max, got min=%v max=%v", l.Min, l.Max)
	}
	return nil
}

// State is everything the law remembers between samples.
type State struct {
	// Limit is the lever's value now in force.
	Limit float64
	// Ceiling caps growth while HoldLeft > 0; 0 when none is held.
	Ceiling float64
	// HoldLeft counts the judgments the ceiling is still held.
	HoldLeft int
	// LastGood is the last limit whose window met the target.
	LastGood float64
	// Window sums the histograms sampled since the last judgment, over
	// WindowSamples samples.
	Window        Histogram
	WindowSamples int
	// Seen and Slow count the stage's observations so far, and those over
	// the target.
	Seen, Slow float64
	// Judged tells what the last step did: "" (waiting for a fuller
	// window), "hold", "grow", "back-off".
	Judged string
}

// Sample is one measurement of the latency the law controls.
type Sample struct {
	P99 time.Duration
	// Valid is false when the interval held no observation (etcd wrote
	// nothing, or the scrape failed): the law then holds.
	Valid bool
	// Hist holds the interval's observations when the sampler has them
	// (etcd's histogram); zero for a sampler of means (the disk's), whose
	// P99 is then the interval's mean and counts as one observation.
	Hist Histogram
}

// Initial returns the state to start from: staging starts at start
// (clamped to the law's bounds) and climbs from there.
func (l Law) Initial(start float64) State {
	return State{Limit: clamp(start, l.Min, l.Max)}
}

// Step is the control law: given the state and the latency measured while
// that state's limit was in force, it returns the next state.
//
//   - The sample joins the window. The window is judged when it holds
//     MinCount observations or MaxSamples samples, or at once when its slow
//     observations already exceed 1-Quantile of max(its count, MinCount).
//   - Over target: back off in proportion to the overshoot (limit *=
//     Aim*target/p99, at least by 10%, at most by MaxBackoff), and hold a
//     ceiling for CeilingHold judgments: the last limit that met the
//     target, or the limit in force if that one had met it (the overshoot
//     then came from elsewhere: another writer, not staging). Over target
//     at the floor, staging has nothing left to give: no ceiling is set,
//     so the limit climbs back as soon as the disk calms down.
//   - Between LowWater*target and target: hold.
//   - Under LowWater*target: grow by Increase, but not past a held
//     ceiling, and (with histograms) not while the stage has spent
//     StageBudget of its budget of slow observations.
func (l Law) Step(s State, x Sample) State {
	s.Judged = ""
	if !x.Valid {
		return s
	}
	target := float64(l.Target)
	h := x.Hist
	if h.Count > 0 {
		s.Seen += float64(h.Count)
		s.Slow += h.CountAbove(l.Target.Seconds())
	} else {
		// A mean: one observation, judged alone.
		s.Seen++
		if float64(x.P99) > target {
			s.Slow++
		}
	}
	s.Window = s.Window.Add(h)
	s.WindowSamples++
	budget := 1 - l.Quantile
	var p99 float64
	switch w := s.Window; {
	case w.Count == 0:
		p99 = float64(x.P99)
	case w.CountAbove(l.Target.Seconds()) > budget*float64(max(w.Count, l.MinCount)):
		q, _ := w.Quantile(l.Quantile)
		p99 = q * float64(time.Second)
	case w.Count >= l.MinCount || s.WindowSamples >= l.MaxSamples:
		q, _ := w.Quantile(l.Quantile)
		p99 = q * float64(time.Second)
	default:
		return s // wait for a fuller window
	}
	s.Window, s.WindowSamples = Histogram{}, 0
	if s.HoldLeft > 0 {
		s.HoldLeft--
		if s.HoldLeft == 0 {
			s.Ceiling = 0
		}
	}
	switch {
	case p99 > target:
		s.Judged = "back-off"
		if s.Limit <= l.Min {
			return s
		}
		factor := math.Max(l.MaxBackoff, math.Min(0.9, l.Aim*target/p99))
		s.Ceiling = s.Limit
		if s.LastGood > 0 && s.LastGood < s.Limit {
			s.Ceiling = s.LastGood
		}
		s.HoldLeft = l.CeilingHold
		s.Limit = clamp(s.Limit*factor, l.Min, l.Max)
	case p99 >= l.LowWater*target:
		s.Judged = "hold"
		s.LastGood = s.Limit
	default:
		s.LastGood = s.Limit
		if h.Count > 0 && s.Slow > l.StageBudget*budget*s.Seen {
			s.Judged = "hold"
			return s
		}
		s.Judged = "grow"
		next := s.Limit * l.Increase
		if s.Ceiling > 0 {
			next = math.Min(next, s.Ceiling)
		}
		s.Limit = clamp(math.Max(next, s.Limit), l.Min, l.Max)
	}
	return s
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}
