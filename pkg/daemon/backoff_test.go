package daemon

import (
	"testing"
	"time"
)

// TestNextBackoff replays step sequences through the retry pause. The case
// that matters: a stage that fails after a step that succeeded (the state
// set to Working each turn) must still back off, not retry every 200 ms.
func TestNextBackoff(t *testing.T) {
	type step struct {
		kind   ActionKind
		failed bool
	}
	fail := step{ActStage, true}
	working := step{ActSetWorking, false}
	wait := step{ActWait, false}
	for _, tc := range []struct {
		name  string
		steps []step
		want  []time.Duration
	}{
		{"failures double up to the ceiling", []step{fail, fail, fail, fail, fail, fail},
			[]time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 2 * time.Second, 2 * time.Second}},
		{"a successful step between failures keeps the pause", []step{fail, working, fail, working, fail},
			[]time.Duration{200 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
		{"a wait clears it", []step{fail, fail, wait, fail},
			[]time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 0, 200 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := time.Duration(0)
			for i, s := range tc.steps {
				b = nextBackoff(b, s.kind, s.failed, 2*time.Second)
				if b != tc.want[i] {
					t.Fatalf("step %d (%v failed=%v): backoff %v, want %v", i, s.kind, s.failed, b, tc.want[i])
				}
			}
		})
	}
}
