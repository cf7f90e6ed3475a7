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

// Event records an event about the node in namespace, as client-go's
// recorder would (tools/record/event.go makeEvent: named <object>.<unix
// nanos in hex>; the event's namespace is the reference's, default when it
// has none, so a namespace other than default is put in the reference, as
// the MCO's NamespacedEventRecorder does). It is written
// directly rather than through a broadcaster: the daemon records few
// events, and a broadcaster's goroutine and its lost-on-exit queue would
// hide a failed write.
func (c *Client) Event(ctx context.Context, namespace, eventType, reason, message string) error {
	now := time.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%v.%x", c.NodeName, now.UnixNano()),
			Namespace: namespace,
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
	if namespace != metav1.NamespaceDefault {
		ev.InvolvedObject.Namespace = namespace
	}
	if _, err := c.Kube.CoreV1().Events(namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("recording event %s on node %s: %w", reason, c.NodeName, err)
	}
	return nil
}
