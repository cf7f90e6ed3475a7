package governor

import (
	"math"
	"testing"
	"time"
)

const mib = 1 << 20

// etcdBounds are etcd's WAL fsync buckets (go.etcd.io/etcd/server/v3
// v3.6.16 storage/wal/metrics.go: ExponentialBuckets(0.001, 2, 14)).
var etcdBounds = func() []float64 {
	b := make([]float64, 14)
	for i := range b {
		b[i] = 0.001 * math.Pow(2, float64(i))
	}
	return b
}()

// fsyncs builds an interval's histogram on etcd's buckets: n observations
// in the bucket whose upper bound is each key (ms; 0 for above the last).
func fsyncs(byBoundMs map[float64]uint64) Histogram {
	counts := make([]uint64, len(etcdBounds)+1)
	for ms, n := range byBoundMs {
		i := len(etcdBounds)
		for j, b := range etcdBounds {
			if math.Abs(b*1000-ms) < 1e-9 {
				i = j
			}
		}
		counts[i] += n
	}
	h, err := FromBuckets(etcdBounds, counts)
	if err != nil {
		panic(err)
	}
	return h
}

func sampleOf(byBoundMs map[float64]uint64) Sample { return SampleOf(fsyncs(byBoundMs)) }

// mean is a sample of a sampler without histograms (the disk's).
func mean(d time.Duration) Sample { return Sample{P99: d, Valid: true} }

func testLaw() Law { return DefaultLaw(2*time.Millisecond, 4*mib, 512*mib) }

