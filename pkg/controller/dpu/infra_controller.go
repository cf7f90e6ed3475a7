package dpu

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
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
)

// InfraComponentName is the infra controller's event source and queue name.
const InfraComponentName = "machineconfigcontroller-dpupairing"

// Event reasons on infra nodes.
const (
	EventTenantHoldOverdue  = "TenantHoldOverdue"
	EventTenantHoldResolved = "TenantHoldResolved"
	EventHostMaintenance    = "HostMaintenance"
	EventHostMaintenanceBad = "HostMaintenanceProblem"
)

// InfraOptions tune the infra controller; zero values get defaults.
type InfraOptions struct {
	// Mode: ModeLeader (default) or ModeExternal.
	Mode Mode
	// DisableHostReboot: do not ask for the host's reboot after its DPU
	// rebooted (default: ask).
	DisableHostReboot bool
	// DrainOnDemand: ask for a host's drain only when the infra planner
	// wants to grant its DPU. Default (false): as soon as the DPU needs
	// its pool's update, so the tenant planner leaves the host alone and
	// the tenant's own update is coalesced with the host's reboot. That
	// takes tenant capacity (its maxUnavailable) earlier.
	DrainOnDemand bool
	// HoldThreshold: a tenant that holds an infra update back longer is
	// reported (metric, event, DisruptionHeld message). Default 1h.
	HoldThreshold time.Duration
	// PairingConfigMap, when set, imports the dpu-network-operator's
	// env-overrides ConfigMap (TENANT_K8S_NODE per DPU node) from the infra
	// cluster; a node's TenantNodeAnnotation wins over it.
	PairingConfigMap types.NamespacedName
	// Requester is written to spec.requester. Default RequesterInfraController.
	Requester string
	// Resync re-examines nodes with an open cycle this often. Default 30s.
	Resync time.Duration
	// Registerer registers the metrics; nil: not registered.
	Registerer prometheus.Registerer
	// Recorder records events on infra nodes; nil: one writing to the infra apiserver.
	Recorder record.EventRecorder
	// Now is the clock; default time.Now.
	Now func() time.Time
	// OutageGrace: a paired DPU down (Node not Ready, or a required
	// DaemonSet without a Ready pod on it) this long gets its host tainted
	// NoSchedule. Default 1m; negative: never.
	OutageGrace time.Duration
	// OutageRecovery: a tainted host's DPU must be back this long before the
	// taint goes (a flapping DPU keeps it). Default 30s.
	OutageRecovery time.Duration
	// RequiredDaemonSets must each run a Ready pod on a DPU for it to be up
	// (e.g. the DPU's ovnkube-node); none: the Node's Ready condition only.
	RequiredDaemonSets []types.NamespacedName
}

