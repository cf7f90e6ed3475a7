package drain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	kubedrain "k8s.io/kubectl/pkg/drain"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Event reasons on nodes.
const (
	EventCordon             = "Cordon"
	EventCordonKept         = "CordonKept"
	EventDrained            = "Drained"
	EventDrainAttemptFailed = "DrainAttemptFailed"
	EventDrainFailed        = "DrainFailed"
	EventUncordon           = "Uncordon"
	EventInvalidRequest     = "InvalidDrainRequest"
)

// sync serves the node's drain request once.
func (c *Controller) sync(ctx context.Context, name string) error {
	node, err := c.nodeLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting node %s: %w", name, err)
	}
	d := Decide(node)
	if d.Action == ActionDrain || d.Action == ActionUncordon {
		// Act only on what the API says now: the cache may not show our
		// own acknowledgement yet, and a drain must not run twice.
		if node, err = c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("getting node %s: %w", name, err)
		}
		d = Decide(node)
	}
	logger := klog.FromContext(ctx).WithValues("node", name, "request", d.Request)
	ctx = klog.NewContext(ctx, logger)

	switch d.Action {
	case ActionNone:
		c.forget(name)
		return nil
	case ActionInvalid:
		// The daemon wrote something we do not understand; retrying will not help.
		logger.Info("Ignoring invalid drain request", "why", d.Why)
		c.recorder.Eventf(node, corev1.EventTypeWarning, EventInvalidRequest, "%s: %q", d.Why, d.Request)
		return nil
	case ActionUncordon:
		c.forget(name)
		return c.uncordon(ctx, node, d)
	case ActionDrain:
		return c.drain(ctx, node, d)
	}
	return fmt.Errorf("unknown action %q", d.Action)
}

// drain records who cordoned the node, cordons it and runs one drain
// attempt. A failed attempt is retried after the retry policy's delay.
func (c *Controller) drain(ctx context.Context, node *corev1.Node, d Decision) error {
	logger := klog.FromContext(ctx)
	started := c.begin(node.Name, d.Request)

	cordoned := false
	if d.RecordCordon != "" {
		// The record and the cordon in one write (a 1,000-node rollout
		// makes one per node fewer, make bench-scale).
		if err := c.recordCordon(ctx, node, d.RecordCordon); err != nil {
			return err
		}
		cordoned = true
		// No event for the start: a drain that succeeds says so once
		// (Drained, with its duration), one that fails with each attempt;
		// the MCO's drain controller reports failures only. A thousand-node
		// rollout is a thousand events fewer (make bench-scale).
		logger.Info("Drain cycle recorded, node cordoned", "cordonedBeforeDrain", d.RecordCordon, "why", d.Why)
	}

	attemptCtx, cancel := context.WithTimeout(ctx, c.opts.AttemptTimeout)
	defer cancel()
	c.setCancel(node.Name, cancel)
	defer c.setCancel(node.Name, nil)
	helper := c.newHelper(attemptCtx, node.Name)

	if !cordoned {
		// A later attempt: the cycle is recorded; someone may have
		// uncordoned the node since.
		if err := c.cordon(ctx, helper, node.Name, true); err != nil {
			return err
		}
	}
	logger.Info("Draining node")
	err := kubedrain.RunNodeDrain(helper, node.Name)
	switch {
	case ctx.Err() != nil:
		return nil // shutting down
	case err != nil && errors.Is(attemptCtx.Err(), context.Canceled):
		logger.Info("Drain attempt stopped: the request changed")
		return nil // the node update that cancelled us has requeued the node
	case err != nil:
		c.attemptFailed(ctx, node, d, started, err)
		return nil
	}

	took := c.now().Sub(started)
	if err := c.acknowledge(ctx, node.Name, d); err != nil {
		return err
	}
	c.opts.Metrics.Duration.Observe(took.Seconds())
	c.forget(node.Name)
	logger.Info("Node drained", "took", took.Round(time.Millisecond))
	c.recorder.Eventf(node, corev1.EventTypeNormal, EventDrained, "Drained node for %s in %s", d.Request, took.Round(time.Second))
	return nil
}

// attemptFailed reports a failed attempt and schedules the next one.
func (c *Controller) attemptFailed(ctx context.Context, node *corev1.Node, d Decision, started time.Time, err error) {
	failingFor := c.now().Sub(started)
	delay, slow, overdue := c.opts.Retry.Next(failingFor)
	c.opts.Metrics.AttemptFailures.WithLabelValues(node.Name).Inc()
	msg := firstLine(err.Error())
	klog.FromContext(ctx).Info("Drain attempt failed; will retry",
		"failingFor", failingFor.Round(time.Second), "retryIn", delay, "slow", slow, "err", err.Error())
	c.recorder.Eventf(node, corev1.EventTypeWarning, EventDrainAttemptFailed,
		"Drain for %s failing for %s, retrying in %s: %s", d.Request, failingFor.Round(time.Second), delay, msg)
	if overdue {
		c.opts.Metrics.DrainErr.WithLabelValues(node.Name).Set(1)
		c.recorder.Eventf(node, corev1.EventTypeWarning, EventDrainFailed,
			"Drain for %s exceeded %s; will keep retrying: %s", d.Request, c.opts.Retry.Timeout, msg)
	}
	c.queue.AddAfter(node.Name, delay)
}

