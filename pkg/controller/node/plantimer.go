package node

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// planTimer times one pool's decision inside AdmitPool without touching
// it: from listing the nodes (under the admission lock) to the first write,
// or to AdmitPool's return when the plan writes nothing. That is the
// cache read, the views and Plan: what tandem_mcc_plan_duration_seconds
// reports.
type planTimer struct {
	list  func() ([]*corev1.Node, error)
	w     NodeWriter
	start time.Time
	end   time.Time
}

func (t *planTimer) listNodes() ([]*corev1.Node, error) {
	t.start = time.Now()
	return t.list()
}

func (t *planTimer) SetAnnotation(ctx context.Context, node, key, value string) error {
	if t.end.IsZero() {
		t.end = time.Now()
	}
	return t.w.SetAnnotation(ctx, node, key, value)
}

func (t *planTimer) RemoveAnnotation(ctx context.Context, node, key string) error {
	if t.end.IsZero() {
		t.end = time.Now()
	}
	return t.w.RemoveAnnotation(ctx, node, key)
}

// decided returns the decision's duration (0 if the nodes were never listed).
func (t *planTimer) decided() time.Duration {
	if t.start.IsZero() {
		return 0
	}
	if t.end.IsZero() {
		return time.Since(t.start)
	}
	return t.end.Sub(t.start)
}
