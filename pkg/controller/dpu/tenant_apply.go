package dpu

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
)

// Event reasons on tenant nodes.
const (
	EventDPUNotReady = "DPUNotReady"
	EventDPUReady    = "DPUReady"
)

// applyNode makes one node change of a plan and records it in the
// admission, so the planner's next decision sees it before the cache does.
func (c *TenantController) applyNode(ctx context.Context, a NodeAction, n TenantNode) error {
	logger := klog.FromContext(ctx).WithValues("node", a.Node)
	now := c.opts.Now()
	switch a.Kind {
	case NodeHold:
		c.drains.Reset(a.Node)
		if err := c.writer.Hold(ctx, a); err != nil {
			return err
		}
		c.opts.Admission.ExpectCordon(a.Node, true, now)
		if a.Record != "" {
			c.opts.Admission.ExpectAnnotation(a.Node, constants.MaintenanceCordonAnnotation, a.Record, now)
		}
		logger.Info("Node held for HostMaintenance", "cordonedBefore", a.Record)
	case NodeDrain:
		c.drains.Ensure(ctx, a.Node)
	case NodeReboot:
		if err := c.writer.RequestReboot(ctx, a); err != nil {
			return err
		}
		c.opts.Admission.ExpectAnnotation(a.Node, constants.RebootRequestAnnotation, a.Token, now)
		if a.Config != "" {
			c.opts.Admission.ExpectAnnotation(a.Node, constants.DesiredConfigAnnotation, a.Config, now)
		}
		logger.Info("Asked the node's daemon to reboot", "token", a.Token, "coalescedConfig", a.Config)
		c.metrics.reboots.WithLabelValues(fmt.Sprint(a.Config != "")).Inc()
	case NodeGrant:
		if err := c.writer.Grant(ctx, a); err != nil {
			return err
		}
		c.opts.Admission.ExpectAnnotation(a.Node, constants.DesiredConfigAnnotation, a.Config, now)
		logger.Info("Held node handed to its staged update (one drain for both)", "config", a.Config)
	case NodeRelease:
		c.drains.Reset(a.Node)
		if err := c.writer.Release(ctx, a, n.HoldRecord); err != nil {
			return err
		}
		c.opts.Admission.ExpectAnnotationRemoved(a.Node, constants.MaintenanceCordonAnnotation, now)
		if a.MakeSchedulable {
			c.opts.Admission.ExpectCordon(a.Node, false, now)
		}
		logger.Info("HostMaintenance hold released", "uncordoned", a.MakeSchedulable)
	case NodeTaint, NodeUntaint:
		return c.setTaint(ctx, a)
	}
	return nil
}

// setTaint sets or removes the DPU-not-ready taint and says why in an
// event on the node.
func (c *TenantController) setTaint(ctx context.Context, a NodeAction) error {
	cur, err := c.writer.SetTaint(ctx, a, c.opts.Now())
	if err != nil || cur == nil {
		return err
	}
	logger := klog.FromContext(ctx).WithValues("node", a.Node)
	if a.Kind == NodeTaint {
		logger.Info("Tainted the host of a DPU that is down", "dpu", a.TaintValue, "why", a.Why)
		c.events.recorder.Eventf(cur, corev1.EventTypeWarning, EventDPUNotReady,
			"No new pods: %s (taint %s=%s:NoSchedule)", a.Why, constants.DPUNotReadyTaintKey, a.TaintValue)
		return nil
	}
	logger.Info("Removed the DPU taint", "why", a.Why)
	c.events.recorder.Eventf(cur, corev1.EventTypeNormal, EventDPUReady, "%s; taint %s removed", a.Why, constants.DPUNotReadyTaintKey)
	return nil
}

// kubeTenantWriter is the TenantWriter of a running controller: the
// node changes and request statuses go to the apiserver.
type kubeTenantWriter struct {
	kube kubernetes.Interface
	hm   *HostMaintenances
}

func (k kubeTenantWriter) UpdateStatus(ctx context.Context, hm *dpuv1.HostMaintenance) (*dpuv1.HostMaintenance, error) {
	return k.hm.UpdateStatus(ctx, hm)
}

