package dpu

import (
	"context"
	"time"

	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// The tenant controller's edges: what it reads (listers), what it writes
// (TenantWriter) and what drains (TenantDrainer). NewTenantController wires
// them to informers and the apiserver; NewTenantControllerFrom takes them
// as given, so that a simulated cluster (the node planner's property test,
// pkg/controller/node) drives the controller's own Sync: its snapshot, its
// decision, its writes and the expectations it records.

// TenantWriter makes the tenant controller's writes. Each node write is
// conditional as documented on the method: a change since the decision
// fails it with a Conflict (apierrors.IsConflict), and the controller
// decides again.
type TenantWriter interface {
	// Hold cordons a.Node; with a.Record set, it also writes the hold
	// record (MaintenanceCordonAnnotation) in the same write, and fails
	// when the node's cordon is no longer what a.Record says it was.
	Hold(ctx context.Context, a NodeAction) error
	// RequestReboot writes rebootRequest=a.Token, and with a.Config set
	// desiredConfig=a.Config in the same write, only if desiredConfig is
	// still a.ExpectDesired.
	RequestReboot(ctx context.Context, a NodeAction) error
	// Grant sets desiredConfig=a.Config, only if it is still a.ExpectDesired.
	Grant(ctx context.Context, a NodeAction) error
	// Release removes the hold record, only if it is still record, and
	// uncordons when a.MakeSchedulable. A node that is gone is no error.
	Release(ctx context.Context, a NodeAction, record string) error
	// SetTaint adds (NodeTaint, stamped now) or removes the DPU-not-ready
	// taint, leaving other taints alone. It returns the node as it was
	// before, nil when the node is gone.
	SetTaint(ctx context.Context, a NodeAction, now time.Time) (*corev1.Node, error)
	// UpdateStatus writes a request's status (optimistic concurrency on
	// its resourceVersion) and returns the request as written.
	UpdateStatus(ctx context.Context, hm *dpuv1.HostMaintenance) (*dpuv1.HostMaintenance, error)
}

// TenantDrainer drains held nodes, retrying until reset, and remembers
// the results in memory.
type TenantDrainer interface {
	// Ensure starts draining node unless a drain runs or succeeded since
	// the last Reset.
	Ensure(ctx context.Context, node string)
	// Reset stops the node's drain and forgets its result.
	Reset(node string)
	// States returns the drain results by node.
	States() map[string]DrainState
}

// HostMaintenanceLister reads the HostMaintenance requests as a cache
// shows them. The objects are shared: read-only.
type HostMaintenanceLister interface {
	List() []*dpuv1.HostMaintenance
	// Get returns the request named name, false when there is none.
	Get(name string) (*dpuv1.HostMaintenance, bool)
	// ByNode returns the requests for node (spec.nodeName).
	ByNode(node string) []*dpuv1.HostMaintenance
}

// TenantParts are the tenant controller's edges, for
// NewTenantControllerFrom.
type TenantParts struct {
	Requests HostMaintenanceLister
	Nodes    corelisters.NodeLister
	Pools    mcfglisters.MachineConfigPoolLister
	// Configs tell when a pool's target was created (AnnounceWait); nil:
	// paired hosts do not wait.
	Configs mcfglisters.MachineConfigLister
	// MachineConfigNodes tell the breakers since when a node is Degraded;
	// nil: a failing node counts at once.
	MachineConfigNodes mcfglisters.MachineConfigNodeLister
	Writer             TenantWriter
	Drains             TenantDrainer
}

// informerRequests is the HostMaintenanceLister of an informer indexed by
// IndexByNode (HostMaintenances.NewInformer).
type informerRequests struct{ inf cache.SharedIndexInformer }

func (r informerRequests) List() []*dpuv1.HostMaintenance {
	objs := r.inf.GetStore().List()
	out := make([]*dpuv1.HostMaintenance, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*dpuv1.HostMaintenance))
	}
	return out
}

func (r informerRequests) Get(name string) (*dpuv1.HostMaintenance, bool) {
	obj, exists, err := r.inf.GetStore().GetByKey(name)
	if err != nil || !exists {
		return nil, false
	}
	return obj.(*dpuv1.HostMaintenance), true
}

func (r informerRequests) ByNode(node string) []*dpuv1.HostMaintenance {
	objs, _ := r.inf.GetIndexer().ByIndex(IndexByNode, node)
	out := make([]*dpuv1.HostMaintenance, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*dpuv1.HostMaintenance))
	}
	return out
}
