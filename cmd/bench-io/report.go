package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/tandem-mco/tandem/pkg/iso"
)

// The goal for the default policy, against idle (p99, max) and against
// "none" (stage time).
const (
	goalP99Ratio   = 1.2
	goalMaxRatio   = 1.5
	goalStageRatio = 2.0
)

// spread is a median over trials and the range around it.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: m, Min: s[0], Max: s[len(s)-1]}
}

func (s spread) String(format string) string {
	return fmt.Sprintf(format+" ("+format+"-"+format+")", s.Median, s.Min, s.Max)
}

// policySumm is one policy's figures over its trials.
type policySumm struct {
	Policy     string `json:"policy"`
	Trials     int    `json:"trials"`
	P99Ratio   spread `json:"p99Ratio"`
	MaxRatio   spread `json:"maxRatio"`
	StageRatio spread `json:"stageRatio"`
	FsyncP99Ms spread `json:"fsyncP99Ms"`
	FsyncMaxMs spread `json:"fsyncMaxBucketMs"`
	PutP99Ms   spread `json:"putP99Ms"`
	PutMaxMs   spread `json:"putMaxMs"`
	StageS     spread `json:"stageSeconds"`
	GoalMet    bool   `json:"goalMet"`
}

// goal is the default policy's verdict.
type goal struct {
	Policy     string  `json:"policy"`
	P99Ratio   float64 `json:"p99Ratio"`
	MaxRatio   float64 `json:"maxRatio"`
	StageRatio float64 `json:"stageRatio"`
	Met        bool    `json:"met"`
	Measured   bool    `json:"measured"`
}

// summarize computes the idle reference and drift, each trial's ratios, the
// per-policy medians and the goal. A drift above maxDrift marks the run
// refused: its ratios compare against a baseline that moved.
func summarize(r *report, maxDrift float64) {
	r.MaxIdleDrift = maxDrift
	b, a := r.IdleBefore, r.IdleAfter
	r.Idle = phase{
		Seconds: b.Seconds + a.Seconds, FsyncCount: b.FsyncCount + a.FsyncCount, Puts: b.Puts + a.Puts, PutsFailed: b.PutsFailed + a.PutsFailed,
		FsyncP99Ms: (b.FsyncP99Ms + a.FsyncP99Ms) / 2, FsyncMaxMs: (b.FsyncMaxMs + a.FsyncMaxMs) / 2,
		PutP50Ms: (b.PutP50Ms + a.PutP50Ms) / 2, PutP99Ms: (b.PutP99Ms + a.PutP99Ms) / 2, PutMaxMs: (b.PutMaxMs + a.PutMaxMs) / 2,
	}
	r.IdleDrift = math.Max(drift(b.FsyncP99Ms, a.FsyncP99Ms), drift(b.PutP99Ms, a.PutP99Ms))
	if r.IdleDrift > maxDrift {
		r.Refused = fmt.Sprintf("idle drifted %.2fx between the idle phases (fsync p99 %.2f -> %.2f ms, put p99 %.2f -> %.2f ms), more than %.2fx: the machine's load changed during the run",
			r.IdleDrift, b.FsyncP99Ms, a.FsyncP99Ms, b.PutP99Ms, a.PutP99Ms, maxDrift)
	}
	noneStage := map[int]float64{}
	for _, t := range r.Trials {
		if t.Policy == iso.PolicyNone {
			noneStage[t.Round] = t.StageS
		}
	}
	for i := range r.Trials {
		t := &r.Trials[i]
		t.P99Ratio = ratio(t.FsyncP99Ms, r.Idle.FsyncP99Ms)
		t.MaxRatio = ratio(t.FsyncMaxMs, r.Idle.FsyncMaxMs)
		t.StageRatio = ratio(t.StageS, noneStage[t.Round])
	}
	r.Policies = nil
	for _, name := range policyOrder(r.Trials) {
		var p99, mx, st, fp, fm, pp, pm, ss []float64
		for _, t := range r.Trials {
			if t.Policy != name {
				continue
			}
			p99, mx, st = append(p99, t.P99Ratio), append(mx, t.MaxRatio), append(st, t.StageRatio)
			fp, fm, pp, pm, ss = append(fp, t.FsyncP99Ms), append(fm, t.FsyncMaxMs), append(pp, t.PutP99Ms), append(pm, t.PutMaxMs), append(ss, t.StageS)
		}
		s := policySumm{Policy: name, Trials: len(p99), P99Ratio: spreadOf(p99), MaxRatio: spreadOf(mx), StageRatio: spreadOf(st),
			FsyncP99Ms: spreadOf(fp), FsyncMaxMs: spreadOf(fm), PutP99Ms: spreadOf(pp), PutMaxMs: spreadOf(pm), StageS: spreadOf(ss)}
		s.GoalMet = len(noneStage) > 0 && s.P99Ratio.Median <= goalP99Ratio && s.MaxRatio.Median <= goalMaxRatio && s.StageRatio.Median <= goalStageRatio
		r.Policies = append(r.Policies, s)
	}
	r.Goal = goal{Policy: r.DefaultPolicy}
	for _, s := range r.Policies {
		if s.Policy == r.DefaultPolicy {
			r.Goal = goal{Policy: s.Policy, P99Ratio: s.P99Ratio.Median, MaxRatio: s.MaxRatio.Median, StageRatio: s.StageRatio.Median,
				Met: s.GoalMet && r.Refused == "", Measured: true}
		}
	}
}

