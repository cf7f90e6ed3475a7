package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

func TestWindowsOf(t *testing.T) {
	windows := map[string]time.Duration{"worker-0": 4 * time.Second, "worker-1": 6 * time.Second, "worker-2": 20 * time.Second, "master-0": time.Minute}
	median, mean, per, err := windowsOf(windows, []string{"worker-1", "worker-0", "worker-2"})
	if err != nil {
		t.Fatal(err)
	}
	if median != 6 || mean != 10 || per["worker-0"] != 4 || len(per) != 3 {
		t.Errorf("median %v mean %v per %v", median, mean, per)
	}
	if median, _, _, _ := windowsOf(windows, []string{"worker-0", "worker-1"}); median != 5 {
		t.Errorf("median of two = %v, want 5", median)
	}
	if _, _, _, err := windowsOf(windows, []string{"worker-0", "worker-3"}); err == nil || !strings.Contains(err.Error(), "worker-3") {
		t.Errorf("a worker without a window was accepted: %v", err)
	}
	if _, _, _, err := windowsOf(windows, nil); err == nil {
		t.Error("an empty measurement was accepted")
	}
}

// A master cordoned or rebooted during the workers' rollout is a
// disruption of another pool; the workers' own are not.
func TestOtherDisruptions(t *testing.T) {
	workers := []string{"worker-0", "worker-1"}
	got := otherDisruptions(map[string]time.Duration{"worker-0": time.Second, "master-0": 3 * time.Second, "master-1": 0},
		map[string]int{"worker-0": 1, "master-0": 1, "master-1": 0}, workers)
	want := []string{"master-0 cordoned 3.0s", "master-0 rebooted 1 times"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("other disruptions %q, want %q", got, want)
	}
	if got := otherDisruptions(map[string]time.Duration{"worker-0": time.Second}, map[string]int{"worker-0": 1}, workers); len(got) != 0 {
		t.Errorf("workers' own disruptions counted: %v", got)
	}
}

func TestResultLine(t *testing.T) {
	r := result{SizeGiB: 1, Workers: 3, RebootS: 60, Orders: []orderResult{
		{Order: daemon.OrderStaged, MedianWindowS: 65},
		{Order: daemon.OrderStock, MedianWindowS: 80, OtherDisruptions: []string{"master-0 rebooted 1 times"}},
	}}
	r.finish()
	want := "bench-disruption: size_gib=1.00 staged_window_s=65.00 stock_window_s=80.00 ratio=0.812 other_disruptions=1 saving_s=15.00 reboot_s=60 workers=3"
	if got := r.Line(); got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	only := result{SizeGiB: 1, Orders: []orderResult{{Order: daemon.OrderStaged, MedianWindowS: 5}}}
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
