package dpu

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/dynamic"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/controller/queue"
	"github.com/tandem-mco/tandem/pkg/controller/render"
)

// TenantComponentName is the tenant controller's event source and queue name.
const TenantComponentName = "machineconfigcontroller-hostmaintenance"

// TenantOptions tune the tenant controller; zero values get defaults.
type TenantOptions struct {
	// CoalesceWait: how long a drained host waits for a pending update to
	// finish staging so one reboot applies both. Default 10m.
	CoalesceWait time.Duration
	// DrainAttemptTimeout bounds one drain attempt (evictions refused by a
	// PodDisruptionBudget are retried within it). Default 90s.
	DrainAttemptTimeout time.Duration
	// DrainRetryDelay is the pause between failed drain attempts. Default 10s.
	DrainRetryDelay time.Duration
	// Resync re-plans this often while requests are open. Default 30s.
	Resync time.Duration
	// UpdateDelay is how long a node's change waits before the next
	// decision, so that a rollout's many node changes are decided together
	// (node.Options.UpdateDelay); 0: at once. Requests are decided at once.
	UpdateDelay time.Duration
	// Registerer registers the metrics; nil: not registered.
	Registerer prometheus.Registerer
	// Recorder records events on requests; nil: one writing to the apiserver.
	Recorder record.EventRecorder
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Admission is shared with the cluster's node planner
	// (node.Options.Admission): both admit disruption against the same
	// maxUnavailable. nil: one of the controller's own, which only suits a
	// cluster without a node planner.
	Admission *node.Admission
	// AnnounceWait: how long a paired host's new update waits for its DPU
	// to ask for maintenance (so one drain serves both), counted from the
	// target config's creation. Default 2m; negative: no wait.
	AnnounceWait time.Duration
	// MachineConfigs tells when a pool's target was created (for
	// AnnounceWait); nil: paired hosts do not wait.
	MachineConfigs mcfginformers.MachineConfigInformer
	// DesiredRelease reads the release the cluster upgrades to
	// (ClusterVersionRelease), read while a Reboot request is open: a host
	// whose pool's config for that release is not rendered yet waits for it
	// (up to CoalesceWait) before its reboot. nil: not read.
	DesiredRelease ReleaseReader
	// MachineConfigNodes tell the pools' circuit breakers since when a node
	// is Degraded (node.Options.MachineConfigNodes); nil: a failing node
	// counts at once.
	MachineConfigNodes mcfginformers.MachineConfigNodeInformer
	// NodeMaintenances, when set, also serves the dpu-network-operator's
	// medik8s NodeMaintenance objects (dpu-tenant-<host>) as Drain requests.
	NodeMaintenances dynamic.Interface
	// UpdateGates are the cluster's disruption gates other than the DPU's
	// own (blocking pods, alerts; node.Options.Gates without this
	// controller's Gate). A host's update applied with a maintenance's
	// reboot, or handed a drained host, must pass them, as well as the
	// pool's breaker, holds and windows (node.UpdateHold).
	UpdateGates []node.DisruptionGate
}

