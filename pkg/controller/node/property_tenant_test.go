package node_test

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
)

// The tenant controller of the DPU worlds is the product's
// dpu.TenantController (NewTenantControllerFrom) on the world's edges: it
// lists the nodes from the world's stale cache, the pool and its target's
// MachineConfig as the world has them and the requests as they are; its
// writes go to the world with the apiserver's conditions (a changed cordon,
// desiredConfig or hold record, or a request's resourceVersion, is a
// conflict) and the world's write faults; its drains are the world's.
// Nothing of its snapshot, decision, writes or expectations is copied here.

func (w *world) newTenantController() *dpu.TenantController {
	c := w.tenant
	ctl, err := dpu.NewTenantControllerFrom(dpu.TenantParts{
		Requests: worldRequests{w}, Nodes: worldNodes{c}, Pools: worldPools{c}, Configs: worldConfigs{w},
		Writer: tenantWriter{w, c}, Drains: worldDrains{w, c},
	}, dpu.TenantOptions{Now: w.now, Admission: c.adm, CoalesceWait: 5 * time.Second, AnnounceWait: announceWait})
	if err != nil {
		panic(fmt.Sprintf("the world's tenant controller: %v", err)) // a mistake in this file, not a finding
	}
	return ctl
}

// worldRequests lists the world's requests as they are (the tenant
// controller's informer, without lag).
type worldRequests struct{ w *world }

func (r worldRequests) List() []*dpuv1.HostMaintenance {
	out := make([]*dpuv1.HostMaintenance, 0, len(r.w.hms))
	for _, name := range r.w.requestNames() {
		out = append(out, r.w.hms[name])
	}
	return out
}

func (r worldRequests) Get(name string) (*dpuv1.HostMaintenance, bool) {
	hm, ok := r.w.hms[name]
	return hm, ok
}

func (r worldRequests) ByNode(node string) []*dpuv1.HostMaintenance { return r.w.requestsFor(node) }

// worldNodes is the node lister on the cluster's stale cache.
type worldNodes struct{ c *cluster }

func (l worldNodes) List(sel labels.Selector) ([]*corev1.Node, error) {
	var out []*corev1.Node
	for _, n := range l.c.cached() {
		if sel.Matches(labels.Set(n.Labels)) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (l worldNodes) Get(name string) (*corev1.Node, error) {
	if n := l.c.cache[name]; n != nil {
		return n, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
}

var _ corelisters.NodeLister = worldNodes{}

// worldPools lists the cluster's one pool, as a MachineConfigPool object
// (selecting its nodes by their role label, as the world labels them).
type worldPools struct{ c *cluster }

func (l worldPools) object() *mcfgv1.MachineConfigPool {
	v := l.c.pool
	p := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: v.Name, Annotations: maps.Clone(v.Annotations)},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + v.Name: ""}},
			MaxUnavailable: v.MaxUnavailable,
			Paused:         v.Paused,
		},
		Status: *v.Status.DeepCopy(),
	}
	p.Spec.Configuration.Name = v.Target
	if v.StageConcurrency != nil {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[constants.StageConcurrencyAnnotation] = v.StageConcurrency.String()
	}
	return p
}

func (l worldPools) List(sel labels.Selector) ([]*mcfgv1.MachineConfigPool, error) {
	return []*mcfgv1.MachineConfigPool{l.object()}, nil
}

func (l worldPools) Get(name string) (*mcfgv1.MachineConfigPool, error) {
	if name != l.c.pool.Name {
		return nil, apierrors.NewNotFound(mcfgv1.Resource("machineconfigpools"), name)
	}
	return l.object(), nil
}

var _ mcfglisters.MachineConfigPoolLister = worldPools{}

// worldConfigs knows the tenant pool's target config: created when the
// world rendered it.
type worldConfigs struct{ w *world }

func (l worldConfigs) List(labels.Selector) ([]*mcfgv1.MachineConfig, error) {
	mc, err := l.Get(l.w.tenant.pool.Target)
	if err != nil {
		return nil, err
	}
	return []*mcfgv1.MachineConfig{mc}, nil
}

func (l worldConfigs) Get(name string) (*mcfgv1.MachineConfig, error) {
	p := l.w.tenant.pool
	if name != p.Target {
		return nil, apierrors.NewNotFound(mcfgv1.Resource("machineconfigs"), name)
	}
	return &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: name,
		CreationTimestamp: metav1.NewTime(l.w.targetSince[p.Name])}}, nil
}

var _ mcfglisters.MachineConfigLister = worldConfigs{}

// worldDrains are the tenant controller's drains: each takes a few steps
// (machines advances them).
type worldDrains struct {
	w *world
	c *cluster
}

func (d worldDrains) Ensure(_ context.Context, node string) {
	if d.c.drains[node] == nil {
		d.c.drains[node] = &drainJob{left: 1 + d.w.rng.IntN(3)}
	}
}

