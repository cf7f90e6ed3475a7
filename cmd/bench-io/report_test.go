package main

import (
	"strings"
	"testing"
)

// The summary's oracle is arithmetic on hand-made trials: ratios against
// the mean idle, stage against none of the same round, medians and ranges,
// the goal, and the refusal when idle drifted.
func TestSummarize(t *testing.T) {
	idle := phase{FsyncP99Ms: 1, FsyncMaxMs: 8, PutP99Ms: 2}
	tr := func(round int, policy string, p99, max, stage float64) trial {
		return trial{Round: round, Policy: policy, phase: phase{FsyncP99Ms: p99, FsyncMaxMs: max}, StageS: stage}
	}
	r := &report{DefaultPolicy: "adaptive", IdleBefore: idle, IdleAfter: idle, Trials: []trial{
		tr(1, "none", 10, 64, 10), tr(1, "adaptive", 1.1, 8, 18),
		tr(2, "adaptive", 1.3, 16, 22), tr(2, "none", 12, 64, 11),
		tr(3, "none", 9, 32, 9), tr(3, "adaptive", 1.0, 8, 15),
	}}
	summarize(r, 2)
	if r.Refused != "" || r.IdleDrift != 1 {
		t.Fatalf("refused %q drift %v", r.Refused, r.IdleDrift)
	}
	var a policySumm
	for _, p := range r.Policies {
		if p.Policy == "adaptive" {
			a = p
		}
	}
	if a.Trials != 3 || a.P99Ratio != (spread{1.1, 1.0, 1.3}) || a.MaxRatio != (spread{1, 1, 2}) {
		t.Errorf("adaptive p99 %+v max %+v", a.P99Ratio, a.MaxRatio)
	}
	// Stage against none of the same round: 18/10, 22/11, 15/9.
	if s := a.StageRatio; s.Median != 1.8 || s.Min != 15.0/9 || s.Max != 2 {
		t.Errorf("stage ratio %+v", s)
	}
	if !a.GoalMet || !r.Goal.Met || r.Goal.P99Ratio != 1.1 {
		t.Errorf("goal %+v (adaptive met=%v)", r.Goal, a.GoalMet)
	}

	r.IdleAfter = phase{FsyncP99Ms: 2.5, FsyncMaxMs: 8, PutP99Ms: 2}
	summarize(r, 2)
	if !strings.Contains(r.Refused, "drifted 2.50x") || r.Goal.Met {
		t.Errorf("drift 2.5x: refused %q, goal %+v", r.Refused, r.Goal)
	}
}

func TestSpreadOf(t *testing.T) {
	if s := spreadOf([]float64{3, 1, 2, 10}); s != (spread{2.5, 1, 10}) {
		t.Errorf("even count: %+v", s)
	}
	if s := spreadOf(nil); s != (spread{}) {
		t.Errorf("empty: %+v", s)
	}
}