func (o *InfraOptions) setDefaults() error {
	switch o.Mode {
	case "":
		o.Mode = ModeLeader
	case ModeLeader, ModeExternal:
	default:
		return fmt.Errorf("dpu mode %q: want %s or %s", o.Mode, ModeLeader, ModeExternal)
	}
	if o.HoldThreshold <= 0 {
		o.HoldThreshold = time.Hour
	}
	if o.Requester == "" {
		o.Requester = constants.RequesterInfraController
	}
	if o.Resync <= 0 {
		o.Resync = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OutageGrace == 0 {
		o.OutageGrace = time.Minute
	}
	if o.OutageRecovery <= 0 {
		o.OutageRecovery = 30 * time.Second
	}
	return nil
}

// InfraController is the infra side: it pairs infra nodes with tenant hosts,
// asks the tenant cluster for drains and reboots (leader mode) and gates the
// infra planner's grants on them.
type InfraController struct {
	infra    kubernetes.Interface
	tenant   *HostMaintenances
	requests cache.SharedIndexInformer // in the tenant cluster
	nodes    corelisters.NodeLister
	pools    mcfglisters.MachineConfigPoolLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	opts     InfraOptions
	events   *eventSink
	metrics  *infraMetrics

	cmInformer cache.SharedIndexInformer // nil without PairingConfigMap
	pods       *daemonSetPods            // nil without RequiredDaemonSets

	mu      sync.Mutex
	waiting map[string]wait1 // infra node -> the planner's current wait for its host
}

// wait1 is one wait of the planner for a host's drain. Its start is also
// written on the infra node (TenantHoldSinceAnnotation), which is what
// counts: a restarted controller carries on from there.
type wait1 struct {
	host    string
	since   time.Time
	overdue bool // announced by this process
}

// NewInfraController wires the infra side. infra is the infra cluster's
// client; tenant is a HostMaintenance client for the tenant cluster with
// the infra identity (manifests/rbac). The node and pool informers are the
// infra cluster's shared ones. Add Gate() to the infra node controller's
// Options.Gates.
func NewInfraController(infra kubernetes.Interface, tenant *HostMaintenances, nodeInformer coreinformers.NodeInformer,
	poolInformer mcfginformers.MachineConfigPoolInformer, opts InfraOptions) (*InfraController, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	events, err := newEventSink(infra, opts.Recorder, InfraComponentName)
	if err != nil {
		return nil, err
	}
	m, err := newInfraMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	c := &InfraController{
		infra:    infra,
		tenant:   tenant,
		requests: tenant.NewInformer(10 * time.Minute),
		nodes:    nodeInformer.Lister(),
		pools:    poolInformer.Lister(),
		queue:    queue.New(InfraComponentName),
		opts:     opts,
		events:   events,
		metrics:  m,
		waiting:  map[string]wait1{},
	}
	c.synced = []cache.InformerSynced{c.requests.HasSynced, nodeInformer.Informer().HasSynced, poolInformer.Informer().HasSynced}
	if cm := opts.PairingConfigMap; cm.Name != "" {
		f := informers.NewSharedInformerFactoryWithOptions(infra, 10*time.Minute, informers.WithNamespace(cm.Namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", cm.Name).String()
			}))
		c.cmInformer = f.Core().V1().ConfigMaps().Informer()
		c.synced = append(c.synced, c.cmInformer.HasSynced)
		if _, err := c.cmInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { c.enqueueAll() }, UpdateFunc: func(any, any) { c.enqueueAll() }, DeleteFunc: func(any) { c.enqueueAll() },
		}); err != nil {
			return nil, err
		}
	}
	if len(opts.RequiredDaemonSets) > 0 {
		if c.pods, err = newDaemonSetPods(infra, opts.RequiredDaemonSets, c.enqueueNodeName); err != nil {
			return nil, err
		}
		c.synced = append(c.synced, c.pods.synced...)
	}
	if _, err := nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueNode(obj) },
		UpdateFunc: func(old, cur any) {
			if infraNodeChanged(old.(*corev1.Node), cur.(*corev1.Node)) {
				c.enqueueNode(cur)
			}
		},
		DeleteFunc: func(obj any) { c.enqueueNode(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := poolInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { c.enqueueAll() }, UpdateFunc: func(any, any) { c.enqueueAll() }, DeleteFunc: func(any) { c.enqueueAll() },
	}); err != nil {
		return nil, err
	}
	if _, err := c.requests.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.requestChanged, UpdateFunc: func(_, cur any) { c.requestChanged(cur) }, DeleteFunc: c.requestChanged,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func infraNodeChanged(o, n *corev1.Node) bool {
	return !equalViews(node.ViewOfNode(o), node.ViewOfNode(n)) ||
		o.Annotations[constants.TenantNodeAnnotation] != n.Annotations[constants.TenantNodeAnnotation] ||
		o.Annotations[constants.HostMaintenanceCycleAnnotation] != n.Annotations[constants.HostMaintenanceCycleAnnotation] ||
		o.Annotations[constants.TenantHoldSinceAnnotation] != n.Annotations[constants.TenantHoldSinceAnnotation] ||
		!readySince(o).Equal(readySince(n))
}

