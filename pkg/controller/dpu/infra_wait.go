package dpu

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// The infra planner's wait for a tenant host to drain. The gate notices it
// (the planner asks to grant a node and the host is not drained), the
// node's sync writes its start on the infra node and reports it. The start
// on the node is what counts, so a restarted controller reports the same
// hold time, overdue metric and event as the one before.

// holdSinceOf reads TenantHoldSinceAnnotation.
func holdSinceOf(n *corev1.Node) (time.Time, bool) {
	return annotationTime(n, constants.TenantHoldSinceAnnotation)
}

// annotationTime reads an RFC 3339 time the controller recorded on a node;
// false when absent or unreadable (a bad value is replaced by the next
// record).
func annotationTime(n *corev1.Node, key string) (time.Time, bool) {
	v, ok := n.Annotations[key]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// verdict is the gate's decision for one infra node. A veto starts (or
// continues) the node's wait, which the node's sync records and reports
// and, on demand, answers with a drain request.
func (c *InfraController) verdict(n *corev1.Node, host string) (bool, string) {
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.waiting[n.Name]
	fresh := !ok || w.host != host
	if fresh {
		w = wait1{host: host, since: now}
		if since, recorded := holdSinceOf(n); recorded {
			w.since = since
		}
	}
	allowed, reason, _ := GateVerdict(GateInput{Mode: c.opts.Mode, Node: n.Name, Host: host, Requests: c.requestsFor(host),
		WaitingSince: w.since, Now: now, Threshold: c.opts.HoldThreshold})
	switch {
	case allowed:
		delete(c.waiting, n.Name)
	case fresh:
		c.waiting[n.Name] = w
		c.queue.Add(n.Name)
	}
	return allowed, reason
}

// reportWait records the start of the node's wait on the node, keeps the
// hold metrics and the overdue event, and ends the wait once the host is
// drained, the node granted, or the update no longer waitable (waitable:
// the node needs its unpaused pool's target).
func (c *InfraController) reportWait(ctx context.Context, n *corev1.Node, host string, waitable bool) error {
	c.mu.Lock()
	w, inMemory := c.waiting[n.Name]
	c.mu.Unlock()
	recorded, hasRecord := holdSinceOf(n)
	if !inMemory && !hasRecord {
		c.forgetWait(n.Name)
		return nil
	}
	since := w.since
	if hasRecord {
		since = recorded
	}
	now := c.opts.Now()
	allowed, reason, overdue := GateVerdict(GateInput{Mode: c.opts.Mode, Node: n.Name, Host: host, Requests: c.requestsFor(host),
		WaitingSince: since, Now: now, Threshold: c.opts.HoldThreshold})
	if allowed || host == "" || granted(n) || !waitable {
		// Drained (the planner grants on its next pass), unpaired, granted
		// or no longer wanted.
		c.forgetWait(n.Name)
		if hasRecord {
			if err := c.setHoldSince(ctx, n.Name, ""); err != nil {
				return err
			}
		}
		if w.overdue || now.Sub(since) >= c.opts.HoldThreshold {
			c.events.recorder.Eventf(n, corev1.EventTypeNormal, EventTenantHoldResolved, "Tenant host %s no longer holds the update back", host)
		}
		return nil
	}
	if !hasRecord {
		if err := c.setHoldSince(ctx, n.Name, since.UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	if !inMemory || !w.since.Equal(since) {
		// A restarted controller: the wait goes on from the recorded start.
		w = wait1{host: host, since: since, overdue: w.overdue}
	}
	c.metrics.holdSeconds.WithLabelValues(n.Name, host).Set(now.Sub(since).Seconds())
	val := 0.0
	if overdue {
		val = 1
		if !w.overdue {
			w.overdue = true
			klog.FromContext(ctx).Info("Tenant holds an infra update back", "node", n.Name, "host", host, "reason", reason)
			c.events.recorder.Event(n, corev1.EventTypeWarning, EventTenantHoldOverdue, reason)
		}
	}
	c.mu.Lock()
	c.waiting[n.Name] = w
	c.mu.Unlock()
	c.metrics.holdOverdue.WithLabelValues(n.Name, host).Set(val)
	return nil
}

// setHoldSince writes TenantHoldSinceAnnotation ("" removes it).
func (c *InfraController) setHoldSince(ctx context.Context, name, value string) error {
	if err := c.setNodeAnnotation(ctx, name, constants.TenantHoldSinceAnnotation, value); err != nil {
		return fmt.Errorf("recording the tenant hold of %s: %w", name, err)
	}
	return nil
}

// setNodeAnnotation sets one annotation of an infra node ("" removes it).
func (c *InfraController) setNodeAnnotation(ctx context.Context, name, key, value string) error {
	var v any = value
	if value == "" {
		v = nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if err != nil {
		return err
	}
	_, err = c.infra.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// requeueWhileWaiting looks again at a waiting node on the resync, or when
// its wait will pass the threshold, whichever comes first.
func (c *InfraController) requeueWhileWaiting(name string) time.Duration {
	c.mu.Lock()
	w, ok := c.waiting[name]
	c.mu.Unlock()
	if !ok {
		return 0
	}
	if !w.overdue {
		if left := w.since.Add(c.opts.HoldThreshold).Sub(c.opts.Now()); left > 0 && left < c.opts.Resync {
			return left + 10*time.Millisecond
		}
	}
	return c.opts.Resync
}

// granted reports whether the infra node has a grant in hand (desiredConfig
// differs from currentConfig): the planner no longer waits for it.
func granted(n *corev1.Node) bool {
	v := node.ViewOfNode(n)
	return v.Desired != "" && v.Desired != v.Current
}

func (c *InfraController) isWaiting(x string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.waiting[x]
	return ok
}

func (c *InfraController) forgetWait(x string) {
	c.mu.Lock()
	delete(c.waiting, x)
	c.mu.Unlock()
	c.metrics.holdSeconds.DeletePartialMatch(prometheus.Labels{"infra_node": x})
	c.metrics.holdOverdue.DeletePartialMatch(prometheus.Labels{"infra_node": x})
}
