package node

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// recordingWriter records the writes, and how many were in flight at once.
type recordingWriter struct {
	concurrency int
	failOn      string // node whose write fails (refused: a conflict)
	delay       time.Duration

	mu          sync.Mutex
	order       []string // node/key, in the order the writes started
	inFlight    int
	maxInFlight int
}

func (w *recordingWriter) Concurrency() int { return w.concurrency }

func (w *recordingWriter) SetAnnotation(_ context.Context, node, key, _ string) error {
	w.mu.Lock()
	w.order = append(w.order, node+"/"+key)
	w.inFlight++
	w.maxInFlight = max(w.maxInFlight, w.inFlight)
	w.mu.Unlock()
	time.Sleep(w.delay)
	w.mu.Lock()
	w.inFlight--
	w.mu.Unlock()
	if node == w.failOn {
		return errors.New("refused")
	}
	return nil
}

func (w *recordingWriter) RemoveAnnotation(context.Context, string, string) error { return nil }

func (w *recordingWriter) RevokeGrant(context.Context, Revocation) error { return nil }

// sequentialWriter is a NodeWriter without Concurrency.
type sequentialWriter struct{ *recordingWriter }

func (w sequentialWriter) SetAnnotation(ctx context.Context, node, key, value string) error {
	return w.recordingWriter.SetAnnotation(ctx, node, key, value)
}

func (w sequentialWriter) RemoveAnnotation(context.Context, string, string) error { return nil }

func plannedWrites(grants, stages int) []assignmentWrite {
	var out []assignmentWrite
	for i := range grants {
		out = append(out, assignmentWrite{Assignment{Node: string(rune('a' + i)), Config: newCfg}, constants.DesiredConfigAnnotation})
	}
	for i := range stages {
		out = append(out, assignmentWrite{Assignment{Node: string(rune('A' + i)), Config: newCfg}, constants.StageConfigAnnotation})
	}
	return out
}

func TestWriteAssignments(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("a writer without concurrency gets one write at a time, in order", func(t *testing.T) {
		w := &recordingWriter{}
		if err := writeAssignments(context.Background(), NewAdmission(), sequentialWriter{w}, plannedWrites(2, 2), now); err != nil {
			t.Fatal(err)
		}
		want := []string{"a/" + constants.DesiredConfigAnnotation, "b/" + constants.DesiredConfigAnnotation,
			"A/" + constants.StageConfigAnnotation, "B/" + constants.StageConfigAnnotation}
		if len(w.order) != len(want) || w.maxInFlight != 1 {
			t.Fatalf("order %v (max in flight %d), want %v one at a time", w.order, w.maxInFlight, want)
		}
		for i := range want {
			if w.order[i] != want[i] {
				t.Fatalf("order %v, want %v", w.order, want)
			}
		}
	})
	t.Run("a concurrent writer gets every write, never more in flight than it allows", func(t *testing.T) {
		w := &recordingWriter{concurrency: 4, delay: 5 * time.Millisecond}
		adm := NewAdmission()
		if err := writeAssignments(context.Background(), adm, w, plannedWrites(6, 20), now); err != nil {
			t.Fatal(err)
		}
		if len(w.order) != 26 || w.maxInFlight > 4 || w.maxInFlight < 2 {
			t.Errorf("%d writes, max in flight %d; want 26 and 2..4 at once", len(w.order), w.maxInFlight)
		}
		// Grants start first.
		for i := range 4 {
			if k := w.order[i]; k[len(k)-len(constants.DesiredConfigAnnotation):] != constants.DesiredConfigAnnotation {
				t.Errorf("write %d started was %s, want the grants first", i, k)
			}
		}
		// Every write is expected (the overlay shows it before the cache does).
		n := ViewOfNode(adm.Node(cachedNode("a", oldCfg), now))
		if n.Desired != newCfg {
			t.Errorf("grant of a not expected: desired %q", n.Desired)
		}
	})
	t.Run("after a failure no new write starts and the failure is returned", func(t *testing.T) {
		w := &recordingWriter{concurrency: 2, failOn: "a", delay: 5 * time.Millisecond}
		err := writeAssignments(context.Background(), NewAdmission(), w, plannedWrites(1, 30), now)
		if err == nil {
			t.Fatal("the failed write was not reported")
		}
		if len(w.order) >= 31 {
			t.Errorf("all %d writes were made after the first failed", len(w.order))
		}
	})
}
