package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

func TestMeanWindow(t *testing.T) {
	windows := map[string]time.Duration{"worker-0": 4 * time.Second, "worker-1": 6 * time.Second, "dpu-0": time.Minute}
	mean, per, err := meanWindow(windows, []string{"worker-1", "worker-0"})
	if err != nil {
		t.Fatal(err)
	}
	if mean != 5 || per["worker-0"] != 4 || per["worker-1"] != 6 || len(per) != 2 {
		t.Errorf("mean %v per %v", mean, per)
	}
	if _, _, err := meanWindow(windows, []string{"worker-0", "worker-2"}); err == nil || !strings.Contains(err.Error(), "worker-2") {
		t.Errorf("a worker without a window was accepted: %v", err)
	}
	if _, _, err := meanWindow(windows, nil); err == nil {
		t.Error("an empty measurement was accepted")
	}
}

func TestResultLine(t *testing.T) {
	r := result{SizeGiB: 1, Orders: []orderResult{
		{Order: daemon.OrderStaged, MeanWindowS: 5},
		{Order: daemon.OrderStock, MeanWindowS: 40},
	}}
	r.finish()
	want := "bench-disruption: size_gib=1.00 staged_window_s=5.00 stock_window_s=40.00 ratio=0.125"
	if got := r.Line(); got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	only := result{SizeGiB: 1, Orders: []orderResult{{Order: daemon.OrderStaged, MeanWindowS: 5}}}
	only.finish()
	if got := only.Line(); got != "" {
		t.Errorf("line with one order: %q", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "1.5GiB": 3 << 29, "512MiB": 512 << 20, "4096": 4096} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"GiB", "-1GiB", "lots"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}
