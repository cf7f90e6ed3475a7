package governor

import (
	"math"
	"testing"
	"time"
)

const mib = 1 << 20

// plant is a synthetic disk: the p99 etcd sees when staging writes at bps.
type plant func(bps float64) time.Duration

// affine: base latency plus a share proportional to the write rate.
func affine(base time.Duration, perMiB time.Duration) plant {
	return func(bps float64) time.Duration {
		return base + time.Duration(bps/mib*float64(perMiB))
	}
}

// knee: flat up to a rate, then latency climbs steeply (a queue filling).
func knee(base time.Duration, kneeBps float64) plant {
	return func(bps float64) time.Duration {
		if bps <= kneeBps {
			return base
		}
		over := (bps - kneeBps) / mib
		return base + time.Duration(over*over*float64(time.Millisecond))
	}
}

// run drives the law against a plant that may change over time.
func run(l Law, start float64, steps int, p func(step int) plant) (limits []float64, lat []time.Duration) {
	s := l.Initial(start)
	for i := 0; i < steps; i++ {
		x := p(i)(s.Limit)
		lat = append(lat, x)
		s = l.Step(s, Sample{P99: x, Valid: true})
		limits = append(limits, s.Limit)
	}
	return limits, lat
}

func testLaw() Law { return DefaultLaw(10*time.Millisecond, 4*mib, 512*mib) }

