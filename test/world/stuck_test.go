package world

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// ann builds a node's annotations: state, reason, and a stage failure of
// cfg (attempts) when attempts > 0; extra are more key=value pairs.
func ann(state, reason string, attempts int, failReason string, extra ...string) map[string]string {
	a := map[string]string{constants.CurrentConfigAnnotation: "rendered-old", constants.DesiredConfigAnnotation: "rendered-old"}
	if state != "" {
		a[constants.StateAnnotation] = state
	}
	if reason != "" {
		a[constants.ReasonAnnotation] = reason
	}
	if attempts > 0 {
		a[constants.StageFailureAnnotation] = constants.StageFailure{Config: "rendered-new", Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Reason: failReason, Attempts: attempts}.Encode()
	}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i]] = extra[i+1]
	}
	return a
}

const (
	done     = constants.MachineConfigDaemonStateDone
	degraded = constants.MachineConfigDaemonStateDegraded
	ioErr    = "I/O policy adaptive: open /sys/fs/cgroup/x: no such file"
)

func TestStuckWatch(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type sample struct {
		at    time.Duration
		nodes []NodeSnapshot
		want  string // "" not stuck; else a substring of Why
	}
	// masters: a pool of two; w: one worker that is fine.
	masters := func(a0, a1 map[string]string) []NodeSnapshot {
		return []NodeSnapshot{
			{Name: "master-0", Pool: "tenant/master", Annotations: a0},
			{Name: "master-1", Pool: "tenant/master", Annotations: a1},
			{Name: "worker-0", Pool: "tenant/worker", Annotations: ann(done, "", 0, "", constants.StageProgressAnnotation, "rendered-new 10%")},
		}
	}
	fine := ann(done, "", 0, "")
	cases := []struct {
		name          string
		failed, stall time.Duration
		samples       []sample
		wantReasons   []string // Reason.Line(0) at the last sample when stuck
	}{{
		name:   "every node of a pool failing its stage for the timeout, while retries count up",
		failed: 2 * time.Minute, stall: 10 * time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(ann(done, "", 1, ioErr), ann(done, "", 1, ioErr))},
			{at: time.Minute, nodes: masters(ann(done, "", 2, ioErr), ann(done, "", 3, ioErr))},
			{at: 2*time.Minute - time.Second, nodes: masters(ann(done, "", 3, ioErr), ann(done, "", 4, ioErr))},
			{at: 2 * time.Minute, nodes: masters(ann(done, "", 4, ioErr), ann(done, "", 5, ioErr)), want: "every node of tenant/master has been failing for 2m0s"},
		},
		wantReasons: []string{"2 nodes: stage fails: " + ioErr + " (master-0, master-1)"},
	}, {
		name:   "a break in the failing restarts the clock",
		failed: 2 * time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(ann(degraded, "disk full", 0, ""), ann(done, "", 1, ioErr))},
			{at: 90 * time.Second, nodes: masters(fine, ann(done, "", 1, ioErr))},
			{at: 100 * time.Second, nodes: masters(ann(degraded, "disk full", 0, ""), ann(done, "", 1, ioErr))},
			{at: 3 * time.Minute, nodes: masters(ann(degraded, "disk full", 0, ""), ann(done, "", 1, ioErr))},
			{at: 220 * time.Second, nodes: masters(ann(degraded, "disk full", 0, ""), ann(done, "", 1, ioErr)), want: "tenant/master"},
		},
		wantReasons: []string{"1 node: Degraded: disk full (master-0)", "1 node: stage fails: " + ioErr + " (master-1)"},
	}, {
		name:   "one node of a pool failing is not stuck",
		failed: time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(ann(degraded, "x", 0, ""), fine)},
			{at: time.Hour, nodes: masters(ann(degraded, "x", 0, ""), fine)},
		},
	}, {
		name:   "a node both Degraded and failing its stage counts under both reasons; no reason given says so",
		failed: time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(ann(degraded, "", 2, ioErr), ann(constants.MachineConfigDaemonStateUnreconcilable, "bad config", 0, ""))},
			{at: time.Minute, nodes: masters(ann(degraded, "", 2, ioErr), ann(constants.MachineConfigDaemonStateUnreconcilable, "bad config", 0, "")), want: "tenant/master"},
		},
		wantReasons: []string{"1 node: Degraded: (no reason given) (master-0)", "1 node: Unreconcilable: bad config (master-1)", "1 node: stage fails: " + ioErr + " (master-0)"},
	}, {
		name:  "no annotation changing for the stall timeout; retries, rewordings and a failing stage's progress are no progress",
		stall: 10 * time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(ann(done, "", 1, ioErr, constants.StageProgressAnnotation, "rendered-new 5%"), fine)},
			{at: 5 * time.Minute, nodes: masters(ann(done, "", 7, "another error", constants.StageProgressAnnotation, "rendered-new 40%"), fine)},
			{at: 10 * time.Minute, nodes: masters(ann(done, "", 9, ioErr, constants.StageProgressAnnotation, "rendered-new 0%"), fine), want: "no node's annotations changed for 10m0s"},
		},
		wantReasons: []string{"1 node: stage fails: " + ioErr + " (master-0)"},
	}, {
		name:  "an annotation changing is progress",
		stall: 10 * time.Minute,
		samples: []sample{
			{at: 0, nodes: masters(fine, fine)},
			{at: 9 * time.Minute, nodes: masters(fine, ann(done, "", 0, "", constants.StagedConfigAnnotation, "rendered-new"))},
			{at: 18 * time.Minute, nodes: masters(fine, ann(done, "", 0, "", constants.StagedConfigAnnotation, "rendered-new"))},
			{at: 19 * time.Minute, nodes: masters(fine, ann(done, "", 0, "", constants.StagedConfigAnnotation, "rendered-new")), want: "no node's annotations changed"},
		},
	}, {
		name: "zero timeouts never stop",
		samples: []sample{
			{at: 0, nodes: masters(ann(degraded, "x", 0, ""), ann(degraded, "x", 0, ""))},
			{at: 24 * time.Hour, nodes: masters(ann(degraded, "x", 0, ""), ann(degraded, "x", 0, ""))},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &StuckWatch{FailedTimeout: c.failed, StallTimeout: c.stall}
			var last *Stuck
			for i, s := range c.samples {
				last = w.Observe(t0.Add(s.at), s.nodes)
				switch {
				case s.want == "" && last != nil:
					t.Fatalf("sample %d: stuck (%s), want not", i, last.Why)
				case s.want != "" && last == nil:
					t.Fatalf("sample %d: not stuck, want %q", i, s.want)
				case s.want != "" && !strings.Contains(last.Why, s.want):
					t.Fatalf("sample %d: stuck because %q, want %q", i, last.Why, s.want)
				}
			}
			if last == nil {
				return
			}
			var got []string
			for _, r := range last.Reasons {
				got = append(got, r.Line(0))
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.wantReasons) {
				t.Errorf("reasons\n got %q\nwant %q", got, c.wantReasons)
			}
		})
	}
}

