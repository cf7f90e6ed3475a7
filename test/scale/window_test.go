package scale

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A node's window is cut at the protocol's visible moments; the drain
// controller's share is its two answers over grant-to-Done. Nodes whose
// update did not finish are left out.
func TestNodeWindows(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const old, target = "rendered-worker-a", "rendered-worker-b"
	idle := nodeSnap{current: old, desired: old, state: constants.MachineConfigDaemonStateDone}
	step := func(prev nodeSnap, s float64, f func(*nodeSnap)) nodeSnap {
		n := prev
		n.at = at(s)
		f(&n)
		return n
	}
	var tl []nodeSnap
	a := idle
	a.name = "a"
	start := map[string]nodeSnap{"a": a, "b": {name: "b", current: old, desired: old, state: "Done"}}
	for _, ch := range []struct {
		s float64
		f func(*nodeSnap)
	}{
		{1, func(n *nodeSnap) { n.desired = target }},
		{2, func(n *nodeSnap) { n.state, n.desiredDrain = "Working", constants.DrainRequest(target) }},
		{2.5, func(n *nodeSnap) { n.unschedulable = true }},
		{3, func(n *nodeSnap) { n.lastAppliedDrain = constants.DrainRequest(target) }},
		{23, func(n *nodeSnap) { n.current = target }},
		{24, func(n *nodeSnap) { n.desiredDrain = constants.UncordonRequest(target) }},
		{25, func(n *nodeSnap) { n.lastAppliedDrain, n.unschedulable = constants.UncordonRequest(target), false }},
		{26, func(n *nodeSnap) { n.state = constants.MachineConfigDaemonStateDone }},
	} {
		a = step(a, ch.s, ch.f)
		tl = append(tl, a)
	}
	// b is granted but never finishes.
	b := step(start["b"], 5, func(n *nodeSnap) { n.desired = target })
	tl = append(tl, b)

	f := analyse(tl, start, target)
	if len(f.Windows) != 1 {
		t.Fatalf("%d complete windows, want 1 (a): %+v", len(f.Windows), f.Windows)
	}
	r := windowReport(f.Windows)
	for name, c := range map[string][2]float64{
		"window":                {r.WindowS, 25},
		"window mean":           {r.WindowMeanS, 25},
		"window p90":            {r.WindowP90S, 25},
		"grant to drain asked":  {r.GrantToDrainAskedS, 1},
		"drain":                 {r.DrainS, 1},
		"drained to uncordon":   {r.DrainedToUncordonAskedS, 21},
		"uncordon":              {r.UncordonS, 1},
		"uncordoned to done":    {r.UncordonedToDoneS, 1},
		"controller share x 25": {r.ControllerShare * 25, 2},
	} {
		if math.Abs(c[0]-c[1]) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
}
