package scale

import (
	"fmt"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// nodeWindow is one node's update as the bench's watch saw it, from the
// grant (desiredConfig = target) to Done, at the moments the node protocol
// makes visible: the daemon's drain request (desiredDrain=drain-<target>),
// the drain controller's answer (lastAppliedDrain), the daemon's uncordon
// request after its reboot, the drain controller's answer, and Done. The
// controller's part is the two answers; the rest is the daemon's steps and
// the simulated machine (the stage, if not done ahead, and the reboot).
type nodeWindow struct {
	granted, drainAsked, drained, uncordonAsked, uncordoned, done time.Time
}

// complete reports whether every moment was seen in order.
func (w nodeWindow) complete() bool {
	ts := []time.Time{w.granted, w.drainAsked, w.drained, w.uncordonAsked, w.uncordoned, w.done}
	for i, t := range ts {
		if t.IsZero() || (i > 0 && t.Before(ts[i-1])) {
			return false
		}
	}
	return true
}

// controller is the time the drain controller took to answer both requests.
func (w nodeWindow) controller() time.Duration {
	return w.drained.Sub(w.drainAsked) + w.uncordoned.Sub(w.uncordonAsked)
}

// windowTracker builds nodeWindows from a node timeline.
type windowTracker map[string]*nodeWindow

// see records the moments s shows for the first time against prev.
func (t windowTracker) see(prev, s nodeSnap, target string) {
	w := t[s.name]
	if prev.desired != target && s.desired == target {
		w = &nodeWindow{granted: s.at}
		t[s.name] = w
	}
	if w == nil {
		return // granted before the rollout's timeline began
	}
	drain, uncordon := constants.DrainRequest(target), constants.UncordonRequest(target)
	mark := func(at *time.Time, now bool) {
		if now && at.IsZero() {
			*at = s.at
		}
	}
	mark(&w.drainAsked, s.desiredDrain == drain)
	mark(&w.drained, s.lastAppliedDrain == drain)
	mark(&w.uncordonAsked, s.desiredDrain == uncordon)
	mark(&w.uncordoned, s.lastAppliedDrain == uncordon && !s.unschedulable)
	mark(&w.done, s.doneAt(target))
}

func (t windowTracker) complete() []nodeWindow {
	out := make([]nodeWindow, 0, len(t))
	for _, w := range t {
		if w.complete() {
			out = append(out, *w)
		}
	}
	return out
}

// WindowReport is the median node update window and its steps, in seconds.
type WindowReport struct {
	Nodes int `json:"nodes"`
	// WindowS: grant to Done (median); its mean and 90th percentile show
	// the tail that a wave waits for.
	WindowS     float64 `json:"window_s"`
	WindowMeanS float64 `json:"window_mean_s"`
	WindowP90S  float64 `json:"window_p90_s"`
	// GrantToDrainAskedS: the daemon takes the grant (its files and, if
	// the stage had not finished, the stage) and asks for the drain.
	GrantToDrainAskedS float64 `json:"grant_to_drain_asked_s"`
	// DrainS: the drain controller cordons, evicts and answers.
	DrainS float64 `json:"drain_s"`
	// DrainedToUncordonAskedS: the daemon finalizes, the simulated reboot,
	// the daemon's checks after the boot.
	DrainedToUncordonAskedS float64 `json:"drained_to_uncordon_asked_s"`
	// UncordonS: the drain controller uncordons and answers.
	UncordonS float64 `json:"uncordon_s"`
	// UncordonedToDoneS: the daemon reports Done.
	UncordonedToDoneS float64 `json:"uncordoned_to_done_s"`
	// ControllerShare: the median of each node's drain-controller time
	// over its window.
	ControllerShare float64 `json:"controller_share"`
}

func windowReport(ws []nodeWindow) WindowReport {
	r := WindowReport{Nodes: len(ws)}
	if len(ws) == 0 {
		return r
	}
	med := func(d func(w nodeWindow) time.Duration) float64 {
		ds := make([]time.Duration, 0, len(ws))
		for _, w := range ws {
			ds = append(ds, d(w))
		}
		return percentile(ds, 0.5).Seconds()
	}
	r.WindowS = med(func(w nodeWindow) time.Duration { return w.done.Sub(w.granted) })
	totals := make([]time.Duration, 0, len(ws))
	var sum time.Duration
	for _, w := range ws {
		totals = append(totals, w.done.Sub(w.granted))
		sum += w.done.Sub(w.granted)
	}
	r.WindowMeanS = (sum / time.Duration(len(ws))).Seconds()
	r.WindowP90S = percentile(totals, 0.9).Seconds()
	r.GrantToDrainAskedS = med(func(w nodeWindow) time.Duration { return w.drainAsked.Sub(w.granted) })
	r.DrainS = med(func(w nodeWindow) time.Duration { return w.drained.Sub(w.drainAsked) })
	r.DrainedToUncordonAskedS = med(func(w nodeWindow) time.Duration { return w.uncordonAsked.Sub(w.drained) })
	r.UncordonS = med(func(w nodeWindow) time.Duration { return w.uncordoned.Sub(w.uncordonAsked) })
	r.UncordonedToDoneS = med(func(w nodeWindow) time.Duration { return w.done.Sub(w.uncordoned) })
	shares := make([]time.Duration, 0, len(ws)) // in millionths, to reuse percentile
	for _, w := range ws {
		if total := w.done.Sub(w.granted); total > 0 {
			shares = append(shares, time.Duration(1e6*w.controller().Seconds()/total.Seconds()))
		}
	}
	r.ControllerShare = float64(percentile(shares, 0.5)) / 1e6
	return r
}

// Line is the window's detail line.
func (r WindowReport) Line() string {
	return fmt.Sprintf("bench-scale: node_window nodes=%d window_s=%.1f window_mean_s=%.1f window_p90_s=%.1f grant_to_drain_asked_s=%.2f drain_s=%.2f drained_to_uncordon_asked_s=%.2f uncordon_s=%.2f uncordoned_to_done_s=%.2f controller_share=%.3f",
		r.Nodes, r.WindowS, r.WindowMeanS, r.WindowP90S, r.GrantToDrainAskedS, r.DrainS, r.DrainedToUncordonAskedS, r.UncordonS, r.UncordonedToDoneS, r.ControllerShare)
}
