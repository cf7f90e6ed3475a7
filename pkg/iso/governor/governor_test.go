package governor

import (
	"context"
	"errors"
	"testing"
	"time"
)

var errScriptOver = errors.New("script over")

type scriptedSampler struct {
	samples []Sample
	i       int
	done    context.CancelFunc
}

func (s *scriptedSampler) Sample(context.Context) (Sample, error) {
	if s.i == 0 { // the priming call
		s.i++
		return Sample{}, nil
	}
	if s.i > len(s.samples) {
		s.done()
		return Sample{}, errScriptOver
	}
	x := s.samples[s.i-1]
	s.i++
	return x, nil
}

type recordingLimiter struct{ limits []uint64 }

func (r *recordingLimiter) Set(_ context.Context, bps uint64) error {
	r.limits = append(r.limits, bps)
	return nil
}

// Run applies the starting limit, then each limit the law moves to, and
// nothing when the law holds.
func TestRunAppliesTheLawsLimits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ms := time.Millisecond
	sampler := &scriptedSampler{done: cancel, samples: []Sample{
		{P99: 40 * ms, Valid: true},                 // back off by half, the most one step cuts
		{P99: 1500 * time.Microsecond, Valid: true}, // dead band (0.6-1 of 2 ms): hold
		{},                         // no data: hold
		{P99: 1 * ms, Valid: true}, // under low water: grow by 1.25
	}}
	lim := &recordingLimiter{}
	var steps []State
	g := Governor{
		Law: testLaw(), Start: 64 * mib, Interval: time.Millisecond,
		Sampler: sampler, Lever: lim,
		OnStep: func(_ Sample, s State) { steps = append(steps, s) },
	}
	if err := g.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := []uint64{64 * mib, 64 * mib * 7 / 10, 56 * mib}
	if len(lim.limits) != len(want) {
		t.Fatalf("limits applied %v, want %v", lim.limits, want)
	}
	for i := range want {
		if lim.limits[i] != want[i] {
			t.Fatalf("limits applied %v, want %v", lim.limits, want)
		}
	}
	if len(steps) != 4 {
		t.Fatalf("%d steps observed, want 4", len(steps))
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	g := Governor{Law: testLaw(), Interval: 0, Sampler: &scriptedSampler{}, Lever: &recordingLimiter{}}
	if err := g.Run(context.Background()); err == nil {
		t.Fatal("want an error for a zero interval")
	}
}