func (o *TenantOptions) setDefaults() {
	if o.CoalesceWait <= 0 {
		o.CoalesceWait = 10 * time.Minute
	}
	if o.DrainAttemptTimeout <= 0 {
		o.DrainAttemptTimeout = 90 * time.Second
	}
	if o.DrainRetryDelay <= 0 {
		o.DrainRetryDelay = 10 * time.Second
	}
	if o.Resync <= 0 {
		o.Resync = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Admission == nil {
		o.Admission = node.NewAdmission()
	}
	if o.AnnounceWait == 0 {
		o.AnnounceWait = 2 * time.Minute
	}
}

// TenantController serves HostMaintenance requests in the tenant cluster.
type TenantController struct {
	kube     kubernetes.Interface
	requests HostMaintenanceLister
	writer   TenantWriter
	drains   TenantDrainer
	nodes    corelisters.NodeLister
	pools    mcfglisters.MachineConfigPoolLister
	// configs are the MachineConfigs (nil: paired hosts do not wait).
	configs mcfglisters.MachineConfigLister
	// mcns are the MachineConfigNodes (nil: not read).
	mcns    mcfglisters.MachineConfigNodeLister
	opts    TenantOptions
	events  *eventSink
	metrics *tenantMetrics
	// informer, synced and queue run the controller (NewTenantController);
	// nil in one made by NewTenantControllerFrom, which only syncs.
	informer cache.SharedIndexInformer
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	// nodeMaintenances watches NodeMaintenance objects (nil: not served).
	nodeMaintenances cache.SharedIndexInformer
	// nodeCache keeps the nodes' TenantNodes between snapshots.
	nodeCache tenantNodeCache
	// written are the request statuses written and not yet in the informer.
	written *writtenStatuses
}

const tenantKey = "hostmaintenances"

// waitingRecheck is how soon a plan that waits on a deadline (a staging
// host, see TenantOptions.CoalesceWait) is made again.
const waitingRecheck = 5 * time.Second

// NewTenantController wires the tenant controller. It makes its own
// HostMaintenance informer (started by Run) on hm; the node and pool
// informers are the caller's shared ones. Add Gate() to the tenant node
// controller's Options.Gates.
func NewTenantController(kube kubernetes.Interface, hm *HostMaintenances, nodeInformer coreinformers.NodeInformer,
	poolInformer mcfginformers.MachineConfigPoolInformer, opts TenantOptions) (*TenantController, error) {
	opts.setDefaults()
	informer := hm.NewInformer(10 * time.Minute)
	parts := TenantParts{Requests: informerRequests{informer}, Nodes: nodeInformer.Lister(), Pools: poolInformer.Lister(),
		Writer: kubeTenantWriter{kube: kube, hm: hm}}
	if mc := opts.MachineConfigs; mc != nil {
		parts.Configs = mc.Lister()
	}
	if m := opts.MachineConfigNodes; m != nil {
		parts.MachineConfigNodes = m.Lister()
	}
	q := queue.New(TenantComponentName)
	parts.Drains = newDrainer(kube, opts.DrainAttemptTimeout, opts.DrainRetryDelay, func() { q.Add(tenantKey) })
	c, err := newTenantController(kube, parts, opts)
	if err != nil {
		return nil, err
	}
	c.informer, c.queue = informer, q
	c.synced = []cache.InformerSynced{c.informer.HasSynced, nodeInformer.Informer().HasSynced, poolInformer.Informer().HasSynced}
	enqueue := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.queue.Add(tenantKey) },
		UpdateFunc: func(any, any) { c.queue.Add(tenantKey) },
		DeleteFunc: func(any) { c.queue.Add(tenantKey) },
	}
	if _, err := c.informer.AddEventHandler(enqueue); err != nil {
		return nil, err
	}
	if _, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.written.delivered,
		UpdateFunc: func(_, obj any) { c.written.delivered(obj) },
		DeleteFunc: c.written.deleted,
	}); err != nil {
		return nil, err
	}
	if mc := opts.MachineConfigs; mc != nil {
		c.synced = append(c.synced, mc.Informer().HasSynced)
	}
	if m := opts.MachineConfigNodes; m != nil {
		c.synced = append(c.synced, m.Informer().HasSynced)
	}
	if opts.NodeMaintenances != nil {
		c.nodeMaintenances = newNodeMaintenanceInformer(opts.NodeMaintenances, 10*time.Minute)
		c.synced = append(c.synced, c.nodeMaintenances.HasSynced)
		if _, err := c.nodeMaintenances.AddEventHandler(enqueue); err != nil {
			return nil, err
		}
	}
	if _, err := poolInformer.Informer().AddEventHandler(enqueue); err != nil {
		return nil, err
	}
	if _, err := nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { c.queue.Add(tenantKey) },
		UpdateFunc: func(old, cur any) {
			o, n := old.(*corev1.Node), cur.(*corev1.Node)
			if tenantNodeChanged(o, n) {
				c.queue.AddAfter(tenantKey, opts.UpdateDelay) // at once when 0
			}
		},
		DeleteFunc: func(any) { c.queue.Add(tenantKey) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// NewTenantControllerFrom makes a tenant controller on the given edges,
// for a caller that runs its decisions itself (Sync, Gate): it has no
// informers and no queue, so Run refuses it. TenantOptions.MachineConfigs,
// MachineConfigNodes and NodeMaintenances are not used (parts carries the
// listers); a nil Recorder discards the events.
func NewTenantControllerFrom(parts TenantParts, opts TenantOptions) (*TenantController, error) {
	if parts.Requests == nil || parts.Nodes == nil || parts.Pools == nil || parts.Writer == nil || parts.Drains == nil {
		return nil, fmt.Errorf("tenant controller: parts need Requests, Nodes, Pools, Writer and Drains (have %+v)", parts)
	}
	if opts.Recorder == nil {
		opts.Recorder = discardEvents{}
	}
	opts.MachineConfigs, opts.MachineConfigNodes, opts.NodeMaintenances = nil, nil, nil
	return newTenantController(nil, parts, opts)
}

func newTenantController(kube kubernetes.Interface, parts TenantParts, opts TenantOptions) (*TenantController, error) {
	opts.setDefaults()
	events, err := newEventSink(kube, opts.Recorder, TenantComponentName)
	if err != nil {
		return nil, err
	}
	m, err := newTenantMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	return &TenantController{
		kube:     kube,
		requests: parts.Requests,
		writer:   parts.Writer,
		drains:   parts.Drains,
		nodes:    parts.Nodes,
		pools:    parts.Pools,
		configs:  parts.Configs,
		mcns:     parts.MachineConfigNodes,
		opts:     opts,
		events:   events,
		metrics:  m,
		written:  newWrittenStatuses(time.Minute),
	}, nil
}

// discardEvents is an event recorder that records nothing.
type discardEvents struct{}

func (discardEvents) Event(runtime.Object, string, string, string)          {}
func (discardEvents) Eventf(runtime.Object, string, string, string, ...any) {}
func (discardEvents) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}