func TestDefaultLawIsValid(t *testing.T) {
	if err := testLaw().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRejects(t *testing.T) {
	for name, mut := range map[string]func(*Law){
		"increase*lowWater >= 1": func(l *Law) { l.Increase = 2 },
		"quantile 1":             func(l *Law) { l.Quantile = 1 },
		"aim 0":                  func(l *Law) { l.Aim = 0 },
		"maxSamples 0":           func(l *Law) { l.MaxSamples = 0 },
		"growReserve < 0":        func(l *Law) { l.GrowReserve = -1 },
		"min > max":              func(l *Law) { l.Min = l.Max * 2 },
	} {
		l := testLaw()
		mut(&l)
		if err := l.Validate(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// The window: a sample with fewer than MinCount fsyncs waits for the next
// one; the sum is judged once it holds MinCount, or after MaxSamples.
func TestJudgesWindowsNotSamples(t *testing.T) {
	l := testLaw()
	s := State{Limit: 100 * mib, Seen: 1000} // a reserve to grow with
	quiet := map[float64]uint64{1: 99, 2: 1} // 100 fsyncs, none over 2 ms
	s = l.Step(s, sampleOf(quiet))
	if s.Judged != "" || s.WindowSamples != 1 || s.Window.Count != 100 {
		t.Fatalf("100 of %d fsyncs: %+v, want to wait", l.MinCount, s)
	}
	s = l.Step(s, sampleOf(quiet))
	if s.Judged != "grow" || s.Limit != 125*mib || s.WindowSamples != 0 || s.Window.Count != 0 {
		t.Fatalf("200 fsyncs under low water: %+v, want a growth and a fresh window", s)
	}
	// etcd writing little: judged after MaxSamples samples anyway.
	few := map[float64]uint64{1: 3}
	for i := 1; i < l.MaxSamples; i++ {
		if s = l.Step(s, sampleOf(few)); s.Judged != "" {
			t.Fatalf("sample %d of a thin window judged: %+v", i, s)
		}
	}
	if s = l.Step(s, sampleOf(few)); s.Judged != "grow" {
		t.Fatalf("after %d thin samples: %+v, want judged", l.MaxSamples, s)
	}
}

// A window over target is a burst the stage can pay for while its reserve
// (1% of what it has seen, less what it spent) covers another window like
// it; once it cannot, the law backs off.
func TestBurstAbsorbedWhileTheReserveLasts(t *testing.T) {
	l := testLaw()
	burst := sampleOf(map[float64]uint64{1: 194, 8: 6}) // 6 slow of 200: 4 more than a p99 allows
	// 2000 good fsyncs before: a reserve of 1% of 2400 less 6 = 18 >= 4.
	s := l.Step(State{Limit: 100 * mib, Seen: 2000}, burst)
	if s.Judged != "absorbed" || s.Limit != 100*mib {
		t.Fatalf("burst with a reserve: %+v, want absorbed", s)
	}
	// 200 fsyncs before, 3 of them slow: a reserve of 1% of 600 less 9 < 4.
	s = l.Step(State{Limit: 100 * mib, Seen: 200, Slow: 3}, burst)
	if s.Judged != "back-off" || s.Limit >= 100*mib {
		t.Fatalf("burst without a reserve: %+v, want a back-off", s)
	}
}

// One slow second among quiet ones is what a per-second law chased: its
// own p99 is over target, the window's is not.
func TestOneSlowSecondInAQuietWindowIsNoBackOff(t *testing.T) {
	l := testLaw()
	s := l.Initial(100 * mib)
	s = l.Step(s, sampleOf(map[float64]uint64{1: 98, 4: 2})) // this second's p99 is in (2,4] ms
	if p := SampleOf(fsyncs(map[float64]uint64{1: 98, 4: 2})).P99; p <= l.Target {
		t.Fatalf("test data: the second's own p99 %v should be over the %v target", p, l.Target)
	}
	s = l.Step(s, sampleOf(map[float64]uint64{1: 100}))
	if s.Judged == "back-off" || s.Limit < 100*mib {
		t.Fatalf("window of 200 with 2 slow: %+v, want no back-off", s)
	}
}

func TestBacksOffInProportionToOvershoot(t *testing.T) {
	l := testLaw() // target 2 ms, aim 0.8: the cut aims at 1.6 ms, by 10% to 30%
	cases := []struct {
		name      string
		sample    Sample
		wantLimit float64
	}{
		// A mean of 2.1 ms: 0.8*2/2.1.
		{"just over", mean(2100 * time.Microsecond), 100 * mib * 0.8 * 2 / 2.1},
		// A mean of 2.2 ms: 0.8*2/2.2.
		{"mild", mean(2200 * time.Microsecond), 100 * mib * 0.8 * 2 / 2.2},
		// Far over: never below 0.7 in one step.
		{"far over", mean(40 * time.Millisecond), 100 * mib * 0.7},
		// A histogram whose p99 is 3 ms (rank 198 of 200: 196 under 2 ms,
		// 4 in (2,4]): 0.8*2/3 = 0.53, no deeper than 0.7.
		{"histogram", sampleOf(map[float64]uint64{1: 196, 4: 4}), 100 * mib * 0.7},
	}
	for _, c := range cases {
		s := l.Step(State{Limit: 100 * mib, Slow: 10}, c.sample) // the stage's reserve spent
		if s.Judged != "back-off" || math.Abs(s.Limit-c.wantLimit) > 1 {
			t.Errorf("%s: %s to %.0f, want back-off to %.0f", c.name, s.Judged, s.Limit, c.wantLimit)
		}
		if s.Ceiling != 100*mib || s.HoldLeft != l.CeilingHold {
			t.Errorf("%s: ceiling %.0f hold %d, want the limit in force held (no good limit known)", c.name, s.Ceiling, s.HoldLeft)
		}
	}
}

func TestDeadBandHolds(t *testing.T) {
	l := testLaw()
	s := l.Step(State{Limit: 50 * mib}, mean(1500*time.Microsecond)) // 0.75 of target
	if s.Judged != "hold" || s.Limit != 50*mib || s.LastGood != 50*mib {
		t.Fatalf("in the dead band: %+v, want held and remembered as good", s)
	}
}

func TestInvalidSampleHolds(t *testing.T) {
	l := testLaw()
	s := State{Limit: 50 * mib, Ceiling: 60 * mib, HoldLeft: 3, LastGood: 40 * mib, Seen: 10}
	got := l.Step(s, Sample{})
	if got.Limit != s.Limit || got.Ceiling != s.Ceiling || got.HoldLeft != s.HoldLeft || got.Seen != s.Seen || got.Judged != "" {
		t.Fatalf("invalid sample changed state: %+v -> %+v", s, got)
	}
}

// The stage's own p99 is what the bench judges: a stage that has spent its
// reserve of slow fsyncs (1% of those seen, plus a window's share) holds on
// a quiet window instead of growing, until good fsyncs have refilled it.
func TestSpentReserveStopsGrowth(t *testing.T) {
	l := testLaw()
	s := State{Limit: 50 * mib, Seen: 1000, Slow: 10} // reserve 1% of 1000 + 2 - 10 = 2 < 3 shares of 2
	quiet := map[float64]uint64{1: 200}
	s = l.Step(s, sampleOf(quiet))
	if s.Judged != "hold" || s.Limit != 50*mib {
		t.Fatalf("reserve spent: %+v, want a hold", s)
	}
	for s.Judged != "grow" {
		s = l.Step(s, sampleOf(quiet))
		if s.Seen > 10000 {
			t.Fatalf("never grew: %+v", s)
		}
	}
	if r := s.reserve(l); r < l.GrowReserve*l.share() {
		t.Fatalf("grew with a reserve of %v", r)
	}
}

// Inside the dead band the limit probes upward while the reserve is ample
// and no ceiling is held; with a ceiling held it holds.
func TestProbesInTheDeadBand(t *testing.T) {
	l := testLaw()
	band := map[float64]uint64{1: 197, 2: 3} // p99 in (1,2] ms: 0.6-1 of the 2 ms target
	s := l.Step(State{Limit: 50 * mib, Seen: 5000}, sampleOf(band))
	if s.Judged != "probe" || s.Limit != 62.5*mib {
		t.Fatalf("ample reserve: %+v, want a probe to 62.5 MiB/s", s)
	}
	s = l.Step(State{Limit: 50 * mib, Seen: 5000, Ceiling: 50 * mib, HoldLeft: 3}, sampleOf(band))
	if s.Judged != "hold" || s.Limit != 50*mib {
		t.Fatalf("ceiling held: %+v, want a hold", s)
	}
}

func TestNeverBelowMinNorAboveMax(t *testing.T) {
	l := testLaw()
	s := l.Initial(5 * mib)
	for range 10 {
		s = l.Step(s, mean(time.Second))
	}
	if s.Limit != l.Min {
		t.Fatalf("limit %.0f after a long stall, want min %.0f", s.Limit, l.Min)
	}
	for range 200 {
		s = l.Step(s, mean(100*time.Microsecond))
	}
	if s.Limit != l.Max {
		t.Fatalf("limit %.0f on an idle disk, want max %.0f", s.Limit, l.Max)
	}
}

// After an overshoot, growth stops at the last limit that met the target.
func TestCeilingIsLastGoodLimit(t *testing.T) {
	l := testLaw()
	s := State{Limit: 80 * mib}
	s = l.Step(s, mean(time.Millisecond)) // 80 is good (grows to 100)
	if s.Limit != 100*mib {
		t.Fatalf("limit %.1f MiB/s, want a growth to 100", s.Limit/mib)
	}
	s = l.Step(s, mean(10*time.Millisecond)) // 100 overshoots
	if s.Ceiling != 80*mib {
		t.Fatalf("ceiling %.1f MiB/s, want the last good 80", s.Ceiling/mib)
	}
	for range l.CeilingHold - 1 {
		s = l.Step(s, mean(100*time.Microsecond))
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
	for range 5 {
		s = l.Step(s, mean(40*time.Millisecond))
		if s.Limit != l.Min || s.HoldLeft != 0 {
			t.Fatalf("at the floor: %+v, want min and no ceiling held", s)
		}
	}
	steps := int(math.Ceil(math.Log(l.Max/l.Min) / math.Log(l.Increase)))
	for range steps {
		s = l.Step(s, mean(100*time.Microsecond))
	}
	if s.Limit != l.Max {
		t.Fatalf("limit %.1f MiB/s %d calm samples later, want max", s.Limit/mib, steps)
	}
}

// Noise inside the dead band does not move the limit.
func TestNoiseInDeadBandDoesNotMoveLimit(t *testing.T) {
	l := testLaw()
	s := State{Limit: 70 * mib}
	for _, us := range []time.Duration{1300, 1900, 1500, 2000, 1200, 1700, 1900, 1400, 1250, 2000} {
		s = l.Step(s, mean(us*time.Microsecond))
	}
	if s.Limit != 70*mib {
		t.Fatalf("limit moved to %.1f MiB/s on in-band noise", s.Limit/mib)
	}
}