// readySince is the Ready condition's last transition time.
func readySince(n *corev1.Node) time.Time {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func equalViews(a, b node.NodeView) bool {
	return a.Current == b.Current && a.Desired == b.Desired && a.State == b.State && a.Ready == b.Ready &&
		a.Unschedulable == b.Unschedulable && a.Stage == b.Stage && a.Staged == b.Staged
}

func (c *InfraController) enqueueNode(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if n, ok := obj.(*corev1.Node); ok {
		c.queue.Add(n.Name)
	}
}

func (c *InfraController) enqueueNodeName(name string) { c.queue.Add(name) }

func (c *InfraController) enqueueAll() {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	for _, n := range nodes {
		c.queue.Add(n.Name)
	}
}

func (c *InfraController) requestChanged(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	hm, ok := obj.(*dpuv1.HostMaintenance)
	if !ok {
		return
	}
	if x := hm.Annotations[constants.InfraNodeAnnotation]; x != "" {
		c.queue.Add(x)
		return
	}
	c.enqueueAll() // a coordinator's request: any paired node may care
}

// Gate returns the infra planner's gate: an infra node is granted only while
// its tenant host is held Drained.
func (c *InfraController) Gate() node.DisruptionGate { return infraGate{c: c} }

// Run starts the tenant HostMaintenance informer (and the pairing
// ConfigMap's), waits for the caches and runs until ctx ends.
func (c *InfraController) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", "dpupairing")
	ctx = klog.NewContext(ctx, logger)
	go c.requests.RunWithContext(ctx)
	if c.cmInformer != nil {
		go c.cmInformer.RunWithContext(ctx)
	}
	if c.pods != nil {
		c.pods.run(ctx)
	}
	stop := c.events.start()
	defer stop()
	if err := queue.WaitForCaches(ctx, "dpupairing", "dpu pairing controller: caches", c.synced...); err != nil {
		return err
	}
	logger.Info("Starting DPU pairing controller (infra)", "mode", c.opts.Mode, "rebootHost", !c.opts.DisableHostReboot,
		"drainAhead", !c.opts.DrainOnDemand, "holdThreshold", c.opts.HoldThreshold, "outageGrace", c.opts.OutageGrace,
		"requiredDaemonSets", c.opts.RequiredDaemonSets)
	c.enqueueAll()
	queue.Workers{
		Queue:          c.queue,
		Sync:           c.Sync,
		KeyName:        "node",
		FailureMessage: "DPU pairing sync failed; will retry",
	}.Run(ctx, max(workers, 1))
	logger.Info("Stopping DPU pairing controller")
	return nil
}

// Sync decides and applies for one infra node.
func (c *InfraController) Sync(ctx context.Context, name string) (time.Duration, error) {
	logger := klog.FromContext(ctx).WithValues("node", name)
	// The node is read from the apiserver, not the cache: its cycle
	// annotation is this controller's own write, and a cache that still
	// shows a cycle it just closed makes it ask for the host's Reboot again,
	// then delete that request while the host reboots (found by the node
	// planner's property test, pkg/controller/node, seed 287).
	n, err := c.infra.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		c.forgetWait(name)
		c.metrics.hostTainted.DeletePartialMatch(prometheus.Labels{"infra_node": name})
		return 0, c.deleteRequestsOf(ctx, name)
	}
	if err != nil {
		return 0, err
	}
	host := c.hostOf(n)
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		return 0, err
	}
	pool, err := node.PrimaryPool(pools, n)
	if err != nil {
		return 0, err
	}
	v := node.ViewOfNode(n)
	waitable := pool != nil && !pool.Spec.Paused && pool.Spec.Configuration.Name != "" && v.Current != pool.Spec.Configuration.Name
	if err := c.reportWait(ctx, n, host, waitable); err != nil {
		return 0, err
	}
	if c.opts.Mode != ModeLeader || pool == nil {
		return c.requeueWhileWaiting(name), nil
	}
	record, hasCycle := n.Annotations[constants.HostMaintenanceCycleAnnotation]
	s := InfraSnapshot{
		Pool:       InfraPool{Name: pool.Name, Target: pool.Spec.Configuration.Name, Paused: pool.Spec.Paused},
		Node:       v,
		Host:       host,
		CycleFrom:  record,
		HasCycle:   hasCycle,
		Drain:      c.request(DrainRequestName(name)),
		Reboot:     c.request(RebootRequestName(name)),
		Pair:       c.request(PairRequestName(name)),
		Wanted:     c.isWaiting(name),
		RebootHost: !c.opts.DisableHostReboot,
		Ahead:      !c.opts.DrainOnDemand,
	}
	actions := DecideInfra(s)
	// While its update is granted, or its cycle keeps the host drained for
	// it, a DPU that is down is no surprise to anyone.
	outage, outageRecheck := c.decideOutage(n, host, granted(n) || hasCycle)
	actions = append(actions, outage...)
	tainted := c.request(OutageRequestName(name)) != nil
	for _, a := range actions {
		if err := c.apply(ctx, n, host, pool.Spec.Configuration.Name, record, a); err != nil {
			return 0, err
		}
		if a.Name == OutageRequestName(name) {
			tainted = a.Kind == CreateRequest
		}
		logger.V(2).Info("Applied", "action", a.Kind, "request", a.Name, "host", host)
	}
	c.metrics.hostTainted.DeletePartialMatch(prometheus.Labels{"infra_node": name})
	if host != "" {
		c.metrics.hostTainted.WithLabelValues(name, host).Set(map[bool]float64{true: 1}[tainted])
	}
	requeue := c.requeueWhileWaiting(name)
	if requeue == 0 && (hasCycle || s.Drain != nil || s.Reboot != nil) {
		requeue = c.opts.Resync
	}
	if outageRecheck > 0 && (requeue == 0 || outageRecheck < requeue) {
		requeue = outageRecheck + 10*time.Millisecond
	}
	return requeue, nil
}

