package node

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// flakyWriter applies every write but a refused one to applied, and answers
// each with fail(key) (nil: success).
type flakyWriter struct {
	applied map[string]map[string]string
	fail    func(key string) error
}

func (w *flakyWriter) SetAnnotation(_ context.Context, node, key, value string) error {
	err := w.fail(key)
	if !apierrors.IsConflict(err) { // a conflict is the one answer here that says "not applied"
		if w.applied[node] == nil {
			w.applied[node] = map[string]string{}
		}
		w.applied[node][key] = value
	}
	return err
}

func (w *flakyWriter) RemoveAnnotation(_ context.Context, node, key string) error {
	err := w.fail(key)
	if !apierrors.IsConflict(err) {
		delete(w.applied[node], key)
	}
	return err
}

// RevokeGrant is a desiredConfig write (a refusal stands for a failed test op).
func (w *flakyWriter) RevokeGrant(ctx context.Context, r Revocation) error {
	return w.SetAnnotation(ctx, r.Node, constants.DesiredConfigAnnotation, r.Current)
}

func (w *flakyWriter) granted() []string {
	var out []string
	for n, a := range w.applied {
		if a[constants.DesiredConfigAnnotation] == newCfg {
			out = append(out, n)
		}
	}
	return out
}

// TestAdmitPoolExpectsWritesBeforeTheyAnswer: issue 16 found that annotate
// recorded its expectation only after a successful patch. A grant whose
// patch timed out but was applied was missing from the overlay, so the next
// decider reading through the admission (the HostMaintenance controller, or
// the planner's next plan) on a cache that does not show it yet saw the
// pool's place free.
func TestAdmitPoolExpectsWritesBeforeTheyAnswer(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	cached := []*corev1.Node{cachedNode("a", oldCfg), cachedNode("b", oldCfg), cachedNode("c", oldCfg)}
	stale := func() ([]*corev1.Node, error) { return cached, nil } // never shows the writes
	timeout := apierrors.NewTimeoutError("the server was too slow", 1)
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "a", errors.New("changed"))
	p := pool("worker") // maxUnavailable 1
	grantsFail := func(err error) func(string) error {
		return func(key string) error {
			if key == constants.DesiredConfigAnnotation {
				return err
			}
			return nil
		}
	}
	// unavailableSeen is what the next decider sees through the admission.
	unavailableSeen := func(adm *Admission) (n int) {
		for _, c := range cached {
			if ViewOfNode(adm.Node(c, now)).Unavailable() {
				n++
			}
		}
		return n
	}

	t.Run("a timed-out grant that applied uses the place", func(t *testing.T) {
		adm := NewAdmission()
		w := &flakyWriter{applied: map[string]map[string]string{}, fail: grantsFail(timeout)}
		if _, _, err := AdmitPool(context.Background(), adm, p, stale, Facts{Now: now}, w); err == nil {
			t.Fatal("the timeout was not reported")
		}
		if g := w.granted(); len(g) != 1 {
			t.Fatalf("granted %v, want one grant (applied, answered with a timeout)", g)
		}
		if u := unavailableSeen(adm); u != 1 {
			t.Errorf("through the admission %d nodes are unavailable after an applied grant, want 1", u)
		}
		r, _, _ := AdmitPool(context.Background(), adm, p, stale, Facts{Now: now.Add(time.Second)}, w)
		if len(r.Grant) != 0 || len(w.granted()) != 1 {
			t.Errorf("the next plan granted %v (granted now %v) with the place taken", r.Grant, w.granted())
		}
	})
	t.Run("a refused grant does not use the place", func(t *testing.T) {
		adm := NewAdmission()
		w := &flakyWriter{applied: map[string]map[string]string{}, fail: grantsFail(conflict)}
		_, _, _ = AdmitPool(context.Background(), adm, p, stale, Facts{Now: now}, w)
		if g := w.granted(); len(g) != 0 {
			t.Fatalf("a refused write was applied: %v", g)
		}
		if u := unavailableSeen(adm); u != 0 {
			t.Errorf("through the admission %d nodes are unavailable after a refused grant, want 0", u)
		}
	})
}

// countingEtcd counts the snapshots asked for.
type countingEtcd struct {
	asks int
	f    EtcdFacts
}

func (c *countingEtcd) Facts(context.Context) EtcdFacts          { c.asks++; return c.f }
func (c *countingEtcd) MoveLeader(context.Context, string) error { return nil }

// TestEtcdSnapshotsBackOffWhileUnreachable: issue 16 found etcd asked again
// on every pool sync while unreachable (each ask a dial timeout).
func TestEtcdSnapshotsBackOffWhileUnreachable(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	src := &countingEtcd{f: fakeEtcd{err: errUnreachable}}
	c := &Controller{opts: Options{Etcd: src}}
	c.etcd = newEtcdSnapshots(src, func() time.Time { return now })
	ctx := context.Background()
	for range 10 { // ten pool syncs in the same second
		if f := c.etcd.get(ctx); f.Err() == nil {
			t.Fatal("an unreachable snapshot lost its error")
		}
	}
	if src.asks != 1 {
		t.Errorf("etcd asked %d times by 10 syncs within the backoff, want 1", src.asks)
	}
	now = now.Add(minEtcdBackoff)
	c.etcd.get(ctx)
	now = now.Add(minEtcdBackoff) // the backoff doubled: not yet
	c.etcd.get(ctx)
	if src.asks != 2 {
		t.Errorf("asks = %d after 2 s, want 2 (1 s, then 2 s backoff)", src.asks)
	}
	src.f = etcd3("m0")
	now = now.Add(maxEtcdBackoff)
	c.etcd.get(ctx)
	c.etcd.get(ctx)
	if src.asks != 4 {
		t.Errorf("asks = %d, want every sync to ask a reachable etcd", src.asks)
	}
}