// Hold cordons the node and, when a.Record is set, writes the hold record
// in the same write, conditional on the node's resourceVersion: the record
// says whether the cordon was a person's, so a cordon change since the
// decision must fail the write (a conflict: decide again).
func (k kubeTenantWriter) Hold(ctx context.Context, a NodeAction) error {
	patch := map[string]any{"spec": map[string]any{"unschedulable": true}}
	if a.Record != "" {
		cur, err := k.kube.CoreV1().Nodes().Get(ctx, a.Node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("getting node %s: %w", a.Node, err)
		}
		if cordoned := a.Record == "true"; cur.Spec.Unschedulable != cordoned {
			return apierrors.NewConflict(corev1.Resource("nodes"), a.Node, fmt.Errorf("node cordon changed since it was observed"))
		}
		patch["metadata"] = map[string]any{
			"resourceVersion": cur.ResourceVersion,
			"annotations":     map[string]string{constants.MaintenanceCordonAnnotation: a.Record},
		}
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if _, err := k.kube.CoreV1().Nodes().Patch(ctx, a.Node, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("holding node %s: %w", a.Node, err)
	}
	return nil
}

// RequestReboot writes rebootRequest, with desiredConfig in the same write
// when the reboot is coalesced: the daemon must see both at once, or it
// would serve a plain reboot and lose the staged deployment.
func (k kubeTenantWriter) RequestReboot(ctx context.Context, a NodeAction) error {
	if a.Config == "" {
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{constants.RebootRequestAnnotation: a.Token}}}
		return k.patchNode(ctx, a.Node, types.MergePatchType, patch, "requesting reboot of")
	}
	return k.patchNode(ctx, a.Node, types.JSONPatchType, []map[string]any{
		{"op": "test", "path": annotationPath(constants.DesiredConfigAnnotation), "value": a.ExpectDesired},
		{"op": "add", "path": annotationPath(constants.RebootRequestAnnotation), "value": a.Token},
		{"op": "replace", "path": annotationPath(constants.DesiredConfigAnnotation), "value": a.Config},
	}, "requesting reboot of")
}

// Grant sets desiredConfig, only if it is still what the decision saw.
func (k kubeTenantWriter) Grant(ctx context.Context, a NodeAction) error {
	return k.patchNode(ctx, a.Node, types.JSONPatchType, []map[string]any{
		{"op": "test", "path": annotationPath(constants.DesiredConfigAnnotation), "value": a.ExpectDesired},
		{"op": "replace", "path": annotationPath(constants.DesiredConfigAnnotation), "value": a.Config},
	}, "granting the update of")
}

// patchNode writes one patch; a failed JSON patch test is a conflict (the
// node changed since the decision: decide again).
func (k kubeTenantWriter) patchNode(ctx context.Context, node string, pt types.PatchType, ops any, what string) error {
	b, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if _, err := k.kube.CoreV1().Nodes().Patch(ctx, node, pt, b, metav1.PatchOptions{}); err != nil {
		if apierrors.IsInvalid(err) || isTestFailed(err) {
			return apierrors.NewConflict(corev1.Resource("nodes"), node, err)
		}
		return fmt.Errorf("%s node %s: %w", what, node, err)
	}
	return nil
}

// Release removes the hold record (only if it is still record, the one
// observed) and uncordons when the record says tandem cordoned the node.
func (k kubeTenantWriter) Release(ctx context.Context, a NodeAction, record string) error {
	ops := []map[string]any{
		{"op": "test", "path": annotationPath(constants.MaintenanceCordonAnnotation), "value": record},
		{"op": "remove", "path": annotationPath(constants.MaintenanceCordonAnnotation)},
	}
	if a.MakeSchedulable {
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/unschedulable", "value": false})
	}
	err := k.patchNode(ctx, a.Node, types.JSONPatchType, ops, "releasing")
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// SetTaint adds or removes the DPU-not-ready taint with an update
// conditional on the node's resourceVersion (taints are a list; a merge
// patch would replace other owners' taints).
func (k kubeTenantWriter) SetTaint(ctx context.Context, a NodeAction, now time.Time) (*corev1.Node, error) {
	cur, err := k.kube.CoreV1().Nodes().Get(ctx, a.Node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting node %s: %w", a.Node, err)
	}
	next := cur.DeepCopy()
	next.Spec.Taints = slices.DeleteFunc(next.Spec.Taints, func(t corev1.Taint) bool { return t.Key == constants.DPUNotReadyTaintKey })
	if a.Kind == NodeTaint {
		next.Spec.Taints = append(next.Spec.Taints, corev1.Taint{Key: constants.DPUNotReadyTaintKey, Value: a.TaintValue,
			Effect: corev1.TaintEffectNoSchedule, TimeAdded: ptrTime(metav1.NewTime(now))})
	}
	if _, err := k.kube.CoreV1().Nodes().Update(ctx, next, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("setting the DPU taint of node %s: %w", a.Node, err)
	}
	return cur, nil
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// annotationPath is the JSON pointer (RFC 6901) of an annotation.
func annotationPath(key string) string {
	return "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// isTestFailed reports a JSON patch whose test operation failed (the
// apiserver answers 422 or 500 depending on the version).
func isTestFailed(err error) bool {
	return err != nil && strings.Contains(err.Error(), "test operation")
}
