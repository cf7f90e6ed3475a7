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
// MinCount observations, then judges their p99 once. And slow fsyncs come
// in bursts: on a recorded stage whose p99 was 15.5 ms, 11 single seconds
// had a p99 over 20 ms, and 9 windows of 200 fsyncs did
// (testdata/fixed-16mib-loaded.json). What the bench judges is the
// stage's own p99, so the law keeps the stage's budget of slow fsyncs (1%
// of those seen) and pays a window over target from it while it can
// (3 back-offs on that stage); a disk that stays slow drains it.
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
	// MaxBackoff is the smallest factor one back-off may apply (0.7: never
	// cut by more than 30% in one step). A deep cut on one slow window
	// makes the stage's time depend on luck; a clear overshoot is judged
	// early (EarlyShares) and cut again a second later.
	MaxBackoff float64
	// MinCount is how many observations a window needs before it is judged
	// (a sampler of means, without histograms, judges every sample), and
	// the stage's reserve starts with one such window's share.
	MinCount uint64
	// MaxSamples judges a window after this many samples even if it holds
	// fewer than MinCount observations (etcd writing little).
	MaxSamples int
	// CeilingHold is how many judgments after a back-off the limit may
	// grow no higher than the last limit that met the target. A disk with
	// a knee (latency fine up to a rate, then a cliff) would otherwise be
	// probed over the cliff at every recovery.
	CeilingHold int
	// EarlyShares: a window is judged before it is full when its excess of
	// slow observations passes both the stage's reserve and this many
	// windows' shares: a knee crossed (every second 5% slow) is backed off
	// from within a second, a burst of a few slow fsyncs waits for its
	// window.
	EarlyShares float64
	// GrowReserve is the stage's reserve of slow observations (see
	// State.reserve) a growth needs, in windows' shares (MinCount times
	// 1-Quantile: 2 fsyncs for a p99 over 200): a growth that overshoots is
	// paid from it, so a stage that has spent its reserve stays where it is
	// until good windows refill it.
	GrowReserve float64
	// ProbeReserve, in the same unit, lets the limit grow inside the dead
	// band too (a probe) when no ceiling is held. Where any staging lifts
	// etcd's p99 above LowWater*target (a target of 2x the idle p99 is
	// one), growth from under LowWater alone would leave the stage wherever
	// its first back-off put it. 0 disables probing.
	ProbeReserve float64
	// Min and Max bound the limit in the lever's unit. Min keeps staging
	// moving however loaded the disk is.
	Min, Max float64
}