// tenantNodeChanged tells whether anything DecideTenant reads differs
// (heartbeats do not wake the controller).
func tenantNodeChanged(o, n *corev1.Node) bool {
	if o.Spec.Unschedulable != n.Spec.Unschedulable || node.NodeReady(o) != node.NodeReady(n) {
		return true
	}
	oldTaint, hadTaint := dpuTaint(o)
	newTaint, hasTaint := dpuTaint(n)
	if hadTaint != hasTaint || oldTaint != newTaint {
		return true
	}
	for k, v := range n.Annotations {
		if strings.HasPrefix(k, constants.Prefix) || strings.HasPrefix(k, constants.DPUGroup) {
			if o.Annotations[k] != v {
				return true
			}
		}
	}
	for k := range o.Annotations {
		if _, ok := n.Annotations[k]; !ok {
			return true
		}
	}
	return false
}

// Gate returns the node planner's gate for the tenant pools
// (TenantGateVerdict): it vetoes grants to nodes with an open Drain or
// Reboot request (their update is coalesced with the maintenance), and
// holds a paired host's new update back until its DPU had time to ask for
// maintenance. Places in a pool's maxUnavailable are shared through
// TenantOptions.Admission, not through the gate.
func (c *TenantController) Gate() node.DisruptionGate { return tenantGate{c: c} }

// Run starts the HostMaintenance informer, waits for the caches and serves
// requests until ctx ends.
func (c *TenantController) Run(ctx context.Context) error {
	if c.informer == nil {
		return fmt.Errorf("tenant controller: made by NewTenantControllerFrom, it has no informers to run")
	}
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", "hostmaintenance")
	ctx = klog.NewContext(ctx, logger)
	go c.informer.RunWithContext(ctx)
	if c.nodeMaintenances != nil {
		go c.nodeMaintenances.RunWithContext(ctx)
	}
	stop := c.events.start()
	defer stop()
	if err := queue.WaitForCaches(ctx, "hostmaintenance", "hostmaintenance controller: caches", c.synced...); err != nil {
		return err
	}
	logger.Info("Starting HostMaintenance controller (tenant)", "announceWait", c.opts.AnnounceWait,
		"nodeMaintenance", c.nodeMaintenances != nil)
	c.queue.Add(tenantKey)
	// One worker: admission order is global. The queue holds the single
	// tenantKey.
	queue.Workers{
		Queue:          c.queue,
		Sync:           func(ctx context.Context, _ string) (time.Duration, error) { return c.Sync(ctx) },
		FailureMessage: "HostMaintenance sync failed; will retry",
		QuietConflicts: true,
	}.Run(ctx, 1)
	logger.Info("Stopping HostMaintenance controller")
	return nil
}