// decideOutage is DecideOutage on what the caches show of the node.
func (c *InfraController) decideOutage(n *corev1.Node, host string, planned bool) ([]InfraAction, time.Duration) {
	if c.opts.OutageGrace < 0 {
		return nil, 0
	}
	in := OutageInput{Node: n.Name, Host: host, Ready: nodeIsReady(n), ReadySince: readySince(n),
		Taint: c.request(OutageRequestName(n.Name)), Planned: planned, Now: c.opts.Now(),
		Grace: c.opts.OutageGrace, Recovery: c.opts.OutageRecovery}
	in.DownSince, _ = annotationTime(n, constants.DPUDownSinceAnnotation)
	if c.pods != nil {
		in.Missing, in.Absent, in.UpSince = c.pods.state(n.Name)
	}
	return DecideOutage(in)
}

// nodeIsReady reports the Node's Ready condition (True).
func nodeIsReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deleteRequestsOf deletes the tenant requests of an infra node that is
// gone: its host is released, untainted and unpaired.
func (c *InfraController) deleteRequestsOf(ctx context.Context, name string) error {
	if c.opts.Mode != ModeLeader {
		return nil
	}
	for _, req := range []string{RebootRequestName(name), DrainRequestName(name), OutageRequestName(name), PairRequestName(name)} {
		if c.request(req) == nil {
			continue
		}
		if err := c.tenant.Delete(ctx, req, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting HostMaintenance %s of the deleted infra node %s: %w", req, name, err)
		}
	}
	return nil
}

