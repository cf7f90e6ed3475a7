package node

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// planTimer times one pool's decision inside AdmitPool without touching
// it: from listing the nodes (under the admission lock) to the first write,
// or to AdmitPool's return when the plan writes nothing. That is the
// cache read, the views and Plan: what tandem_mcc_plan_duration_seconds
// reports. It passes the wrapped writer's concurrency on, so that timing a
// plan does not make its writes one at a time.
type planTimer struct {
	list  func() ([]*corev1.Node, error)
	w     NodeWriter
	start time.Time
	once  sync.Once
	end   time.Time
}

func (t *planTimer) listNodes() ([]*corev1.Node, error) {
	t.start = time.Now()
	return t.list()
}

func (t *planTimer) written() { t.once.Do(func() { t.end = time.Now() }) }

func (t *planTimer) SetAnnotation(ctx context.Context, node, key, value string) error {
	t.written()
	return t.w.SetAnnotation(ctx, node, key, value)
}

func (t *planTimer) RemoveAnnotation(ctx context.Context, node, key string) error {
	t.written()
	return t.w.RemoveAnnotation(ctx, node, key)
}

func (t *planTimer) RevokeGrant(ctx context.Context, r Revocation) error {
	t.written()
	return t.w.RevokeGrant(ctx, r)
}

// Concurrency is the wrapped writer's (1 when it is not a ConcurrentWriter).
func (t *planTimer) Concurrency() int {
	if cw, ok := t.w.(ConcurrentWriter); ok {
		return max(cw.Concurrency(), 1)
	}
	return 1
}

// decided returns the decision's duration (0 if the nodes were never
// listed); a plan that wrote nothing ends when it is asked. It is read after
// AdmitPool returned, when no write is in flight.
func (t *planTimer) decided() time.Duration {
	if t.start.IsZero() {
		return 0
	}
	t.written()
	return t.end.Sub(t.start)
}