// Sync observes, decides and applies once. It returns when to look again.
func (c *TenantController) Sync(ctx context.Context) (time.Duration, error) {
	snap, plan, err := c.admit(ctx)
	if err != nil {
		return 0, err
	}
	if err := c.applyStatuses(ctx, plan.Statuses); err != nil {
		return 0, err
	}
	c.metrics.observe(snap.Requests, plan.Statuses)
	switch {
	case plan.Waiting:
		return waitingRecheck, nil
	case len(snap.Requests) > 0:
		return c.opts.Resync, nil
	}
	return 0, nil
}

// admit decides and makes the node changes under the cluster's admission
// lock (shared with the node planner): the decision sees every grant and
// hold made so far, and the planner's next plan sees this one's holds and
// coalesced grants. Statuses are written after: the planner does not read
// them (its gate vetoes any node with an open request, whatever its phase).
func (c *TenantController) admit(ctx context.Context) (TenantSnapshot, TenantPlan, error) {
	c.opts.Admission.Lock()
	defer c.opts.Admission.Unlock()
	snap, err := c.snapshot(ctx)
	if err != nil {
		return snap, TenantPlan{}, err
	}
	plan := DecideTenant(snap)
	for _, a := range plan.Nodes {
		if err := c.applyNode(ctx, a, snap.Nodes[a.Node]); err != nil {
			return snap, plan, err
		}
	}
	return snap, plan, nil
}

// snapshot reads the requests, and the nodes as the admission shows them.
// Call it under the admission lock.
func (c *TenantController) snapshot(ctx context.Context) (TenantSnapshot, error) {
	s := TenantSnapshot{
		Now:          c.opts.Now(),
		Nodes:        map[string]TenantNode{},
		Pools:        map[string]TenantPool{},
		Drains:       c.drains.States(),
		CoalesceWait: c.opts.CoalesceWait,
		AnnounceWait: c.opts.AnnounceWait,
	}
	for _, hm := range c.requests.List() {
		s.Requests = append(s.Requests, c.written.current(hm, s.Now))
	}
	if c.opts.DesiredRelease != nil && slices.ContainsFunc(s.Requests, openReboot) {
		rel, err := c.opts.DesiredRelease(ctx)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Cannot tell whether a release upgrade is under way; a host's reboot does not wait for its render")
		}
		s.DesiredRelease = rel
	}
	if c.nodeMaintenances != nil {
		for _, obj := range c.nodeMaintenances.GetStore().List() {
			if hm, ok := nodeMaintenanceRequest(obj.(*unstructured.Unstructured)); ok {
				s.Requests = append(s.Requests, hm)
			}
		}
	}
	cached, err := c.nodes.List(labels.Everything())
	if err != nil {
		return s, err
	}
	s.Nodes = make(map[string]TenantNode, len(cached))
	nodes := make([]*corev1.Node, 0, len(cached))
	for _, n := range cached {
		nodes = append(nodes, c.opts.Admission.Node(n, s.Now))
	}
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		return s, err
	}
	members := map[string]int{}
	for _, tn := range c.nodeCache.nodes(pools, nodes, klog.FromContext(ctx)) {
		s.Nodes[tn.View.Name] = tn
		members[tn.Pool]++
	}
	var degraded node.DegradedConditions
	if c.mcns != nil {
		mcns, err := c.mcns.List(labels.Everything())
		if err != nil {
			return s, err
		}
		degraded = node.DegradedConditionsOf(mcns)
	}
	for _, p := range pools {
		maxU, err := node.MaxUnavailable(p.Spec.MaxUnavailable, members[p.Name])
		if err != nil {
			maxU = 1 // the planner grants nothing with an invalid value; one maintenance at a time still serves
		}
		s.Pools[p.Name] = c.tenantPoolOf(p, maxU)
		c.markUpdateHolds(s, p, degraded)
	}
	return s, nil
}

