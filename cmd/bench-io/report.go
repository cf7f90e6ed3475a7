package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/tandem-mco/tandem/pkg/iso"
)

// The goal for the default arm (issue 25), against idle (p99, max), against
// "none" (stage time), its stage's spread (slowest over fastest trial), and
// every trial held under its target. The long-term p99 goal stays 1.2x.
const (
	goalP99Ratio    = 2.0
	goalMaxRatio    = 3.0
	goalStageRatio  = 2.5
	goalStageSpread = 1.5
	// kneeStageRatio: the knee is the lowest target whose median stage is
	// at most this many times none's.
	kneeStageRatio = 2.0
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

// factor is the highest over the lowest (the stage's spread).
func (s spread) factor() float64 { return ratio(s.Max, s.Min) }

// policySumm is one arm's figures over its trials.
type policySumm struct {
	Arm        string `json:"arm"`
	Policy     string `json:"policy"`
	Default    bool   `json:"default,omitempty"`
	Frontier   bool   `json:"frontier,omitempty"`
	Trials     int    `json:"trials"`
	P99Ratio   spread `json:"p99Ratio"`
	MaxRatio   spread `json:"maxRatio"`
	StageRatio spread `json:"stageRatio"`
	FsyncP99Ms spread `json:"fsyncP99Ms"`
	FsyncMaxMs spread `json:"fsyncMaxBucketMs"`
	PutP99Ms   spread `json:"putP99Ms"`
	PutMaxMs   spread `json:"putMaxMs"`
	StageS     spread `json:"stageSeconds"`
	// TargetMs spreads the targets in force (one value for a frontier arm;
	// the default's is measured at each stage's start); Held counts the
	// trials whose p99 stayed at or under theirs.
	TargetMs spread `json:"targetMs"`
	Held     int    `json:"held"`
	Governed bool   `json:"governed"`
}

// goal is the default arm's verdict.
type goal struct {
	Policy      string  `json:"policy"`
	P99Ratio    float64 `json:"p99Ratio"`
	MaxRatio    float64 `json:"maxRatio"`
	StageRatio  float64 `json:"stageRatio"`
	StageSpread float64 `json:"stageSpread"`
	Held        int     `json:"held"`
	Trials      int     `json:"trials"`
	Met         bool    `json:"met"`
	Measured    bool    `json:"measured"`
}

// summarize computes the idle reference and drift, each trial's ratios, the
// per-arm medians, the knee and the goal. A drift above maxDrift marks the
// run refused: its ratios compare against a baseline that moved.
func summarize(r *report, maxDrift float64) {
	r.MaxIdleDrift = maxDrift
	b, a := r.IdleBefore, r.IdleAfter
	r.Idle = phase{
		Seconds: b.Seconds + a.Seconds, FsyncCount: b.FsyncCount + a.FsyncCount, Puts: b.Puts + a.Puts, PutsFailed: b.PutsFailed + a.PutsFailed,
		FsyncP99Ms: (b.FsyncP99Ms + a.FsyncP99Ms) / 2, FsyncMaxMs: (b.FsyncMaxMs + a.FsyncMaxMs) / 2,
		PutP50Ms: (b.PutP50Ms + a.PutP50Ms) / 2, PutP99Ms: (b.PutP99Ms + a.PutP99Ms) / 2, PutMaxMs: (b.PutMaxMs + a.PutMaxMs) / 2,
	}
	// An idle phase without a figure (the run was interrupted before the
	// second one) gives no drift: refused, with a drift of 0 ("unknown"),
	// since JSON has no infinity and the trials already run must be written.
	if b.FsyncP99Ms <= 0 || a.FsyncP99Ms <= 0 || b.PutP99Ms <= 0 || a.PutP99Ms <= 0 {
		r.IdleDrift = 0
		r.Refused = fmt.Sprintf("an idle phase has no figures (fsync p99 %.2f -> %.2f ms, put p99 %.2f -> %.2f ms): the run was interrupted, or etcd wrote nothing; no baseline to compare the trials with",
			b.FsyncP99Ms, a.FsyncP99Ms, b.PutP99Ms, a.PutP99Ms)
	} else if r.IdleDrift = math.Max(drift(b.FsyncP99Ms, a.FsyncP99Ms), drift(b.PutP99Ms, a.PutP99Ms)); r.IdleDrift > maxDrift {
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
	arms := r.Arms
	if len(arms) == 0 { // a report from before arms: one per policy
		for _, name := range policyOrder(r.Trials) {
			arms = append(arms, arm{Name: name, Policy: name})
		}
	}
	r.Policies = nil
	for _, a := range arms {
		s := summarizeArm(a, r.Trials)
		if s.Trials > 0 {
			r.Policies = append(r.Policies, s)
		}
	}
	r.Knee = knee(r.Policies, len(noneStage) > 0)
	r.Goal = goal{Policy: r.DefaultPolicy}
	for _, s := range r.Policies {
		if s.Default {
			r.Goal = goal{Policy: s.Arm, P99Ratio: s.P99Ratio.Median, MaxRatio: s.MaxRatio.Median, StageRatio: s.StageRatio.Median,
				StageSpread: s.StageS.factor(), Held: s.Held, Trials: s.Trials, Measured: true}
			r.Goal.Met = len(noneStage) > 0 && r.Refused == "" && s.P99Ratio.Median <= goalP99Ratio && s.MaxRatio.Median <= goalMaxRatio &&
				s.StageRatio.Median <= goalStageRatio && r.Goal.StageSpread <= goalStageSpread && s.Held == s.Trials
		}
	}
}

func summarizeArm(a arm, trials []trial) policySumm {
	s := policySumm{Arm: a.Name, Policy: a.Policy, Default: a.isDefault(), Frontier: a.Target != nil}
	var p99, mx, st, fp, fm, pp, pm, ss, tg []float64
	for _, t := range trials {
		if t.Arm != a.Name && (t.Arm != "" || t.Policy != a.Name) {
			continue
		}
		p99, mx, st = append(p99, t.P99Ratio), append(mx, t.MaxRatio), append(st, t.StageRatio)
		fp, fm, pp, pm, ss = append(fp, t.FsyncP99Ms), append(fm, t.FsyncMaxMs), append(pp, t.PutP99Ms), append(pm, t.PutMaxMs), append(ss, t.StageS)
		if t.TargetMs > 0 {
			s.Governed = true
			tg = append(tg, t.TargetMs)
			if t.Held {
				s.Held++
			}
		}
	}
	s.Trials = len(p99)
	s.P99Ratio, s.MaxRatio, s.StageRatio = spreadOf(p99), spreadOf(mx), spreadOf(st)
	s.FsyncP99Ms, s.FsyncMaxMs, s.PutP99Ms, s.PutMaxMs, s.StageS = spreadOf(fp), spreadOf(fm), spreadOf(pp), spreadOf(pm), spreadOf(ss)
	s.TargetMs = spreadOf(tg)
	return s
}

// knee is the lowest frontier target whose median stage_ratio is at most
// kneeStageRatio, "" if none is (or nothing to compare with).
func knee(ss []policySumm, haveNone bool) string {
	if !haveNone {
		return ""
	}
	best := -1
	for i, s := range ss {
		if !s.Frontier || s.StageRatio.Median > kneeStageRatio {
			continue
		}
		if best < 0 || s.TargetMs.Median < ss[best].TargetMs.Median {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return ss[best].Arm
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

// drift is the factor between two positive figures.
func drift(a, b float64) float64 {
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

// printReport prints one frontier line per arm (the targets, then the
// policies), the idle figures and drift, the knee and the goal.
func printReport(r *report) {
	for _, frontier := range []bool{true, false} {
		for _, s := range r.Policies {
			if s.Frontier == frontier {
				fmt.Println(frontierLine(s))
			}
		}
	}
	fmt.Printf("bench-io: idle fsync_p99_ms=%.2f fsync_max_ms=%.0f put_p99_ms=%.2f put_max_ms=%.1f idle_drift=%.2f max_idle_drift=%.2f\n",
		r.Idle.FsyncP99Ms, r.Idle.FsyncMaxMs, r.Idle.PutP99Ms, r.Idle.PutMaxMs, r.IdleDrift, r.MaxIdleDrift)
	if r.Knee != "" {
		for _, s := range r.Policies {
			if s.Arm == r.Knee {
				fmt.Printf("bench-io: knee arm=%s target_ms=%.2f stage_ratio=%.2f (the lowest target whose median stage_ratio <= %.1f)\n",
					s.Arm, s.TargetMs.Median, s.StageRatio.Median, kneeStageRatio)
			}
		}
	} else {
		fmt.Printf("bench-io: knee none (no frontier target has a median stage_ratio <= %.1f)\n", kneeStageRatio)
	}
	if g := r.Goal; g.Measured {
		fmt.Printf("bench-io: goal default=%s p99_ratio=%.2f (<=%.1f) max_ratio=%.2f (<=%.1f) stage_ratio=%.2f (<=%.1f) stage_spread=%.2f (<=%.1f) held=%d/%d %s\n",
			g.Policy, g.P99Ratio, goalP99Ratio, g.MaxRatio, goalMaxRatio, g.StageRatio, goalStageRatio, g.StageSpread, goalStageSpread, g.Held, g.Trials, verdict(g.Met))
	} else {
		fmt.Printf("bench-io: goal default=%s not measured (add it to --policies)\n", r.Goal.Policy)
	}
	if r.Refused != "" {
		fmt.Printf("bench-io: REFUSED %s\n", r.Refused)
	}
}

// frontierLine is an arm's line: target_ms= for a frontier target,
// policy= for the others (with the default's measured target and held).
func frontierLine(s policySumm) string {
	head := "policy=" + s.Policy
	if s.Frontier {
		head = fmt.Sprintf("target_ms=%.2f", s.TargetMs.Median)
	} else if s.Default {
		head += " default=true"
	}
	line := fmt.Sprintf("bench-io: frontier %s trials=%d p99_ratio=%s max_ratio=%s stage_ratio=%s", head, s.Trials,
		s.P99Ratio.String("%.2f"), s.MaxRatio.String("%.2f"), s.StageRatio.String("%.2f"))
	if s.Governed {
		line += fmt.Sprintf(" held=%d/%d", s.Held, s.Trials)
		if !s.Frontier {
			line += " target_ms=" + s.TargetMs.String("%.2f")
		}
	}
	return line + fmt.Sprintf(" stage_s=%s stage_spread=%.2f fsync_p99_ms=%s fsync_max_ms=%s put_p99_ms=%s arm=%s",
		s.StageS.String("%.1f"), s.StageS.factor(), s.FsyncP99Ms.String("%.2f"), s.FsyncMaxMs.String("%.0f"), s.PutP99Ms.String("%.2f"), s.Arm)
}
