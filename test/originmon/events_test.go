package originmon

import (
	"strings"
	"testing"
	"time"
)

// TestJudgeTimelines judges timelines by the order origin's node state
// analysis reads (pkg/monitortests/node/nodestateanalyzer) and the
// OSUpdateStaged test's bound (legacycvomonitortests/operators.go
// testOperatorOSUpdateStaged), written from those files, not from the
// daemon's event code.
func TestJudgeTimelines(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	good := []NodeEvent{{at(0), "OSUpdateStarted"}, {at(30), "OSUpdateStaged"}, {at(40), "Drain"}, {at(50), "Reboot"}, {at(90), "NodeDone"}}
	tests := []struct {
		name      string
		events    []NodeEvent
		wantStage time.Duration
		wantProb  string
	}{
		{"a whole update", good, 30 * time.Second, ""},
		{"no OSUpdateStaged", []NodeEvent{good[0], good[2], good[3], good[4]}, 0, "no OSUpdateStaged"},
		{"drained before staged", []NodeEvent{good[0], {at(20), "Drain"}, good[1], good[3], good[4]}, 0, "Drain before OSUpdateStaged"},
		{"two reboots", append(append([]NodeEvent{}, good...), NodeEvent{at(95), "Reboot"}), 0, "2 Reboot events"},
		{"NodeDone before the reboot", []NodeEvent{good[0], good[1], good[2], {at(45), "NodeDone"}, {at(50), "Reboot"}}, 0, "NodeDone before Reboot"},
		{"staged before started", []NodeEvent{{at(0), "OSUpdateStaged"}, {at(5), "OSUpdateStarted"}, good[3], good[4]}, 0, "OSUpdateStaged before OSUpdateStarted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			staged, problems := JudgeTimelines(map[string][]NodeEvent{"n": tc.events}, []string{"n"})
			if tc.wantProb == "" {
				if len(problems) != 0 || staged != tc.wantStage {
					t.Fatalf("got staged %s, problems %v; want %s and none", staged, problems, tc.wantStage)
				}
				return
			}
			if len(problems) == 0 || !strings.Contains(strings.Join(problems, ";"), tc.wantProb) {
				t.Fatalf("problems %v, want one with %q", problems, tc.wantProb)
			}
		})
	}
}
