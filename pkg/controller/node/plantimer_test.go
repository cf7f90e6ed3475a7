package node

import (
	"context"
	"testing"
	"time"
)

// The controller writes through a planTimer; timing a plan must not make a
// stage wave's writes one at a time (it did: the timer hid the kube
// writer's Concurrency, and a 1,000-node wave held the admission lock for
// a round trip per node).
func TestPlanTimerKeepsTheWritersConcurrency(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &recordingWriter{concurrency: 4, delay: 5 * time.Millisecond}
	timer := &planTimer{w: w}
	if err := writeAssignments(context.Background(), NewAdmission(), timer, plannedWrites(2, 20), now); err != nil {
		t.Fatal(err)
	}
	if len(w.order) != 22 || w.maxInFlight < 2 || w.maxInFlight > 4 {
		t.Errorf("%d writes, max in flight %d: want 22, 2..4 at once", len(w.order), w.maxInFlight)
	}
	seq := &recordingWriter{}
	if c := (&planTimer{w: sequentialWriter{seq}}).Concurrency(); c != 1 {
		t.Errorf("a timer over a writer without concurrency says %d, want 1", c)
	}
}

// The decision ends at the first write, or when asked if nothing was written.
func TestPlanTimerEndsAtTheFirstWrite(t *testing.T) {
	w := &recordingWriter{}
	timer := &planTimer{w: w, start: time.Now().Add(-time.Second)}
	if err := timer.SetAnnotation(context.Background(), "n", "k", "v"); err != nil {
		t.Fatal(err)
	}
	first := timer.end
	time.Sleep(10 * time.Millisecond)
	_ = timer.SetAnnotation(context.Background(), "m", "k", "v")
	if d := timer.decided(); timer.end != first || d < time.Second || d > time.Second+5*time.Millisecond+time.Since(first) {
		t.Errorf("decided %s, end moved from %s to %s: want the first write's time", d, first, timer.end)
	}
	idle := &planTimer{w: w, start: time.Now()}
	if d := idle.decided(); d < 0 || d > time.Second {
		t.Errorf("a plan that wrote nothing decided in %s", d)
	}
	if d := (&planTimer{}).decided(); d != 0 {
		t.Errorf("a timer that never listed says %s, want 0", d)
	}
}