// policyOrder lists the policies in the order of their first trial.
func policyOrder(ts []trial) []string {
	var out []string
	for _, t := range ts {
		if !slices.Contains(out, t.Policy) {
			out = append(out, t.Policy)
		}
	}
	return out
}

func drift(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		if a == b {
			return 1
		}
		return math.Inf(1)
	}
	return math.Max(a, b) / math.Min(a, b)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// printReport prints the per-policy lines, the drift and the goal.
func printReport(r *report) {
	for _, s := range r.Policies {
		fmt.Printf("bench-io: policy=%s trials=%d p99_ratio=%s max_ratio=%s stage_ratio=%s fsync_p99_ms=%s fsync_max_ms=%s put_p99_ms=%s put_max_ms=%s stage_s=%s goal=%s\n",
			s.Policy, s.Trials, s.P99Ratio.String("%.2f"), s.MaxRatio.String("%.2f"), s.StageRatio.String("%.2f"),
			s.FsyncP99Ms.String("%.2f"), s.FsyncMaxMs.String("%.0f"), s.PutP99Ms.String("%.2f"), s.PutMaxMs.String("%.1f"), s.StageS.String("%.1f"),
			verdict(s.GoalMet))
	}
	fmt.Printf("bench-io: idle fsync_p99_ms=%.2f fsync_max_ms=%.0f put_p99_ms=%.2f put_max_ms=%.1f idle_drift=%.2f max_idle_drift=%.2f\n",
		r.Idle.FsyncP99Ms, r.Idle.FsyncMaxMs, r.Idle.PutP99Ms, r.Idle.PutMaxMs, r.IdleDrift, r.MaxIdleDrift)
	if r.Goal.Measured {
		fmt.Printf("bench-io: goal default=%s p99_ratio=%.2f (<=%.1f) max_ratio=%.2f (<=%.1f) stage_ratio=%.2f (<=%.1f) %s\n",
			r.Goal.Policy, r.Goal.P99Ratio, goalP99Ratio, r.Goal.MaxRatio, goalMaxRatio, r.Goal.StageRatio, goalStageRatio, verdict(r.Goal.Met))
	} else {
		fmt.Printf("bench-io: goal default=%s not measured (add it to --policies)\n", r.Goal.Policy)
	}
	if r.Refused != "" {
		fmt.Printf("bench-io: REFUSED %s\n", r.Refused)
	}
}
