package dpu

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
)

// The medik8s NodeMaintenance API, which the dpu-network-operator uses to
// have its DPUs' tenant hosts drained: nodemaintenance.medik8s.io/v1beta1,
// cluster-scoped, spec.nodeName and status.phase Running/Succeeded/Failed.
// Read from medik8s/node-maintenance-operator v0.20.1 (commit ed0411f0),
// api/v1beta1/nodemaintenance_types.go and
// config/crd/bases/nodemaintenance.medik8s.io_nodemaintenances.yaml; the
// operator side from openshift/dpu-network-operator
// controllers/dpu_node_controller.go (it waits for phase Succeeded).
const (
	nodeMaintenanceKind = "NodeMaintenance"

	nmPhaseRunning   = "Running"
	nmPhaseSucceeded = "Succeeded"
	nmPhaseFailed    = "Failed"
)

// NodeMaintenanceGVR is the medik8s NodeMaintenance resource.
var NodeMaintenanceGVR = schema.GroupVersionResource{Group: "nodemaintenance.medik8s.io", Version: "v1beta1", Resource: "nodemaintenances"}

// newNodeMaintenanceInformer watches every NodeMaintenance, indexed by
// spec.nodeName.
func newNodeMaintenanceInformer(client dynamic.Interface, resync time.Duration) cache.SharedIndexInformer {
	r := client.Resource(NodeMaintenanceGVR)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return r.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return r.Watch(ctx, o)
		},
	}
	return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, resync, cache.Indexers{
		IndexByNode: func(obj any) ([]string, error) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				n, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName")
				return []string{n}, nil
			}
			return nil, nil
		},
	})
}

// nodeMaintenanceRequest presents a NodeMaintenance the tenant serves (one
// the dpu-network-operator created: dpu-tenant-<host>) as a Drain request,
// with the progress its status records; ok is false for the others, which
// belong to whoever runs a node-maintenance-operator.
func nodeMaintenanceRequest(u *unstructured.Unstructured) (*dpuv1.HostMaintenance, bool) {
	if !strings.HasPrefix(u.GetName(), constants.NodeMaintenancePrefix) {
		return nil, false
	}
	nodeName, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName")
	reason, _, _ := unstructured.NestedString(u.Object, "spec", "reason")
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	hm := &dpuv1.HostMaintenance{
		ObjectMeta: metav1.ObjectMeta{
			Name: nodeMaintenanceKind + "/" + u.GetName(), UID: u.GetUID(), Generation: u.GetGeneration(),
			CreationTimestamp: u.GetCreationTimestamp(), DeletionTimestamp: u.GetDeletionTimestamp(),
			Annotations: map[string]string{constants.InfraNodeAnnotation: "dpu-network-operator"},
		},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: nodeName, Action: dpuv1.ActionDrain, Reason: reason, Requester: "dpu-network-operator"},
	}
	admitted := metav1.Condition{Type: dpuv1.ConditionAdmitted, Status: metav1.ConditionTrue, Reason: dpuv1.ReasonAdmitted,
		ObservedGeneration: u.GetGeneration(), LastTransitionTime: u.GetCreationTimestamp()}
	switch phase {
	case nmPhaseRunning:
		hm.Status.Phase = dpuv1.PhaseDraining
		hm.Status.Conditions = []metav1.Condition{admitted}
	case nmPhaseSucceeded:
		hm.Status.Phase = dpuv1.PhaseDrained
		drained := admitted
		drained.Type, drained.Reason = dpuv1.ConditionDrained, dpuv1.ReasonDrained
		hm.Status.Conditions = []metav1.Condition{admitted, drained}
	case nmPhaseFailed:
		hm.Status.Phase = dpuv1.PhaseRejected
	}
	return hm, true
}

// nodeMaintenanceStatus is the NodeMaintenance status that says what the
// request's status says, in the node-maintenance-operator's terms: no phase
// while queued (lastError says why), Running while draining, Succeeded once
// drained (what the dpu-network-operator waits for), Failed when rejected.
func nodeMaintenanceStatus(st dpuv1.HostMaintenanceStatus) (phase string, progress int64, lastError string) {
	switch st.Phase {
	case dpuv1.PhaseDraining:
		if c := meta.FindStatusCondition(st.Conditions, dpuv1.ConditionDrained); c != nil && c.Reason == dpuv1.ReasonDrainFailing {
			lastError = st.Message
		}
		return nmPhaseRunning, 0, lastError
	case dpuv1.PhaseDrained:
		return nmPhaseSucceeded, 100, ""
	case dpuv1.PhaseRejected:
		return nmPhaseFailed, 0, st.Message
	}
	return "", 0, st.Message
}

// writeNodeMaintenanceStatus writes the NodeMaintenance status for st when
// it differs from what the object shows.
func writeNodeMaintenanceStatus(ctx context.Context, client dynamic.Interface, cur *unstructured.Unstructured,
	st dpuv1.HostMaintenanceStatus, now time.Time) (changed bool, err error) {
	phase, progress, lastError := nodeMaintenanceStatus(st)
	havePhase, _, _ := unstructured.NestedString(cur.Object, "status", "phase")
	haveErr, _, _ := unstructured.NestedString(cur.Object, "status", "lastError")
	haveProgress, _, _ := unstructured.NestedInt64(cur.Object, "status", "drainProgress")
	if havePhase == phase && haveErr == lastError && haveProgress == progress {
		return false, nil
	}
	next := cur.DeepCopy()
	status, _, _ := unstructured.NestedMap(next.Object, "status")
	if status == nil {
		status = map[string]any{}
	}
	delete(status, "phase")
	delete(status, "lastError")
	if phase != "" {
		status["phase"] = phase
	}
	if lastError != "" {
		status["lastError"] = lastError
	}
	status["drainProgress"] = progress
	status["lastUpdate"] = now.UTC().Format(time.RFC3339)
	if err := unstructured.SetNestedMap(next.Object, status, "status"); err != nil {
		return false, err
	}
	if _, err := client.Resource(NodeMaintenanceGVR).UpdateStatus(ctx, next, metav1.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("updating status of NodeMaintenance %s: %w", cur.GetName(), err)
	}
	return havePhase != phase, nil
}
