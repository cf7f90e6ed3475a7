// Package governor keeps etcd's WAL fsync p99 under a target while OS staging
// writes as fast as that target allows. It samples a latency (etcd's
// etcd_disk_wal_fsync_duration_seconds histogram, or the block device's
// latency from /proc/diskstats) every interval and moves one staging lever
// (a write limit, a per-BDI dirty limit, ...) with a pure control law
// (Step), so the law is testable on synthetic latency series without a
// disk.
package governor

import (
	"fmt"
	"math"
	"time"
)

// Law configures the control law. The zero value is not usable; start from
// DefaultLaw.
type Law struct {
	// Target is the p99 to stay under.
	Target time.Duration
	// LowWater is the fraction of Target under which the limit may grow.
	// Between LowWater*Target and Target the limit holds: this dead band is
	// what stops the law from oscillating.
	LowWater float64
	// Increase is the factor by which the limit grows after RecoverAfter
	// good samples. Increase*LowWater < 1 guarantees that, on a disk whose
	// latency grows no faster than proportionally with the write rate, a
	// growth step never overshoots the target.
	Increase float64
	// RecoverAfter is how many consecutive samples under LowWater*Target
	// are needed before each increase.
	RecoverAfter int
	// MaxBackoff is the smallest factor one back-off may apply (e.g. 0.25:
	// never cut below a quarter in one step).
	MaxBackoff float64
	// CeilingHold is how many samples after a back-off the limit may grow
	// no higher than the last limit that met the target. A disk with a
	// knee (latency fine up to a rate, then a cliff) would otherwise be
	// probed over the cliff at every recovery.
	CeilingHold int
	// Min and Max bound the limit in bytes per second. Min keeps staging
	// moving however loaded the disk is.
	Min, Max float64
}

// DefaultLaw returns the law used by the adaptive policy for a target p99.
func DefaultLaw(target time.Duration, minBps, maxBps float64) Law {
	return Law{
		Target:       target,
		LowWater:     0.6,
		Increase:     1.25,
		RecoverAfter: 2,
		MaxBackoff:   0.25,
		CeilingHold:  30,
		Min:          minBps,
		Max:          maxBps,
	}
}

// Validate reports a law that cannot work.
func (l Law) Validate() error {
	switch {
	case l.Target <= 0:
		return fmt.Errorf("governor: target must be > 0, got %v", l.Target)
	case l.LowWater <= 0 || l.LowWater >= 1:
		return fmt.Errorf("governor: low water must be in (0,1), got %v", l.LowWater)
	case l.Increase <= 1:
		return fmt.Errorf("governor: increase must be > 1, got %v", l.Increase)
	case l.Increase*l.LowWater >= 1:
		return fmt.Errorf("governor: increase*lowWater = %v must be < 1, or a growth step can overshoot the target", l.Increase*l.LowWater)
	case l.RecoverAfter < 1:
		return fmt.Errorf("governor: recoverAfter must be >= 1, got %d", l.RecoverAfter)
	case l.MaxBackoff <= 0 || l.MaxBackoff >= 1:
		return fmt.Errorf("governor: maxBackoff must be in (0,1), got %v", l.MaxBackoff)
	case l.Min <= 0 || l.Max < l.Min:
		return fmt.Errorf("governor: need 0 < min <= max, got min=%v max=%v", l.Min, l.Max)
	}
	return nil
}

// State is everything the law remembers between samples.
type State struct {
	// Limit is the write limit in bytes per second now in force.
	Limit float64
	// Ceiling caps growth while HoldLeft > 0; 0 when none is held.
	Ceiling float64
	// HoldLeft counts the samples the ceiling is still held.
	HoldLeft int
	// Good counts consecutive samples under the low water mark.
	Good int
	// LastGood is the last limit whose sample met the target.
	LastGood float64
}

// Sample is one measurement of the latency the law controls.
type Sample struct {
	P99 time.Duration
	// Valid is false when the interval held no observation (etcd wrote
	// nothing, or the scrape failed): the law then holds.
	Valid bool
}

// Initial returns the state to start from: staging starts at start
// (clamped to the law's bounds) and climbs from there.
func (l Law) Initial(start float64) State {
	return State{Limit: clamp(start, l.Min, l.Max)}
}

// Step is the control law: given the state and the latency measured while
// that state's limit was in force, it returns the next state.
//
//   - Over target: back off at once, in proportion to the overshoot
//     (limit *= 0.9*target/p99, at most by MaxBackoff), and hold a ceiling
//     for CeilingHold samples: the last limit that met the target, or the
//     limit in force if that one had met it (the overshoot then came from
//     elsewhere: another writer, not staging). Over target at the floor,
//     staging has nothing left to give: no ceiling is set, so the limit
//     climbs back as soon as the disk calms down.
//   - Between LowWater*target and target: hold.
//   - Under LowWater*target for RecoverAfter samples in a row: grow by
//     Increase, but not past the ceiling while it is held.
func (l Law) Step(s State, x Sample) State {
	if !x.Valid {
		return s
	}
	if s.HoldLeft > 0 {
		s.HoldLeft--
		if s.HoldLeft == 0 {
			s.Ceiling = 0
		}
	}
	p99 := float64(x.P99)
	target := float64(l.Target)
	switch {
	case p99 > target:
		s.Good = 0
		if s.Limit <= l.Min {
			return s
		}
		factor := math.Max(l.MaxBackoff, math.Min(0.9, 0.9*target/p99))
		s.Ceiling = s.Limit
		if s.LastGood > 0 && s.LastGood < s.Limit {
			s.Ceiling = s.LastGood
		}
		s.HoldLeft = l.CeilingHold
		s.Limit = clamp(s.Limit*factor, l.Min, l.Max)
		s.Good = 0
	case p99 >= l.LowWater*target:
		s.Good = 0
		s.LastGood = s.Limit
	default:
		s.LastGood = s.Limit
		s.Good++
		if s.Good < l.RecoverAfter {
			return s
		}
		s.Good = 0
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
