package node

import (
	"context"
	"sync"
	"time"
)

// Backoff of the etcd snapshots while etcd is unreachable.
const (
	minEtcdBackoff = time.Second
	maxEtcdBackoff = 30 * time.Second
)

// etcdSnapshots hands out etcd snapshots for pool syncs. A reachable etcd is
// asked for every plan (leader and health must be fresh); while it is
// unreachable, the failed snapshot is handed out again until a backoff
// (doubling from 1 s to 30 s) has passed, so that every pool's sync does not
// wait on another dial timeout. One ask at a time: concurrent syncs share it.
type etcdSnapshots struct {
	src EtcdSource
	now func() time.Time

	mu      sync.Mutex
	failed  EtcdFacts // the last snapshot, while it failed
	retryAt time.Time
	backoff time.Duration
}

func newEtcdSnapshots(src EtcdSource, now func() time.Time) *etcdSnapshots {
	return &etcdSnapshots{src: src, now: now}
}

// get returns a fresh snapshot, or the failed one during the backoff.
func (e *etcdSnapshots) get(ctx context.Context) EtcdFacts {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failed != nil && e.now().Before(e.retryAt) {
		return e.failed
	}
	f := e.src.Facts(ctx)
	if f.Err() == nil {
		e.failed, e.backoff = nil, 0
		return f
	}
	e.backoff = min(max(2*e.backoff, minEtcdBackoff), maxEtcdBackoff)
	e.failed, e.retryAt = f, e.now().Add(e.backoff)
	return f
}
