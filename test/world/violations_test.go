package world

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestViolationsEpisodes(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pool := ViolationKey{Kind: violationMaxUnavailable, Subject: "infra/dpu-worker"}
	other := ViolationKey{Kind: violationMaxUnavailable, Subject: "tenant/master"}
	type step struct {
		at       time.Duration
		key      ViolationKey
		violated bool
		event    bool
		text     string
		want     string // the line printed; "" none
	}
	cases := []struct {
		name  string
		steps []step
		end   time.Duration
		want  []ViolationTally
	}{{
		name: "a violation held over many samples with changing counts is told once, then once restored",
		steps: []step{
			{at: 0, key: pool, violated: false},
			{at: 1 * time.Second, key: pool, violated: true, text: "infra/dpu-worker: 2 nodes unavailable", want: "INVARIANT VIOLATED: infra/dpu-worker: 2 nodes unavailable"},
			{at: 2 * time.Second, key: pool, violated: true, text: "infra/dpu-worker: 3 nodes unavailable"},
			{at: 3 * time.Second, key: pool, violated: true, text: "infra/dpu-worker: 3 nodes unavailable"},
			{at: 13300 * time.Millisecond, key: pool, violated: false, want: "invariant restored after 12.3s: infra/dpu-worker: 2 nodes unavailable"},
			{at: 14 * time.Second, key: pool, violated: false},
		},
		end:  time.Minute,
		want: []ViolationTally{{Key: pool, Episodes: 1, Longest: 12300 * time.Millisecond, First: "infra/dpu-worker: 2 nodes unavailable"}},
	}, {
		name: "two episodes of one key, the second still open at the end",
		steps: []step{
			{at: 0, key: pool, violated: true, text: "a", want: "INVARIANT VIOLATED: a"},
			{at: 2 * time.Second, key: pool, violated: false, want: "invariant restored after 2.0s: a"},
			{at: 10 * time.Second, key: pool, violated: true, text: "b", want: "INVARIANT VIOLATED: b"},
			{at: 11 * time.Second, key: pool, violated: true, text: "b"},
		},
		end:  15 * time.Second,
		want: []ViolationTally{{Key: pool, Episodes: 2, Longest: 5 * time.Second, StillOpen: true, First: "a"}},
	}, {
		name: "keys are independent",
		steps: []step{
			{at: 0, key: pool, violated: true, text: "p", want: "INVARIANT VIOLATED: p"},
			{at: 0, key: other, violated: true, text: "o", want: "INVARIANT VIOLATED: o"},
			{at: time.Second, key: other, violated: false, want: "invariant restored after 1.0s: o"},
			{at: time.Second, key: pool, violated: true, text: "p"},
			{at: 3 * time.Second, key: pool, violated: false, want: "invariant restored after 3.0s: p"},
		},
		end: 4 * time.Second,
		want: []ViolationTally{
			{Key: pool, Episodes: 1, Longest: 3 * time.Second, First: "p"},
			{Key: other, Episodes: 1, Longest: time.Second, First: "o"},
		},
	}, {
		name: "events are told each time and last no time",
		steps: []step{
			{at: 0, key: ViolationKey{violationHostNotDrained, "dpu-0"}, event: true, text: "DPU dpu-0 rebooted", want: "INVARIANT VIOLATED: DPU dpu-0 rebooted"},
			{at: time.Second, key: ViolationKey{violationHostNotDrained, "dpu-0"}, event: true, text: "DPU dpu-0 rebooted", want: "INVARIANT VIOLATED: DPU dpu-0 rebooted"},
		},
		end:  time.Minute,
		want: []ViolationTally{{Key: ViolationKey{violationHostNotDrained, "dpu-0"}, Episodes: 2, First: "DPU dpu-0 rebooted"}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v Violations
			for i, s := range c.steps {
				now := t0.Add(s.at)
				var got string
				switch {
				case s.event:
					got = v.Event(now, s.key, s.text)
				case s.violated:
					got = v.Holds(now, s.key, s.text)
				default:
					got = v.Clear(now, s.key)
				}
				if got != s.want {
					t.Errorf("step %d: printed %q, want %q", i, got, s.want)
				}
			}
			got := Tally(v.Episodes(t0.Add(c.end)))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("tally\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

// TestViolationsManySamples is the case: a pool over its limit for
// thousands of samples prints one line, not one per sample.
func TestViolationsManySamples(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := ViolationKey{Kind: violationMaxUnavailable, Subject: "infra/dpu-worker"}
	var v Violations
	var lines []string
	for i := range 6211 {
		if l := v.Holds(t0.Add(time.Duration(i)*116*time.Millisecond), key, fmt.Sprintf("infra/dpu-worker: %d nodes unavailable, maxUnavailable is 1", 2+i%2)); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "INVARIANT VIOLATED: ") {
		t.Fatalf("printed %d lines, first %q", len(lines), lines[:min(3, len(lines))])
	}
}
