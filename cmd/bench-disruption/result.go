package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

// result is what the JSON file holds.
type result struct {
	SizeBytes int64         `json:"size_bytes"`
	SizeGiB   float64       `json:"size_gib"`
	Masters   int           `json:"masters"`
	Workers   int           `json:"workers"`
	Started   time.Time     `json:"started"`
	Command   string        `json:"command"`
	Orders    []orderResult `json:"orders"`
	// StagedWindowS, StockWindowS and Ratio are the figures of the line;
	// zero when an order did not run.
	StagedWindowS float64 `json:"staged_window_s"`
	StockWindowS  float64 `json:"stock_window_s"`
	Ratio         float64 `json:"ratio"`
}

// orderResult is one order's rollout.
type orderResult struct {
	Order daemon.UpdateOrder `json:"order"`
	// WindowsS is each measured worker's disruption window (cordon to
	// uncordon, summed over the rollout) in seconds.
	WindowsS    map[string]float64 `json:"windows_s"`
	MeanWindowS float64            `json:"mean_window_s"`
	// WorkersDoneS is when the last measured worker was done, from the
	// publication of the update; RolloutS the whole rollout (the other
	// pools update after the workers).
	WorkersDoneS float64        `json:"workers_done_s"`
	RolloutS     float64        `json:"rollout_s"`
	Reboots      map[string]int `json:"reboots"`
	// Invariants the world checked that did not hold (some cannot with a
	// single master, e.g. "exactly one etcd leader change").
	InvariantsNotHeld []string `json:"invariants_not_held,omitempty"`
	// OtherWindowsS are the windows of nodes left out of the mean.
	OtherWindowsS map[string]float64 `json:"other_windows_s,omitempty"`
}

// meanWindow returns the mean of the measured nodes' windows and the
// windows in seconds. Every measured node must have had a window: a node
// that was never cordoned did not update the way the benchmark assumes.
func meanWindow(windows map[string]time.Duration, measured []string) (float64, map[string]float64, error) {
	if len(measured) == 0 {
		return 0, nil, fmt.Errorf("no node to measure")
	}
	sort.Strings(measured)
	out := map[string]float64{}
	var sum time.Duration
	for _, n := range measured {
		w, ok := windows[n]
		if !ok || w <= 0 {
			return 0, nil, fmt.Errorf("node %s has no disruption window (never seen cordoned and uncordoned)", n)
		}
		out[n] = w.Seconds()
		sum += w
	}
	return sum.Seconds() / float64(len(measured)), out, nil
}

// finish fills the line's figures from the orders that ran.
func (r *result) finish() {
	for _, o := range r.Orders {
		switch o.Order {
		case daemon.OrderStaged:
			r.StagedWindowS = o.MeanWindowS
		case daemon.OrderStock:
			r.StockWindowS = o.MeanWindowS
		}
	}
	r.Ratio = 0
	if r.StagedWindowS > 0 && r.StockWindowS > 0 {
		r.Ratio = r.StagedWindowS / r.StockWindowS
	}
}

// Line is the result line; empty unless both orders ran.
func (r *result) Line() string {
	if r.Ratio == 0 {
		return ""
	}
	return fmt.Sprintf("bench-disruption: size_gib=%.2f staged_window_s=%.2f stock_window_s=%.2f ratio=%.3f",
		r.SizeGiB, r.StagedWindowS, r.StockWindowS, r.Ratio)
}