// uncordon ends a drain cycle: lifts tandem's cordon (or keeps a person's),
// drops the record and acknowledges.
func (c *Controller) uncordon(ctx context.Context, node *corev1.Node, d Decision) error {
	logger := klog.FromContext(ctx)
	if !d.MakeSchedulable && node.Spec.Unschedulable {
		logger.Info("Leaving the node cordoned", "why", d.Why)
		c.recorder.Eventf(node, corev1.EventTypeNormal, EventCordonKept, "Not uncordoning for %s: %s", d.Request, d.Why)
	}
	// The uncordon rides on the acknowledgement: one write.
	if err := c.acknowledge(ctx, node.Name, d); err != nil {
		return err
	}
	// No event for a plain uncordon (the end of every cycle), only for a
	// cordon kept.
	logger.Info("Uncordon request served", "madeSchedulable", d.MakeSchedulable)
	return nil
}

// cordon sets the node's schedulability with kubectl's cordon helper, on a
// fresh copy of the node: a stale cache must not make it skip the change.
func (c *Controller) cordon(ctx context.Context, helper *kubedrain.Helper, name string, unschedulable bool) error {
	fresh, err := c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("getting node %s: %w", name, err)
	}
	if fresh.Spec.Unschedulable == unschedulable {
		return nil
	}
	verb, reason := "cordon", EventCordon
	if !unschedulable {
		verb, reason = "uncordon", EventUncordon
	}
	if err := kubedrain.RunCordonOrUncordon(helper, fresh, unschedulable); err != nil {
		return fmt.Errorf("%s node %s: %w", verb, name, err)
	}
	klog.FromContext(ctx).Info("Node schedulability changed", "action", verb)
	c.recorder.Eventf(fresh, corev1.EventTypeNormal, reason, "Node %sed by the drain controller", verb)
	return nil
}

// recordCordon writes CordonedByAdminAnnotation and cordons the node in one
// merge patch (what kubectl's cordon helper writes: spec.unschedulable),
// conditional on the node being the one Decide looked at: if someone
// cordoned or uncordoned it since, the write fails with a conflict and the
// decision is made again.
func (c *Controller) recordCordon(ctx context.Context, node *corev1.Node, value string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": node.ResourceVersion,
		"annotations":     map[string]string{constants.CordonedByAdminAnnotation: value},
	}, "spec": map[string]any{"unschedulable": true}})
	if err != nil {
		return fmt.Errorf("encoding patch: %w", err)
	}
	if _, err := c.kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("recording the cordon state of node %s: %w", node.Name, err)
	}
	return nil
}

// acknowledge sets lastAppliedDrain to the served request, and at the end
// of a cycle drops the cordon record and uncordons (unless the cordon is a
// person's). A JSON patch test makes it fail if
// desiredDrain changed meanwhile, so an acknowledgement never covers a
// request that was not served.
func (c *Controller) acknowledge(ctx context.Context, name string, d Decision) error {
	ops := []map[string]any{
		{"op": "test", "path": annotationPath(constants.DesiredDrainAnnotation), "value": d.Request},
		{"op": "add", "path": annotationPath(constants.LastAppliedDrainAnnotation), "value": d.Request},
	}
	if d.ClearRecord {
		ops = append(ops, map[string]any{"op": "remove", "path": annotationPath(constants.CordonedByAdminAnnotation)})
	}
	if d.Action == ActionUncordon && d.MakeSchedulable {
		// "add" replaces the member or creates it (spec.unschedulable is
		// omitted when false).
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/unschedulable", "value": false})
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encoding patch: %w", err)
	}
	if _, err := c.kube.CoreV1().Nodes().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("acknowledging %s on node %s: %w", d.Request, name, err)
	}
	return nil
}

// annotationPath is the JSON pointer (RFC 6901) of an annotation.
func annotationPath(key string) string {
	return "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

func (c *Controller) newHelper(ctx context.Context, node string) *kubedrain.Helper {
	logger := klog.FromContext(ctx).WithValues("node", node)
	h := NewDrainHelper(ctx, c.kube, node, c.opts.AttemptTimeout)
	h.OnPodDeletionOrEvictionFinished = func(pod *corev1.Pod, usingEviction bool, err error) {
		verb := "Deleted"
		if usingEviction {
			verb = "Evicted"
		}
		if err != nil {
			logger.Info("Pod not removed", "pod", klog.KObj(pod), "err", err.Error())
			return
		}
		logger.Info(verb+" pod", "pod", klog.KObj(pod))
	}
	return h
}

// begin notes that a drain for request is under way and returns when it
// began; a changed request restarts the clock.
func (c *Controller) begin(node, request string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.ongoing[node]
	if d == nil || d.request != request {
		d = &ongoingDrain{request: request, started: c.now()}
		c.ongoing[node] = d
	}
	return d.started
}

func (c *Controller) setCancel(node string, cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.ongoing[node]; d != nil {
		d.cancel = cancel
	}
}

// forget ends the bookkeeping of a node's drain: it succeeded, or it is no
// longer asked for. Either way mcc_drain_err no longer applies to the node.
func (c *Controller) forget(node string) {
	c.mu.Lock()
	delete(c.ongoing, node)
	c.mu.Unlock()
	c.opts.Metrics.DrainErr.DeleteLabelValues(node)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