func TestDefaultLawIsValid(t *testing.T) {
	if err := testLaw().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRejectsOvershootingGrowth(t *testing.T) {
	l := testLaw()
	l.Increase = 2 // 2*0.6 >= 1
	if err := l.Validate(); err == nil {
		t.Fatal("want an error for increase*lowWater >= 1")
	}
}

func TestBacksOffInProportionToOvershoot(t *testing.T) {
	l := testLaw()
	cases := []struct {
		p99       time.Duration
		wantLimit float64
	}{
		{12 * time.Millisecond, 100 * mib * 0.75},  // 0.9*10/12
		{30 * time.Millisecond, 100 * mib * 0.3},   // 0.9*10/30
		{400 * time.Millisecond, 100 * mib * 0.25}, // capped by MaxBackoff
		{10500 * time.Microsecond, 100 * mib * 0.9 * 10 / 10.5},
	}
	for _, c := range cases {
		s := l.Step(State{Limit: 100 * mib}, Sample{P99: c.p99, Valid: true})
		if math.Abs(s.Limit-c.wantLimit) > 1 {
			t.Errorf("p99=%v: limit %.0f, want %.0f", c.p99, s.Limit, c.wantLimit)
		}
		if s.Ceiling != 100*mib || s.HoldLeft != l.CeilingHold {
			t.Errorf("p99=%v: ceiling %.0f hold %d, want the limit in force held (no good limit known)", c.p99, s.Ceiling, s.HoldLeft)
		}
	}
}

func TestNeverBelowMinNorAboveMax(t *testing.T) {
	l := testLaw()
	s := l.Initial(5 * mib)
	for i := 0; i < 10; i++ {
		s = l.Step(s, Sample{P99: time.Second, Valid: true})
	}
	if s.Limit != l.Min {
		t.Fatalf("limit %.0f after a long stall, want min %.0f", s.Limit, l.Min)
	}
	for i := 0; i < 200; i++ {
		s = l.Step(s, Sample{P99: time.Millisecond, Valid: true})
	}
	if s.Limit != l.Max {
		t.Fatalf("limit %.0f on an idle disk, want max %.0f", s.Limit, l.Max)
	}
}

func TestInvalidSampleHolds(t *testing.T) {
	l := testLaw()
	s := State{Limit: 50 * mib, Ceiling: 60 * mib, HoldLeft: 3, Good: 1, LastGood: 40 * mib}
	if got := l.Step(s, Sample{}); got != s {
		t.Fatalf("invalid sample changed state: %+v -> %+v", s, got)
	}
}

func TestDeadBandHolds(t *testing.T) {
	l := testLaw()
	s := State{Limit: 50 * mib, Good: 1}
	got := l.Step(s, Sample{P99: 8 * time.Millisecond, Valid: true})
	if got.Limit != s.Limit || got.Good != 0 {
		t.Fatalf("in the dead band: %+v, want limit kept and good reset", got)
	}
}

// On an affine disk the law backs off from max, then settles in the dead
// band and never moves again: no oscillation, no overshoot after settling.
func TestSettlesWithoutOscillationOnAffineDisk(t *testing.T) {
	l := testLaw()
	// 0.5 ms base, +0.1 ms per MiB/s: target reached at 95 MiB/s.
	p := affine(500*time.Microsecond, 100*time.Microsecond)
	limits, lat := run(l, l.Max, 300, func(int) plant { return p })
	settle := 50
	for i := settle; i < len(limits); i++ {
		if limits[i] != limits[settle] {
			t.Fatalf("limit still moving at step %d: %.1f -> %.1f MiB/s", i, limits[settle]/mib, limits[i]/mib)
		}
		if lat[i] > l.Target || lat[i] < time.Duration(l.LowWater*float64(l.Target)) {
			t.Fatalf("step %d: p99 %v outside the dead band", i, lat[i])
		}
	}
	// It did not settle needlessly low: within a growth step of the rate
	// at which the target is hit.
	if limits[settle] < 95*mib*l.LowWater {
		t.Fatalf("settled at %.1f MiB/s, needlessly low", limits[settle]/mib)
	}
}

// Starting low it climbs, and no growth step ever overshoots the target.
func TestClimbsWithoutOvershoot(t *testing.T) {
	l := testLaw()
	p := affine(500*time.Microsecond, 100*time.Microsecond)
	limits, lat := run(l, l.Min, 300, func(int) plant { return p })
	for i, x := range lat {
		if x > l.Target {
			t.Fatalf("step %d: p99 %v over target while climbing (limit %.1f MiB/s)", i, x, limits[i]/mib)
		}
	}
	if last := limits[len(limits)-1]; last < 50*mib {
		t.Fatalf("climbed only to %.1f MiB/s", last/mib)
	}
}

// etcd gets busy (the disk's latency per MiB/s triples) for a while, then
// calm returns: the law backs off within a step and later recovers.
func TestBacksOffAndRecovers(t *testing.T) {
	l := testLaw()
	calm := affine(500*time.Microsecond, 50*time.Microsecond)
	busy := affine(2*time.Millisecond, 300*time.Microsecond)
	phase := func(i int) plant {
		if i >= 100 && i < 200 {
			return busy
		}
		return calm
	}
	limits, lat := run(l, l.Min, 400, phase)
	before := limits[99]
	// Backs off: the first busy sample is over target, and within 3 steps
	// the p99 is back under it.
	if lat[100] <= l.Target {
		t.Fatalf("test plant: busy phase should start over target, p99=%v", lat[100])
	}
	if limits[100] >= before {
		t.Fatalf("no back-off: %.1f -> %.1f MiB/s", before/mib, limits[100]/mib)
	}
	for i := 103; i < 200; i++ {
		if lat[i] > l.Target {
			t.Fatalf("step %d: still over target %v in the busy phase", i, lat[i])
		}
	}
	// Recovers: back to at least the calm level within 100 steps of calm.
	if limits[399] < before {
		t.Fatalf("did not recover: %.1f MiB/s before, %.1f after", before/mib, limits[399]/mib)
	}
}

// A disk with a knee: an overshoot is followed by a hold below the limit
// that overshot, so the law probes the cliff at most once per hold period
// instead of sawing across it.
func TestKneeProbedAtMostOncePerHold(t *testing.T) {
	l := testLaw()
	p := knee(time.Millisecond, 80*mib)
	_, lat := run(l, l.Min, 600, func(int) plant { return p })
	var overs []int
	for i, x := range lat {
		if x > l.Target {
			overs = append(overs, i)
		}
	}
	if len(overs) == 0 {
		t.Fatal("test plant: the climb should find the knee once")
	}
	for i := 1; i < len(overs); i++ {
		if gap := overs[i] - overs[i-1]; gap < l.CeilingHold {
			t.Fatalf("overshoots at steps %d and %d, less than a hold (%d) apart", overs[i-1], overs[i], l.CeilingHold)
		}
	}
	if max := 1 + len(lat)/l.CeilingHold; len(overs) > max {
		t.Fatalf("%d overshoots in %d steps, want at most %d", len(overs), len(lat), max)
	}
}

// After an overshoot, growth stops at the last limit that met the target.
func TestCeilingIsLastGoodLimit(t *testing.T) {
	l := testLaw()
	s := State{Limit: 80 * mib}
	s = l.Step(s, Sample{P99: 5 * time.Millisecond, Valid: true})  // 80 is good
	s.Limit = 100 * mib                                            // a growth step
	s = l.Step(s, Sample{P99: 50 * time.Millisecond, Valid: true}) // 100 overshoots
	if s.Ceiling != 80*mib {
		t.Fatalf("ceiling %.1f MiB/s, want the last good 80", s.Ceiling/mib)
	}
	for i := 0; i < l.CeilingHold-2; i++ {
		s = l.Step(s, Sample{P99: time.Millisecond, Valid: true})
	}
	if s.Limit != 80*mib {
		t.Fatalf("limit %.1f MiB/s during the hold, want it to climb to and stop at 80", s.Limit/mib)
	}
}

// Another writer makes the disk slow while staging is at the floor:
// staging cannot give more, and once the disk calms down the limit climbs
// back without waiting out a ceiling.
func TestDisturbanceAtFloorDoesNotBlockRecovery(t *testing.T) {
	l := testLaw()
	s := l.Initial(l.Min)
	for i := 0; i < 5; i++ {
		s = l.Step(s, Sample{P99: 40 * time.Millisecond, Valid: true})
		if s.Limit != l.Min || s.HoldLeft != 0 {
			t.Fatalf("at the floor: %+v, want min and no ceiling held", s)
		}
	}
	// Calm: 2 samples per growth of 1.25.
	steps := 2 * int(math.Ceil(math.Log(l.Max/l.Min)/math.Log(l.Increase)))
	for i := 0; i < steps; i++ {
		s = l.Step(s, Sample{P99: time.Millisecond, Valid: true})
	}
	if s.Limit != l.Max {
		t.Fatalf("limit %.1f MiB/s %d calm samples later, want max", s.Limit/mib, steps)
	}
}

// A slow sample at a limit that had been fine is someone else's burst:
// back off, but allow the climb back to that limit at once.
func TestDisturbanceAtKnownGoodLimit(t *testing.T) {
	l := testLaw()
	s := State{Limit: 80 * mib}
	s = l.Step(s, Sample{P99: 4 * time.Millisecond, Valid: true})
	s = l.Step(s, Sample{P99: 30 * time.Millisecond, Valid: true})
	if s.Limit >= 80*mib || s.Ceiling != 80*mib {
		t.Fatalf("%+v: want a back-off with the known good 80 MiB/s as ceiling", s)
	}
}

// Noise inside the dead band does not move the limit.
func TestNoiseInDeadBandDoesNotMoveLimit(t *testing.T) {
	l := testLaw()
	s := State{Limit: 70 * mib}
	series := []time.Duration{6, 9, 7, 10, 6, 8, 9, 7, 6, 10}
	for _, ms := range series {
		s = l.Step(s, Sample{P99: ms * time.Millisecond, Valid: true})
	}
	if s.Limit != 70*mib {
		t.Fatalf("limit moved to %.1f MiB/s on in-band noise", s.Limit/mib)
	}
}
