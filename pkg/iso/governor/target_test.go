package governor

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestTargetRuleResolve(t *testing.T) {
	ms := time.Millisecond
	rel := TargetRule{Multiple: 2, Ceiling: 10 * ms, Resolution: ms}
	cases := []struct {
		name string
		rule TargetRule
		idle time.Duration
		ok   bool
		want time.Duration
	}{
		{"2x a 1.3 ms idle", rel, 1300 * time.Microsecond, true, 2600 * time.Microsecond},
		// etcd cannot tell 0.3 ms from 1 ms: its first bucket ends at 1 ms.
		{"idle inside the first bucket", rel, 300 * time.Microsecond, true, 2 * ms},
		{"capped by etcd's 10 ms", rel, 7 * ms, true, 10 * ms},
		{"nothing measured: the ceiling", rel, 0, false, 10 * ms},
		{"absolute wins", TargetRule{Absolute: 3 * ms, Multiple: 2, Ceiling: 10 * ms}, 5 * ms, true, 3 * ms},
	}
	for _, c := range cases {
		if got := c.rule.Resolve(c.idle, c.ok); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if err := (TargetRule{Multiple: 1, Ceiling: ms}).Validate(); err == nil {
		t.Error("multiple 1: want an error")
	}
	if err := (TargetRule{Multiple: 2}).Validate(); err == nil {
		t.Error("no ceiling: want an error")
	}
	if err := (TargetRule{Absolute: ms}).Validate(); err != nil {
		t.Errorf("absolute: %v", err)
	}
}

// MeasureIdle sums the intervals' histograms and takes one p99 over all of
// them; a sampler of means gives their mean; nothing valid gives !OK.
func TestMeasureIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &scriptedSampler{done: cancel, samples: []Sample{
		sampleOf(map[float64]uint64{1: 100}),
		{},
		sampleOf(map[float64]uint64{1: 96, 4: 4}), // 4 slow of 200 in all: p99 in (2,4]
	}}
	idle, err := MeasureIdle(ctx, s, time.Millisecond, 3)
	if err != nil {
		t.Fatal(err)
	}
	// rank 198 of 200: 196 under 1 ms, 4 in (2,4] ms: 2 + 2*(198-196)/4 = 3 ms.
	if !idle.OK || idle.Observations != 200 || idle.Latency != 3*time.Millisecond {
		t.Fatalf("idle %+v, want 3ms over 200", idle)
	}
	means := &scriptedSampler{done: cancel, samples: []Sample{mean(time.Millisecond), mean(3 * time.Millisecond)}}
	if idle, err := MeasureIdle(ctx, means, time.Millisecond, 2); err != nil || idle.Latency != 2*time.Millisecond || idle.Observations != 2 {
		t.Fatalf("means: %+v %v", idle, err)
	}
	empty := &scriptedSampler{done: cancel, samples: []Sample{{}, {}}}
	if idle, err := MeasureIdle(ctx, empty, time.Millisecond, 2); err != nil || idle.OK {
		t.Fatalf("no observation: %+v %v, want !OK", idle, err)
	}
	failing := &scriptedSampler{done: cancel}
	if _, err := MeasureIdle(ctx, failing, time.Millisecond, 2); err == nil || !errors.Is(err, errScriptOver) {
		t.Fatalf("a failing sampler: %v, want its error", err)
	}
}