func TestReasonLine(t *testing.T) {
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("n-%02d", i))
	}
	r := Reason{Text: strings.Repeat("x", 50), Nodes: names}
	if got, want := r.Line(10), "12 nodes: xxxxxxxxx… (n-00, n-01, n-02, n-03, n-04, n-05, ... 6 more)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStateColumn(t *testing.T) {
	for _, c := range []struct {
		a    map[string]string
		want string
	}{
		{ann(done, "", 0, ""), "Done"},
		{ann(done, "", 3, ioErr), "fail(3)"},
		{ann(degraded, "x", 2, ioErr), "Degraded,fail(2)"},
		{map[string]string{constants.StageFailureAnnotation: "{"}, "fail(?)"},
		{map[string]string{}, "-"},
	} {
		r := Row{State: c.a[constants.StateAnnotation], Annotations: c.a}
		if got := stateColumn(r); got != c.want {
			t.Errorf("%v: got %q, want %q", c.a, got, c.want)
		}
	}
}

func TestPrintTableWhy(t *testing.T) {
	rows := []Row{
		{Name: "master-0", Cluster: "tenant", Pool: "master", State: done, Annotations: ann(done, "", 3, ioErr)},
		{Name: "master-1", Cluster: "tenant", Pool: "master", State: done, Annotations: ann(done, "", 1, ioErr)},
		{Name: "worker-0", Cluster: "tenant", Pool: "worker", State: done, Annotations: ann(done, "", 0, "")},
	}
	var b strings.Builder
	printTable(&b, rows, time.Minute)
	out := b.String()
	for _, want := range []string{"fail(3)", "fail(1)", "\nwhy: 2 nodes: stage fails: " + ioErr + " (master-0, master-1)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "why:"); n != 1 {
		t.Errorf("%d why lines, want 1:\n%s", n, out)
	}
}