// DefaultLaw returns the law used by the adaptive policies for a target.
func DefaultLaw(target time.Duration, lo, hi float64) Law {
	return Law{
		Target:       target,
		Quantile:     0.99,
		LowWater:     0.6,
		Increase:     1.25,
		Aim:          0.8,
		MaxBackoff:   0.7,
		MinCount:     200,
		MaxSamples:   5,
		CeilingHold:  10,
		EarlyShares:  2,
		GrowReserve:  3,
		ProbeReserve: 6,
		Min:          lo,
		Max:          hi,
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
	case l.GrowReserve < 0 || l.ProbeReserve < 0 || l.EarlyShares < 0:
		return fmt.Errorf("governor: earlyShares, growReserve and probeReserve must be >= 0, got %v, %v and %v", l.EarlyShares, l.GrowReserve, l.ProbeReserve)
	case l.MinCount < 1:
		return fmt.Errorf("governor: minCount must be >= 1, got %d", l.MinCount)
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
	// FloorBackoffs counts the back-offs the law wanted with the lever
	// already at its floor: windows the target was missed in with nothing
	// left to give (Outcome reports them).
	FloorBackoffs int
	// Judged tells what the last step did: "" (waiting for a fuller
	// window), "hold", "grow", "probe" (a growth in the dead band),
	// "back-off", "absorbed" (over target, paid from the stage's reserve).
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
//   - The sample joins the window and the stage's counts. The window is
//     judged when it holds MinCount observations or MaxSamples samples, or
//     at once when its excess over target passes both the reserve and
//     EarlyShares shares (a clear overshoot, a knee crossed).
//   - Over target, with a histogram: absorbed (hold) while the stage's
//     reserve of slow observations covers the window's excess once more.
//   - Over target otherwise: back off in proportion to the overshoot (limit *=
//     Aim*target/p99, at least by 10%, at most by MaxBackoff), and hold a
//     ceiling for CeilingHold judgments: the last limit that met the
//     target, or the limit in force if that one had met it (the overshoot
//     then came from elsewhere: another writer, not staging). Over target
//     at the floor, staging has nothing left to give: no ceiling is set,
//     so the limit climbs back as soon as the disk calms down.
//   - Between LowWater*target and target: hold.
//   - Between LowWater*target and target with a histogram: probe (grow)
//     when no ceiling is held and the reserve holds ProbeReserve shares.
//   - Under LowWater*target: grow by Increase, but not past a held
//     ceiling, and (with histograms) only while the reserve holds
//     GrowReserve shares.
func (l Law) Step(s State, x Sample) State {
	s.Judged = ""
	if !x.Valid {
		return s
	}
	h := x.Hist
	if h.Count == 0 {
		return l.judge(s, float64(x.P99), false, 0)
	}
	s.Seen += float64(h.Count)
	s.Slow += h.CountAbove(l.Target.Seconds())
	s.Window = s.Window.Add(h)
	s.WindowSamples++
	w := s.Window
	overspent := w.CountAbove(l.Target.Seconds()) - (1-l.Quantile)*float64(w.Count)
	if w.Count < l.MinCount && s.WindowSamples < l.MaxSamples && overspent <= max(s.reserve(l), l.EarlyShares*l.share()) {
		return s // wait for a fuller window, unless it is a clear overshoot already
	}
	q, _ := w.Quantile(l.Quantile)
	s.Window, s.WindowSamples = Histogram{}, 0
	return l.judge(s, q*float64(time.Second), true, overspent)
}

// share is one window's share of slow observations: MinCount*(1-Quantile).
func (l Law) share() float64 { return (1 - l.Quantile) * float64(l.MinCount) }

// reserve is how many more slow observations the stage may have and keep
// its p99 under the target: its budget (1-Quantile of what it has seen,
// plus one window's share as a start) less those already spent.
func (s State) reserve(l Law) float64 {
	return (1-l.Quantile)*s.Seen + l.share() - s.Slow
}

// judge decides on a window whose p99 is p99 (a mean's value without a
// histogram). With a histogram, overspent is how many more slow
// observations the window held than its own share: a window over target
// is absorbed while the stage's reserve could pay for another one like it,
// so that a burst of slow fsyncs inside one second (they come in bursts)
// moves nothing, while a disk that stays slow drains the reserve and is
// backed off from. A window under target never cuts, even with the
// reserve spent: the last cut worked, and good windows refill it.
func (l Law) judge(s State, p99 float64, hist bool, overspent float64) State {
	target := float64(l.Target)
	if s.HoldLeft > 0 {
		s.HoldLeft--
		if s.HoldLeft == 0 {
			s.Ceiling = 0
		}
	}
	reserve := s.reserve(l)
	switch {
	case hist && overspent > 0 && reserve < overspent, !hist && p99 > target:
		s.Judged = "back-off"
		if s.Limit <= l.Min {
			s.FloorBackoffs++
			return s
		}
		factor := math.Max(l.MaxBackoff, math.Min(0.9, l.Aim*target/p99))
		s.Ceiling = s.Limit
		if s.LastGood > 0 && s.LastGood < s.Limit {
			s.Ceiling = s.LastGood
		}
		s.HoldLeft = l.CeilingHold
		s.Limit = clamp(s.Limit*factor, l.Min, l.Max)
	case p99 > target:
		s.Judged = "absorbed"
	case p99 >= l.LowWater*target:
		s.LastGood = s.Limit
		s.Judged = "hold"
		if hist && s.HoldLeft == 0 && l.ProbeReserve > 0 && reserve >= l.ProbeReserve*l.share() {
			s.Judged = "probe"
			s.Limit = l.grow(s)
		}
	default:
		s.LastGood = s.Limit
		s.Judged = "hold"
		if !hist || reserve >= l.GrowReserve*l.share() {
			s.Judged = "grow"
			s.Limit = l.grow(s)
		}
	}
	return s
}

// grow is the limit after a growth step: Increase times it, not past a
// held ceiling.
func (l Law) grow(s State) float64 {
	next := s.Limit * l.Increase
	if s.Ceiling > 0 {
		next = math.Min(next, s.Ceiling)
	}
	return clamp(math.Max(next, s.Limit), l.Min, l.Max)
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}