// markUpdateHolds records, for each node of pool p, what holds its update
// back by the pool's own rules (node.UpdateHold), so that a coalesced
// update or a hand-over respects them.
func (c *TenantController) markUpdateHolds(s TenantSnapshot, p *mcfgv1.MachineConfigPool, degraded node.DegradedConditions) {
	pv := node.ViewOfPool(p)
	var views []node.NodeView
	for _, tn := range s.Nodes {
		if tn.Pool == p.Name {
			views = append(views, tn.View)
		}
	}
	breaker := node.EvaluateBreaker(pv, views, degraded, s.Now)
	for name, tn := range s.Nodes {
		if tn.Pool == p.Name {
			tn.UpdateHeld = node.UpdateHold(pv, breaker, tn.View, s.Now, c.opts.UpdateGates)
			s.Nodes[name] = tn
		}
	}
}

func (c *TenantController) tenantPoolOf(p *mcfgv1.MachineConfigPool, maxUnavailable int) TenantPool {
	tp := TenantPool{Name: p.Name, Target: p.Spec.Configuration.Name, Paused: p.Spec.Paused, MaxUnavailable: maxUnavailable}
	if c.configs != nil && tp.Target != "" {
		if mc, err := c.configs.Get(tp.Target); err == nil {
			tp.TargetSince = mc.CreationTimestamp.Time
			tp.TargetRelease = mc.Annotations[render.ReleaseImageVersionAnnotation]
		}
	}
	return tp
}

// dpuTaint returns the value of a node's DPU-not-ready taint.
func dpuTaint(n *corev1.Node) (string, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == constants.DPUNotReadyTaintKey {
			return t.Value, true
		}
	}
	return "", false
}

func tenantNodeOf(n *corev1.Node, pool *mcfgv1.MachineConfigPool) TenantNode {
	a := n.Annotations
	record, hasHold := a[constants.MaintenanceCordonAnnotation]
	_, drainRecord := a[constants.CordonedByAdminAnnotation]
	desiredDrain, lastDrain := a[constants.DesiredDrainAnnotation], a[constants.LastAppliedDrainAnnotation]
	tn := TenantNode{
		View:       node.ViewOfNode(n),
		HoldRecord: record,
		HasHold:    hasHold,
		UpdateDrain: drainRecord || desiredDrain != lastDrain ||
			strings.HasPrefix(desiredDrain, constants.DrainerStateDrain+"-"),
		RebootRequest: a[constants.RebootRequestAnnotation],
		LastReboot:    a[constants.LastRebootAnnotation],
	}
	tn.Taint, tn.HasTaint = dpuTaint(n)
	if pool != nil {
		tn.Pool = pool.Name
	}
	_, master := n.Labels[constants.NodeRoleLabelPrefix+constants.MasterPool]
	_, cp := n.Labels[constants.NodeRoleLabelPrefix+"control-plane"]
	tn.ControlPlane = master || cp || tn.Pool == constants.MasterPool
	return tn
}

func (c *TenantController) applyStatuses(ctx context.Context, updates []StatusUpdate) error {
	for _, u := range updates {
		if name, ok := strings.CutPrefix(u.Name, nodeMaintenanceKind+"/"); ok {
			if err := c.applyNodeMaintenanceStatus(ctx, name, u); err != nil {
				return err
			}
			continue
		}
		cached, exists := c.requests.Get(u.Name)
		if !exists {
			continue // deleted meanwhile
		}
		now := c.opts.Now()
		cur := c.written.current(cached, now)
		if string(cur.UID) != u.UID {
			continue
		}
		next := cur.DeepCopy()
		next.Status = u.Status
		written, err := c.writer.UpdateStatus(ctx, next)
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("updating status of HostMaintenance %s: %w", u.Name, err)
		}
		c.written.wrote(written, now)
		if cur.Status.Phase != u.Status.Phase {
			typ := corev1.EventTypeNormal
			if u.Status.Phase == dpuv1.PhaseRejected {
				typ = corev1.EventTypeWarning
			}
			c.events.recorder.Event(next, typ, string(u.Status.Phase), u.Status.Message)
			klog.FromContext(ctx).Info("HostMaintenance phase changed", "request", u.Name, "node", cur.Spec.NodeName,
				"action", cur.Spec.Action, "from", cur.Status.Phase, "to", u.Status.Phase, "message", u.Status.Message)
		}
	}
	return nil
}

