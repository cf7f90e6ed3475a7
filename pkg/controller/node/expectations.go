package node

import (
	"sync"
	"time"
)

// expectations remembers the annotations this controller wrote until the
// informer cache shows them. Planning on a stale cache could grant a node
// twice the capacity (the cache would not show the grants just made); the
// overlay makes the next plan see its own writes.
type expectations struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[string]map[string]expected // node -> annotation -> value
}

type expected struct {
	value string
	at    time.Time
}

func newExpectations(ttl time.Duration) *expectations {
	return &expectations{ttl: ttl, m: map[string]map[string]expected{}}
}

func (e *expectations) expect(node, annotation, value string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m[node] == nil {
		e.m[node] = map[string]expected{}
	}
	e.m[node][annotation] = expected{value: value, at: now}
}

// overlay returns the annotations with this controller's unobserved writes
// applied. Observed or expired expectations are dropped.
func (e *expectations) overlay(node string, annotations map[string]string, now time.Time) map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp := e.m[node]
	if len(exp) == 0 {
		return annotations
	}
	out := make(map[string]string, len(annotations)+len(exp))
	for k, v := range annotations {
		out[k] = v
	}
	for k, x := range exp {
		if annotations[k] == x.value || now.Sub(x.at) > e.ttl {
			delete(exp, k)
			continue
		}
		out[k] = x.value
	}
	if len(exp) == 0 {
		delete(e.m, node)
	}
	return out
}

func (e *expectations) forget(node string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, node)
}
