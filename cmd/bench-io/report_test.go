package main

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

// The summary's oracle is arithmetic on hand-made trials: ratios against
// the mean idle, stage against none of the same round, medians and ranges,
// held against each trial's own target, the knee, the goal, and the
// refusal when idle drifted.
func TestSummarize(t *testing.T) {
	idle := phase{FsyncP99Ms: 1, FsyncMaxMs: 8, PutP99Ms: 2}
	tr := func(round int, a arm, p99, max, stage, target float64) trial {
		return trial{Round: round, Arm: a.Name, Policy: a.Policy, phase: phase{FsyncP99Ms: p99, FsyncMaxMs: max}, StageS: stage,
			TargetMs: target, Held: target > 0 && p99 <= target}
	}
	none := arm{Name: "none", Policy: "none"}
	def := arm{Name: "adaptive", Policy: "adaptive"}
	t2 := arm{Name: "adaptive@2x", Policy: "adaptive", Target: &targetSpec{Text: "2x", Multiple: 2}, TargetMs: 2}
	t5 := arm{Name: "adaptive@5ms", Policy: "adaptive", Target: &targetSpec{Text: "5ms", Latency: 5 * time.Millisecond}, TargetMs: 5}
	r := &report{DefaultPolicy: "adaptive", IdleBefore: idle, IdleAfter: idle, Arms: []arm{none, def, t2, t5}, Trials: []trial{
		tr(1, none, 10, 64, 10, 0), tr(1, def, 1.9, 2, 18, 2.0), tr(1, t2, 1.8, 2, 30, 2), tr(1, t5, 4, 16, 15, 5),
		tr(2, def, 1.5, 2, 22, 2.2), tr(2, none, 12, 64, 11, 0), tr(2, t2, 2.1, 4, 33, 2), tr(2, t5, 4.5, 16, 19, 5),
		tr(3, none, 9, 32, 9, 0), tr(3, def, 2.4, 2, 15, 2.1), tr(3, t2, 1.9, 2, 27, 2), tr(3, t5, 6, 32, 17, 5),
	}}
	summarize(r, 2)
	if r.Refused != "" || r.IdleDrift != 1 {
		t.Fatalf("refused %q drift %v", r.Refused, r.IdleDrift)
	}
	by := map[string]policySumm{}
	for _, p := range r.Policies {
		by[p.Arm] = p
	}
	d := by["adaptive"]
	if !d.Default || d.Frontier || d.Trials != 3 || d.P99Ratio != (spread{1.9, 1.5, 2.4}) || d.MaxRatio != (spread{0.25, 0.25, 0.25}) {
		t.Errorf("default arm %+v", d)
	}
	// Stage against none of the same round: 18/10, 22/11, 15/9.
	if s := d.StageRatio; s.Median != 1.8 || s.Min != 15.0/9 || s.Max != 2 {
		t.Errorf("stage ratio %+v", s)
	}
	// Held against each trial's own target: 1.9<=2.0, 1.5<=2.2, 2.4>2.1.
	if d.Held != 2 || d.TargetMs != (spread{2.1, 2.0, 2.2}) {
		t.Errorf("default held %d target %+v", d.Held, d.TargetMs)
	}
	if f := by["adaptive@2x"]; !f.Frontier || f.Held != 2 || f.StageRatio.Median != 3 {
		t.Errorf("2x arm %+v", f)
	}
	// The knee: 5 ms has median stage 17/9.. = 1.73..2 <= 2; 2x has 3.
	if r.Knee != "adaptive@5ms" {
		t.Errorf("knee %q, want adaptive@5ms", r.Knee)
	}
	// The goal: p99 1.9 <= 2, max 0.25, stage 1.8, spread 22/15 = 1.47, but held 2/3.
	g := r.Goal
	if !g.Measured || g.Met || g.Held != 2 || g.Trials != 3 || g.StageSpread != 22.0/15 {
		t.Errorf("goal %+v", g)
	}
	line := frontierLine(by["adaptive@2x"])
	for _, want := range []string{"bench-io: frontier target_ms=2.00 trials=3 p99_ratio=1.90 (1.80-2.10) max_ratio=0.25 (0.25-0.50) stage_ratio=3.00 (3.00-3.00) held=2/3"} {
		if !strings.HasPrefix(line, want) {
			t.Errorf("frontier line\n%s\nwant prefix\n%s", line, want)
		}
	}
	if l := frontierLine(by["none"]); !strings.HasPrefix(l, "bench-io: frontier policy=none trials=3 p99_ratio=10.00 (9.00-12.00)") || strings.Contains(l, "held=") {
		t.Errorf("none's line %s", l)
	}
	if l := frontierLine(d); !strings.Contains(l, "policy=adaptive default=true") || !strings.Contains(l, "held=2/3 target_ms=2.10 (2.00-2.20)") {
		t.Errorf("default's line %s", l)
	}

	r.IdleAfter = phase{FsyncP99Ms: 2.5, FsyncMaxMs: 8, PutP99Ms: 2}
	summarize(r, 2)
	if !strings.Contains(r.Refused, "drifted 2.50x") || r.Goal.Met {
		t.Errorf("drift 2.5x: refused %q, goal %+v", r.Refused, r.Goal)
	}

	// Interrupted before the second idle phase: refused, and the report
	// still encodes (JSON has no infinity).
	r.IdleAfter = phase{}
	summarize(r, 2)
	if !strings.Contains(r.Refused, "an idle phase has no figures") || r.IdleDrift != 0 || r.Goal.Met {
		t.Errorf("no second idle phase: refused %q, drift %v, goal %+v", r.Refused, r.IdleDrift, r.Goal)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the report of an interrupted run does not encode: %v", err)
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

func TestParseTargets(t *testing.T) {
	got, err := parseTargets("1.5x, 2x,3ms")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Multiple != 1.5 || got[1].Multiple != 2 || got[2].Latency != 3*time.Millisecond {
		t.Fatalf("parsed %+v", got)
	}
	// A multiple of an idle p99 inside etcd's first bucket counts from 1 ms.
	if d := got[0].resolve(0.6); d != 1500*time.Microsecond {
		t.Errorf("1.5x of 0.6 ms: %v, want 1.5ms", d)
	}
	if d := got[1].resolve(1.2); d != 2400*time.Microsecond {
		t.Errorf("2x of 1.2 ms: %v", d)
	}
	if d := got[2].resolve(7); d != 3*time.Millisecond {
		t.Errorf("3ms: %v", d)
	}
	for _, bad := range []string{"1x", "0.5x", "fast", "2x,2x", "-3ms"} {
		if _, err := parseTargets(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// The plot is well-formed SVG with one marker per arm and the frontier's
// line through the targets.
func TestFrontierSVG(t *testing.T) {
	r := &report{Device: "vda", Policies: []policySumm{
		{Arm: "none", Policy: "none", Trials: 3, P99Ratio: spread{30, 20, 40}, StageRatio: spread{1, 1, 1}},
		{Arm: "adaptive@2x", Policy: "adaptive", Frontier: true, Governed: true, Trials: 3, Held: 3, TargetMs: spread{2, 2, 2}, P99Ratio: spread{1.8, 1.7, 1.9}, StageRatio: spread{3, 2.5, 3.5}},
		{Arm: "adaptive@5x", Policy: "adaptive", Frontier: true, Governed: true, Trials: 3, Held: 2, TargetMs: spread{5, 5, 5}, P99Ratio: spread{4, 3, 6}, StageRatio: spread{1.6, 1.5, 1.9}},
		{Arm: "adaptive", Policy: "adaptive", Default: true, Governed: true, Trials: 3, Held: 3, P99Ratio: spread{1.9, 1.8, 2}, StageRatio: spread{2.8, 2.6, 3}},
	}}
	out := frontierSVG(r)
	var doc struct {
		XMLName  xml.Name   `xml:"svg"`
		Circles  []struct{} `xml:"circle"`
		Rects    []struct{} `xml:"rect"`
		Polyline []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	// Two frontier circles; squares for none and the default, plus the
	// background and the goal's corner.
	if len(doc.Circles) != 2 || len(doc.Rects) != 4 || len(doc.Polyline) != 1 || len(strings.Fields(doc.Polyline[0].Points)) != 2 {
		t.Errorf("circles %d rects %d polylines %+v", len(doc.Circles), len(doc.Rects), doc.Polyline)
	}
	all := strings.Join(doc.Texts, "|")
	for _, want := range []string{"2 ms held 3/3", "5 ms held 2/3", "none", "adaptive (default) held 3/3"} {
		if !strings.Contains(all, want) {
			t.Errorf("no label %q in %s", want, all)
		}
	}
}

func TestLogPos(t *testing.T) {
	if p := logPos(2, 1, 4, 0, 100); p != 50 {
		t.Errorf("2 on [1,4] -> %v, want the middle", p)
	}
	if p := logPos(100, 1, 4, 0, 100); p != 100 {
		t.Errorf("clamped: %v", p)
	}
}