// applyNodeMaintenanceStatus writes a served NodeMaintenance's status in
// the node-maintenance-operator's terms, with an event on the node when its
// phase changes.
func (c *TenantController) applyNodeMaintenanceStatus(ctx context.Context, name string, u StatusUpdate) error {
	obj, exists, err := c.nodeMaintenances.GetStore().GetByKey(name)
	if err != nil || !exists {
		return nil
	}
	cur := obj.(*unstructured.Unstructured)
	if string(cur.GetUID()) != u.UID {
		return nil
	}
	changed, err := writeNodeMaintenanceStatus(ctx, c.opts.NodeMaintenances, cur, u.Status, c.opts.Now())
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if changed {
		nodeName, _, _ := unstructured.NestedString(cur.Object, "spec", "nodeName")
		phase, _, _ := nodeMaintenanceStatus(u.Status)
		klog.FromContext(ctx).Info("NodeMaintenance phase changed", "nodeMaintenance", name, "node", nodeName, "phase", phase,
			"message", u.Status.Message)
		if n, err := c.nodes.Get(nodeName); err == nil {
			typ := corev1.EventTypeNormal
			if u.Status.Phase == dpuv1.PhaseRejected {
				typ = corev1.EventTypeWarning
			}
			c.events.recorder.Eventf(n, typ, "NodeMaintenance", "NodeMaintenance %s: %s (%s)", name, orNone(phase), u.Status.Message)
		}
	}
	return nil
}

// openRequestsFor returns the open (not terminal, not deleted) requests for
// a node, served NodeMaintenance objects included.
func (c *TenantController) openRequestsFor(nodeName string) []*dpuv1.HostMaintenance {
	out := c.requests.ByNode(nodeName)
	if c.nodeMaintenances != nil {
		objs, _ := c.nodeMaintenances.GetIndexer().ByIndex(IndexByNode, nodeName)
		for _, o := range objs {
			if hm, ok := nodeMaintenanceRequest(o.(*unstructured.Unstructured)); ok {
				out = append(out, hm)
			}
		}
	}
	return slices.DeleteFunc(out, func(hm *dpuv1.HostMaintenance) bool {
		return hm.DeletionTimestamp != nil || hm.Status.Phase.Terminal()
	})
}

// openReboot tells whether hm is a Reboot request not ended yet.
func openReboot(hm *dpuv1.HostMaintenance) bool {
	return hm.Spec.Action == dpuv1.ActionReboot && !hm.Status.Phase.Terminal() && hm.DeletionTimestamp == nil
}

// tenantGate keeps the tenant node planner off nodes that maintenance holds
// or waits for (TenantGateVerdict).
type tenantGate struct{ c *TenantController }

func (g tenantGate) Name() string { return "HostMaintenance" }

func (g tenantGate) MayDisrupt(pool node.PoolView, n node.NodeView) (bool, string) {
	c := g.c
	tp := TenantPool{Name: pool.Name, Target: pool.Target}
	if p, err := c.pools.Get(pool.Name); err == nil {
		tp = c.tenantPoolOf(p, 0)
	}
	wait := c.opts.AnnounceWait
	if c.configs == nil {
		wait = 0 // no configs to tell a target's creation: paired hosts do not wait
	}
	return TenantGateVerdict(TenantGateInput{Node: n, Pool: tp, Requests: c.openRequestsFor(n.Name),
		AnnounceWait: wait, Now: c.opts.Now(), RequestsUnknown: !c.cachesSynced()})
}

// cachesSynced reports whether every cache the controller reads has
// synced. The node planner runs its own informers and may plan before
// these are read.
func (c *TenantController) cachesSynced() bool {
	for _, synced := range c.synced {
		if !synced() {
			return false
		}
	}
	return true
}