func (d worldDrains) Reset(node string) { delete(d.c.drains, node) }

func (d worldDrains) States() map[string]dpu.DrainState {
	out := make(map[string]dpu.DrainState, len(d.c.drains))
	for name, j := range d.c.drains {
		out[name] = dpu.DrainState{Running: !j.succeeded, Succeeded: j.succeeded}
	}
	return out
}

// tenantWriter is dpu.TenantWriter on the world: each write is refused now
// and then (before the faults stop), and each is conditional as the
// interface documents (the apiserver's JSON patch tests and
// resourceVersion preconditions).
type tenantWriter struct {
	w *world
	c *cluster
}

func (t tenantWriter) refused() bool {
	if !t.w.calm && t.w.rng.Float64() < t.w.profile.dpuRef {
		t.w.stats.writeFaults++
		return true
	}
	return false
}

func (t tenantWriter) node(name string) (*simNode, error) {
	if n := t.c.node(name); n != nil {
		return n, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
}

func (t tenantWriter) Hold(_ context.Context, a dpu.NodeAction) error {
	n, err := t.node(a.Node)
	if err != nil {
		return err
	}
	if t.refused() {
		return errConflict
	}
	if a.Record != "" {
		if cordoned := a.Record == "true"; n.unschedulable != cordoned {
			return errConflict
		}
		n.ann[constants.MaintenanceCordonAnnotation] = a.Record
	}
	n.unschedulable, n.cordonBy = true, cordonByDecider
	return nil
}

func (t tenantWriter) RequestReboot(_ context.Context, a dpu.NodeAction) error {
	n, err := t.node(a.Node)
	if err != nil {
		return err
	}
	if t.refused() || (a.Config != "" && n.ann[constants.DesiredConfigAnnotation] != a.ExpectDesired) {
		return errConflict
	}
	if a.Config != "" {
		n.ann[constants.DesiredConfigAnnotation] = a.Config
	}
	n.ann[constants.RebootRequestAnnotation] = a.Token
	return nil
}

func (t tenantWriter) Grant(_ context.Context, a dpu.NodeAction) error {
	n, err := t.node(a.Node)
	if err != nil {
		return err
	}
	if t.refused() || n.ann[constants.DesiredConfigAnnotation] != a.ExpectDesired {
		return errConflict
	}
	n.ann[constants.DesiredConfigAnnotation] = a.Config
	return nil
}

func (t tenantWriter) Release(_ context.Context, a dpu.NodeAction, record string) error {
	n := t.c.node(a.Node)
	if n == nil {
		return nil // gone: nothing to release
	}
	if t.refused() {
		return errConflict
	}
	if rec, ok := n.ann[constants.MaintenanceCordonAnnotation]; !ok || rec != record {
		return errConflict
	}
	delete(n.ann, constants.MaintenanceCordonAnnotation)
	if a.MakeSchedulable {
		n.unschedulable, n.cordonBy = false, cordonByDecider
	}
	return nil
}

// SetTaint: the world has no DPU outages, so no Taint request; a taint
// asked anyway is a finding.
func (t tenantWriter) SetTaint(_ context.Context, a dpu.NodeAction, _ time.Time) (*corev1.Node, error) {
	t.w.violate("the tenant controller changed the DPU taint of %s (%s) in a world without DPU outages", a.Node, a.Kind)
	return nil, nil
}

func (t tenantWriter) UpdateStatus(_ context.Context, hm *dpuv1.HostMaintenance) (*dpuv1.HostMaintenance, error) {
	w := t.w
	cur := w.hms[hm.Name]
	if cur == nil || cur.UID != hm.UID {
		return nil, apierrors.NewNotFound(dpuv1.GroupVersion.WithResource(dpuv1.HostMaintenanceResource).GroupResource(), hm.Name)
	}
	if t.refused() || cur.ResourceVersion != hm.ResourceVersion {
		return nil, errConflict
	}
	if cur.Status.Phase == dpuv1.PhasePending && hm.Status.Phase == dpuv1.PhaseDraining {
		w.stats.admitted++
	}
	if hm.Status.CoalescedConfig != "" && cur.Status.CoalescedConfig == "" {
		w.stats.coalesced++
	}
	rv, _ := strconv.Atoi(cur.ResourceVersion)
	next := cur.DeepCopy()
	next.Status = *hm.Status.DeepCopy()
	next.ResourceVersion = strconv.Itoa(rv + 1)
	w.hms[hm.Name] = next // a new object: the controller's snapshot keeps the old one
	if w.debug {
		fmt.Printf("step %d tenant-status %s %s -> %s %q\n", w.step, hm.Name, cur.Status.Phase, next.Status.Phase, next.Status.Message)
	}
	return next.DeepCopy(), nil
}