func (c *InfraController) apply(ctx context.Context, n *corev1.Node, host, target, record string, a InfraAction) error {
	if a.Warning != "" {
		c.events.recorder.Event(n, corev1.EventTypeWarning, EventHostMaintenanceBad, a.Warning)
	}
	switch a.Kind {
	case OpenCycle:
		if err := c.setNodeAnnotation(ctx, n.Name, constants.HostMaintenanceCycleAnnotation, a.From); err != nil {
			return fmt.Errorf("opening the maintenance cycle on %s: %w", n.Name, err)
		}
	case RecordDownSince, ClearDownSince:
		if err := c.setNodeAnnotation(ctx, n.Name, constants.DPUDownSinceAnnotation, a.From); err != nil {
			return fmt.Errorf("recording the start of the DPU outage on %s: %w", n.Name, err)
		}
	case CloseCycle:
		patch, _ := json.Marshal([]map[string]any{
			{"op": "test", "path": annotationPath(constants.HostMaintenanceCycleAnnotation), "value": record},
			{"op": "remove", "path": annotationPath(constants.HostMaintenanceCycleAnnotation)},
		})
		if _, err := c.infra.CoreV1().Nodes().Patch(ctx, n.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("closing the maintenance cycle on %s: %w", n.Name, err)
		}
		c.events.recorder.Eventf(n, corev1.EventTypeNormal, EventHostMaintenance, "Tenant host %s maintenance cycle for %s closed", host, target)
	case CreateRequest:
		reason := a.Reason
		if reason == "" {
			reason = requestReason(a.Action, n.Name, target)
		}
		hm := &dpuv1.HostMaintenance{
			ObjectMeta: metav1.ObjectMeta{Name: a.Name, Annotations: map[string]string{constants.InfraNodeAnnotation: n.Name}},
			Spec:       dpuv1.HostMaintenanceSpec{NodeName: host, Action: a.Action, Requester: c.opts.Requester, Reason: reason},
		}
		if _, err := c.tenant.Create(ctx, hm); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return nil // the informer has not shown it yet
			}
			return fmt.Errorf("creating HostMaintenance %s in the tenant cluster: %w", a.Name, err)
		}
		c.metrics.requests.WithLabelValues(string(a.Action)).Inc()
		switch a.Action {
		case dpuv1.ActionTaint:
			c.events.recorder.Eventf(n, corev1.EventTypeWarning, EventDPUNotReady, "%s; asked the tenant cluster to taint host %s (HostMaintenance %s)",
				reason, host, a.Name)
		case dpuv1.ActionPair:
		default:
			c.events.recorder.Eventf(n, corev1.EventTypeNormal, EventHostMaintenance, "Asked the tenant cluster to %s host %s (HostMaintenance %s)",
				strings.ToLower(string(a.Action)), host, a.Name)
		}
	case DeleteRequest:
		if err := c.tenant.Delete(ctx, a.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting HostMaintenance %s in the tenant cluster: %w", a.Name, err)
		}
		if a.Name == OutageRequestName(n.Name) {
			c.events.recorder.Eventf(n, corev1.EventTypeNormal, EventDPUReady, "DPU %s is back; asked the tenant cluster to untaint host %s", n.Name, host)
		}
	}
	return nil
}

func requestReason(action dpuv1.HostMaintenanceAction, infraNode, target string) string {
	if action == dpuv1.ActionReboot {
		return fmt.Sprintf("DPU %s rebooted onto %s; the host's VFs must be recreated", infraNode, target)
	}
	return fmt.Sprintf("DPU %s is about to reboot to update to %s; its host loses its network meanwhile", infraNode, target)
}

func (c *InfraController) request(name string) *dpuv1.HostMaintenance {
	obj, exists, err := c.requests.GetStore().GetByKey(name)
	if err != nil || !exists {
		return nil
	}
	return obj.(*dpuv1.HostMaintenance)
}

func (c *InfraController) requestsFor(host string) []*dpuv1.HostMaintenance {
	objs, err := c.requests.GetIndexer().ByIndex(IndexByNode, host)
	if err != nil {
		return nil
	}
	out := make([]*dpuv1.HostMaintenance, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*dpuv1.HostMaintenance))
	}
	return out
}

func (c *InfraController) hostOf(n *corev1.Node) string {
	var imported map[string]string
	if c.cmInformer != nil {
		for _, obj := range c.cmInformer.GetStore().List() {
			imported = ParseEnvOverrides(obj.(*corev1.ConfigMap).Data)
		}
	}
	return TenantHostOf(n, imported)
}

// infraGate is the infra planner's DisruptionGate.
type infraGate struct{ c *InfraController }

func (g infraGate) Name() string { return "DPUTenantHost" }

func (g infraGate) MayDisrupt(_ node.PoolView, v node.NodeView) (bool, string) {
	n, err := g.c.nodes.Get(v.Name)
	if err != nil {
		return false, fmt.Sprintf("cannot read infra node %s: %v", v.Name, err)
	}
	host := g.c.hostOf(n)
	if host == "" {
		return true, ""
	}
	return g.c.verdict(n, host)
}
