package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

// result is what the JSON file holds.
type result struct {
	SizeBytes int64         `json:"size_bytes"`
	SizeGiB   float64       `json:"size_gib"`
	Masters   int           `json:"masters"`
	Workers   int           `json:"workers"`
	RebootS   float64       `json:"reboot_s"`
	Started   time.Time     `json:"started"`
	Command   string        `json:"command"`
	Orders    []orderResult `json:"orders"`
	// StagedWindowS, StockWindowS, Ratio and SavingS are the figures of the
	// line (medians over the workers); zero when an order did not run.
	StagedWindowS float64 `json:"staged_window_s"`
	StockWindowS  float64 `json:"stock_window_s"`
	Ratio         float64 `json:"ratio"`
	SavingS       float64 `json:"saving_s"`
	// OtherDisruptions counts, over both orders, the nodes of other pools
	// cordoned or rebooted during the rollout: it must be 0.
	OtherDisruptions int `json:"other_disruptions"`
}

// orderResult is one order's rollout.
type orderResult struct {
	Order daemon.UpdateOrder `json:"order"`
	// WindowsS is each worker's disruption window (cordon to uncordon,
	// summed over the rollout) in seconds; MedianWindowS the figure.
	WindowsS      map[string]float64 `json:"windows_s"`
	MedianWindowS float64            `json:"median_window_s"`
	MeanWindowS   float64            `json:"mean_window_s"`
	RolloutS      float64            `json:"rollout_s"`
	Reboots       map[string]int     `json:"reboots"`
	// OtherDisruptions names the nodes outside the worker pool that were
	// cordoned or rebooted during the rollout, with what happened.
	OtherDisruptions []string `json:"other_disruptions,omitempty"`
	// Invariants the world checked that did not hold (the etcd ones cannot
	// with the masters left alone, e.g. "exactly one etcd leader change").
	InvariantsNotHeld []string `json:"invariants_not_held,omitempty"`
	// OtherWindowsS are the windows of nodes outside the worker pool.
	OtherWindowsS map[string]float64 `json:"other_windows_s,omitempty"`
}

// windowsOf returns the median and mean of the measured nodes' windows and
// the windows in seconds. Every measured node must have had a window: a
// node that was never cordoned did not update the way the benchmark
// assumes.
func windowsOf(windows map[string]time.Duration, measured []string) (median, mean float64, per map[string]float64, err error) {
	if len(measured) == 0 {
		return 0, 0, nil, fmt.Errorf("no node to measure")
	}
	per = map[string]float64{}
	var all []float64
	for _, n := range measured {
		w, ok := windows[n]
		if !ok || w <= 0 {
			return 0, 0, nil, fmt.Errorf("node %s has no disruption window (never seen cordoned and uncordoned)", n)
		}
		per[n] = w.Seconds()
		all = append(all, w.Seconds())
		mean += w.Seconds()
	}
	slices.Sort(all)
	median = all[len(all)/2]
	if len(all)%2 == 0 {
		median = (all[len(all)/2-1] + all[len(all)/2]) / 2
	}
	return median, mean / float64(len(all)), per, nil
}

// otherDisruptions lists the nodes outside measured that were cordoned or
// rebooted during the rollout.
func otherDisruptions(windows map[string]time.Duration, reboots map[string]int, measured []string) []string {
	var out []string
	for name, w := range windows {
		if !slices.Contains(measured, name) && w > 0 {
			out = append(out, fmt.Sprintf("%s cordoned %.1fs", name, w.Seconds()))
		}
	}
	for name, n := range reboots {
		if !slices.Contains(measured, name) && n > 0 {
			out = append(out, fmt.Sprintf("%s rebooted %d times", name, n))
		}
	}
	sort.Strings(out)
	return out
}

// finish fills the line's figures from the orders that ran.
func (r *result) finish() {
	r.OtherDisruptions = 0
	for _, o := range r.Orders {
		switch o.Order {
		case daemon.OrderStaged:
			r.StagedWindowS = o.MedianWindowS
		case daemon.OrderStock:
			r.StockWindowS = o.MedianWindowS
		}
		r.OtherDisruptions += len(o.OtherDisruptions)
	}
	r.Ratio, r.SavingS = 0, 0
	if r.StagedWindowS > 0 && r.StockWindowS > 0 {
		r.Ratio = r.StagedWindowS / r.StockWindowS
		r.SavingS = r.StockWindowS - r.StagedWindowS
	}
}

func (r *result) otherDetail() string {
	var parts []string
	for _, o := range r.Orders {
		if len(o.OtherDisruptions) > 0 {
			parts = append(parts, fmt.Sprintf("[%s] %s", o.Order, strings.Join(o.OtherDisruptions, ", ")))
		}
	}
	return strings.Join(parts, "; ")
}

// Line is the result line; empty unless both orders ran.
func (r *result) Line() string {
	if r.Ratio == 0 {
		return ""
	}
	return fmt.Sprintf("bench-disruption: size_gib=%.2f staged_window_s=%.2f stock_window_s=%.2f ratio=%.3f other_disruptions=%d saving_s=%.2f reboot_s=%g workers=%d",
		r.SizeGiB, r.StagedWindowS, r.StockWindowS, r.Ratio, r.OtherDisruptions, r.SavingS, r.RebootS, r.Workers)
}
