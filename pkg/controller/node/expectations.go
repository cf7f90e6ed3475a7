package node

import (
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// expectations remember node writes (annotations set or removed, cordons)
// until the informer cache shows them. Planning on a stale cache could grant
// a node twice the capacity (the cache would not show the grants just made);
// the overlay makes the next decision see the writes. Admission shares one
// set between the deciders of a cluster.
type expectations struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[string]*nodeExpectations // by node
}

type nodeExpectations struct {
	annotations map[string]expected
	// cordon is the expected spec.unschedulable; nil: none.
	cordon *expectedCordon
}

type expected struct {
	value  string
	remove bool // the annotation was removed
	at     time.Time
}

type expectedCordon struct {
	unschedulable bool
	at            time.Time
}

func newExpectations(ttl time.Duration) *expectations {
	return &expectations{ttl: ttl, m: map[string]*nodeExpectations{}}
}

func (e *expectations) of(node string) *nodeExpectations {
	x := e.m[node]
	if x == nil {
		x = &nodeExpectations{annotations: map[string]expected{}}
		e.m[node] = x
	}
	return x
}

func (e *expectations) expect(node, annotation, value string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.of(node).annotations[annotation] = expected{value: value, at: now}
}

// expectUndoable records the expectation and returns what takes it back,
// restoring the one it replaced (a write that was refused).
func (e *expectations) expectUndoable(node, annotation, value string, now time.Time) (undo func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.of(node)
	prev, had := x.annotations[annotation]
	mine := expected{value: value, at: now}
	x.annotations[annotation] = mine
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		x := e.m[node]
		if x == nil || x.annotations[annotation] != mine {
			return // observed, expired or replaced meanwhile
		}
		if had {
			x.annotations[annotation] = prev
		} else {
			delete(x.annotations, annotation)
		}
		e.dropIfEmptyLocked(node)
	}
}

func (e *expectations) expectRemoved(node, annotation string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.of(node).annotations[annotation] = expected{remove: true, at: now}
}

func (e *expectations) expectCordon(node string, unschedulable bool, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.of(node).cordon = &expectedCordon{unschedulable: unschedulable, at: now}
}

// overlay returns the annotations with the unobserved annotation writes
// applied. Observed or expired expectations are dropped.
func (e *expectations) overlay(node string, annotations map[string]string, now time.Time) map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.overlayAnnotationsLocked(node, annotations, now)
}

func (e *expectations) overlayAnnotationsLocked(node string, annotations map[string]string, now time.Time) map[string]string {
	x := e.m[node]
	if x == nil || len(x.annotations) == 0 {
		return annotations
	}
	out := maps.Clone(annotations)
	if out == nil {
		out = map[string]string{}
	}
	for k, want := range x.annotations {
		have, present := annotations[k]
		observed := (want.remove && !present) || (!want.remove && present && have == want.value)
		if observed || now.Sub(want.at) > e.ttl {
			delete(x.annotations, k)
			continue
		}
		if want.remove {
			delete(out, k)
		} else {
			out[k] = want.value
		}
	}
	e.dropIfEmptyLocked(node)
	return out
}

// overlayNode returns n as the unobserved writes leave it: n itself when
// none applies, otherwise a copy.
func (e *expectations) overlayNode(n *corev1.Node, now time.Time) *corev1.Node {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.m[n.Name]
	if x == nil {
		return n
	}
	annotations := e.overlayAnnotationsLocked(n.Name, n.Annotations, now)
	unschedulable := n.Spec.Unschedulable
	if c := x.cordon; c != nil {
		if c.unschedulable == n.Spec.Unschedulable || now.Sub(c.at) > e.ttl {
			x.cordon = nil
		} else {
			unschedulable = c.unschedulable
		}
	}
	e.dropIfEmptyLocked(n.Name)
	if unschedulable == n.Spec.Unschedulable && maps.Equal(annotations, n.Annotations) {
		return n
	}
	// A shallow copy: it shares everything but the annotations with the
	// cached n, which no one writes (informer objects are read-only), and a
	// deep copy of every node with a write in flight was a large part of
	// a plan in a stage wave.
	out := *n
	out.Annotations = annotations
	out.Spec.Unschedulable = unschedulable
	return &out
}

func (e *expectations) dropIfEmptyLocked(node string) {
	if x := e.m[node]; x != nil && len(x.annotations) == 0 && x.cordon == nil {
		delete(e.m, node)
	}
}

func (e *expectations) forget(node string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, node)
}
