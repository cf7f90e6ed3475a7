package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventSource is the component the MCO's daemon records its node events
// as (pkg/daemon/daemon.go, eventBroadcaster.NewRecorder with
// Component "machineconfigdaemon", release-4.21).
const eventSource = "machineconfigdaemon"

// Event records an event about the node, as client-go's recorder would
// (tools/record/event.go makeEvent: a cluster-scoped object's events go to
// namespace default, named <object>.<unix nanos in hex>). It is written
// directly rather than through a broadcaster: the daemon records few
// events, and a broadcaster's goroutine and its lost-on-exit queue would
// hide a failed write.
func (c *Client) Event(ctx context.Context, eventType, reason, message string) error {
	now := time.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%v.%x", c.NodeName, now.UnixNano()),
			Namespace: metav1.NamespaceDefault,
		},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: c.NodeName, UID: "", APIVersion: "v1"},
		Reason:         reason,
		Message:        message,
		Type:           eventType,
		Source:         corev1.EventSource{Component: eventSource, Host: c.NodeName},
		FirstTimestamp: metav1.NewTime(now),
		LastTimestamp:  metav1.NewTime(now),
		Count:          1,
	}
	if _, err := c.Kube.CoreV1().Events(metav1.NamespaceDefault).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("recording event %s on node %s: %w", reason, c.NodeName, err)
	}
	return nil
}
