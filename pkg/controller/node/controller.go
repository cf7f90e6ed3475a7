package node

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfgscheme "github.com/openshift/client-go/machineconfiguration/clientset/versioned/scheme"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/events"
	"github.com/tandem-mco/tandem/pkg/controller/layering"
	"github.com/tandem-mco/tandem/pkg/controller/nodepatch"
	"github.com/tandem-mco/tandem/pkg/controller/queue"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// ComponentName is the event source and workqueue name.
const ComponentName = "machineconfigcontroller-nodecontroller"

// Options tune the node controller.
type Options struct {
	// Etcd is the control plane's etcd; nil rolls masters out like the MCO.
	Etcd EtcdSource
	// Gates may veto single grants (DPU pairing, tenant maintenance).
	Gates []DisruptionGate
	// Metrics; nil: not recorded.
	Metrics *metrics.Controller
	// StageMetrics count failed stages and revoked grants; nil: not
	// recorded. (Wire it with NewStageMetrics on the controller's registry.)
	StageMetrics *StageMetrics
	// PlanMetrics time each pool's decision; nil: not recorded.
	PlanMetrics *metrics.Plan
	// Recorder records pool events; nil: one writing to the apiserver.
	Recorder record.EventRecorder
	// Resync re-plans a pool that is updating this often, since etcd health
	// changes make no Kubernetes event. Default 5s.
	Resync time.Duration
	// StatusInterval is the least time between two pool status writes that
	// only move the machine counts; a change of conditions or configuration
	// is written at once. Default 5s; negative: every change at once.
	StatusInterval time.Duration
	// MoveLeaderTimeout bounds one MoveLeader and its confirmation. Default 30s.
	MoveLeaderTimeout time.Duration
	// UpdateDelay is how long a node's change waits before its pool is
	// planned, so that the changes of one moment are planned together: a
	// rollout changes every node several times, and each plan reads the
	// whole pool. The MCO's node controller waits 5 s (defaultUpdateDelay,
	// pkg/controller/node/node_controller.go). 0: plan at once. A pool's
	// own change is planned at once either way.
	UpdateDelay time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Admission is shared with the other deciders that admit disruption on
	// this cluster's nodes (the DPU HostMaintenance controller); nil: one of
	// the controller's own.
	Admission *Admission
	// MachineConfigNodes tell the circuit breaker since when a node is
	// Degraded (it counts a node failed after the pool's grace); nil: not
	// read, and a failing node counts at once.
	MachineConfigNodes mcfginformers.MachineConfigNodeInformer
	// MachineOSConfigs tell which pools are on-cluster layered: those are
	// refused (no stage, no grant, the OnClusterLayeringRefused condition);
	// nil: not read, and no pool is.
	MachineOSConfigs mcfginformers.MachineOSConfigInformer
}

// Controller is the node controller's reconciler: it keeps pools' nodes
// moving towards the pool's target, as Plan decides.
type Controller struct {
	kube        kubernetes.Interface
	mco         mcfgclientset.Interface
	nodes       corelisters.NodeLister
	pools       mcfglisters.MachineConfigPoolLister
	mcns        mcfglisters.MachineConfigNodeLister // nil without Options.MachineConfigNodes
	layering    *layering.Source                    // nil without Options.MachineOSConfigs
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	opts        Options
	recorder    record.EventRecorder
	broadcaster record.EventBroadcaster // nil when the caller gave a recorder
	admission   *Admission

	// etcd hands out snapshots, asking etcd at most once per backoff while
	// it is unreachable.
	etcd *etcdSnapshots
	// members are the etcd member names last seen (nil: not asked yet), so
	// pools without etcd members do not ask etcd on every sync.
	membersMu sync.Mutex
	members   map[string]bool

	statusPacer *statusPacer
	// placements keeps each node's primary pool between plans.
	placements placements
}

// NewController wires the controller to its informers. Start the informer
// factories, then call Run.
func NewController(kube kubernetes.Interface, mco mcfgclientset.Interface,
	nodeInformer coreinformers.NodeInformer, poolInformer mcfginformers.MachineConfigPoolInformer, opts Options) *Controller {
	if opts.Resync <= 0 {
		opts.Resync = 5 * time.Second
	}
	if opts.MoveLeaderTimeout <= 0 {
		opts.MoveLeaderTimeout = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Admission == nil {
		opts.Admission = NewAdmission()
	}
	c := &Controller{
		kube:      kube,
		mco:       mco,
		nodes:     nodeInformer.Lister(),
		pools:     poolInformer.Lister(),
		synced:    []cache.InformerSynced{nodeInformer.Informer().HasSynced, poolInformer.Informer().HasSynced},
		queue:     queue.New(ComponentName),
		opts:      opts,
		admission: opts.Admission,
		etcd:      newEtcdSnapshots(opts.Etcd, opts.Now),
	}
	if m := opts.MachineConfigNodes; m != nil {
		c.mcns = m.Lister()
		c.synced = append(c.synced, m.Informer().HasSynced)
	}
	// A MachineOSConfig's pool is planned again at once when it comes, goes
	// or names another pool.
	src, err := layering.NewSource(opts.MachineOSConfigs, func(pool string) { c.queue.Add(pool) })
	if err != nil {
		utilruntime.HandleError(err)
	}
	if src != nil {
		c.layering = src
		c.synced = append(c.synced, src.Synced())
	}
	if s, ok := opts.Etcd.(EtcdOrderingSource); ok {
		// A change of etcd's configuration re-plans every pool: an idle
		// control-plane pool shows it in its condition at once.
		s.OnOrderingChange(c.enqueueAllPools)
	}
	c.statusPacer = newStatusPacer(opts.StatusInterval)
	c.recorder, c.broadcaster = events.NewRecorder(opts.Recorder, mcfgscheme.Scheme, ComponentName)
	_, _ = poolInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueuePool(obj) },
		UpdateFunc: func(_, obj any) { c.enqueuePool(obj) },
		DeleteFunc: func(obj any) { c.enqueuePool(obj) },
	})
	_, _ = nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueNode(obj) },
		UpdateFunc: func(old, cur any) {
			o, n := old.(*corev1.Node), cur.(*corev1.Node)
			if reflect.DeepEqual(ViewOfNode(o), ViewOfNode(n)) {
				return // a heartbeat, nothing the planner reads
			}
			c.enqueueNode(o)
			c.enqueueNode(n)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				c.admission.Forget(n.Name)
			}
			c.enqueueNode(obj)
		},
	})
	return c
}

func (c *Controller) enqueuePool(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

func (c *Controller) enqueueAllPools() {
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, p := range pools {
		c.queue.Add(p.Name)
	}
}

func (c *Controller) enqueueNode(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	p, err := PrimaryPool(pools, n)
	if err != nil {
		klog.ErrorS(err, "Cannot tell the node's pool", "node", n.Name)
		return
	}
	if p != nil {
		c.queue.AddAfter(p.Name, c.opts.UpdateDelay) // at once when 0
	}
}

// Run waits for the caches and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", "node")
	ctx = klog.NewContext(ctx, logger)
	defer events.Start(c.kube, c.broadcaster)()
	if err := queue.WaitForCaches(ctx, "node", "node controller: informer caches", c.synced...); err != nil {
		return err
	}
	logger.Info("Starting node controller", "workers", workers, "etcdOrdering", c.opts.Etcd != nil)
	queue.Workers{
		Queue:          c.queue,
		Sync:           c.Sync,
		KeyName:        "pool",
		FailureMessage: "Syncing pool failed",
	}.Run(ctx, workers)
	logger.Info("Stopping node controller")
	return nil
}

// Sync plans one pool and applies the plan. It returns when to look again
// (0: on the next event only).
func (c *Controller) Sync(ctx context.Context, name string) (time.Duration, error) {
	logger := klog.FromContext(ctx).WithValues("pool", name)
	pool, err := c.pools.Get(name)
	if apierrors.IsNotFound(err) {
		c.forgetPoolMetrics(name)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pv := ViewOfPool(pool)
	var etcdFacts EtcdFacts
	var ordering *EtcdOrdering
	if c.opts.Etcd != nil && pv.Target != "" {
		o := etcdOrderingOf(c.opts.Etcd)
		ordering = &o
	}
	if ordering != nil && ordering.On {
		// Asked outside the admission lock: etcd may be slow to answer.
		nodes, err := c.nodesOf(pool)
		if err != nil {
			return 0, err
		}
		views := make([]NodeView, 0, len(nodes))
		for _, n := range nodes {
			views = append(views, ViewOfNode(n))
		}
		if c.mayHoldMembers(pv, views) {
			etcdFacts = c.etcd.get(ctx)
			c.rememberMembers(etcdFacts)
		}
	}
	r, views, now, err := c.admit(ctx, pool, pv, etcdFacts, ordering)
	if err != nil || r.Status == nil {
		return 0, err // no status: not rendered yet; the render controller's update requeues us
	}

	requeue := time.Duration(0)
	if !pv.Paused && (r.Status.UpdatedMachineCount != r.Status.MachineCount || len(r.Holds) > 0) {
		requeue = c.opts.Resync
	}
	if m := r.MoveLeader; m != nil {
		// Plan again at once: the next plan takes a fresh snapshot, and
		// grants the old leader only if it shows the move. A failed move is
		// retried on the resync.
		requeue = 10 * time.Millisecond
		if err := c.moveLeader(ctx, pool, *m); err != nil {
			logger.Error(err, "Moving etcd leadership failed", "from", m.From, "to", m.To)
			requeue = c.opts.Resync
		}
	}
	for _, e := range r.Events {
		if e.Reason == EventMoveEtcdLeader {
			continue // recorded by moveLeader with its outcome
		}
		c.recorder.Event(pool, e.Type, e.Reason, e.Message)
	}
	c.record(pool, views, r, now)
	if !equality.Semantic.DeepEqual(pool.Status, *r.Status) {
		if wait := c.statusPacer.hold(pool.Name, pool.Status, *r.Status, time.Now()); wait > 0 {
			// Only the machine counts moved: write them with the next change
			// or at the pacer's interval, not once per node transition.
			if requeue == 0 || wait < requeue {
				requeue = wait
			}
			return requeue, nil
		}
		p := pool.DeepCopy()
		p.Status = *r.Status
		if _, err := c.mco.MachineconfigurationV1().MachineConfigPools().UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return 0, fmt.Errorf("updating status of pool %s: %w", pool.Name, err)
		}
		c.statusPacer.wrote(pool.Name, time.Now())
		if pool.Status.Configuration.Name != p.Status.Configuration.Name {
			c.recorder.Eventf(pool, corev1.EventTypeNormal, "Completed", "Pool %s has completed update to MachineConfig %s",
				pool.Name, p.Status.Configuration.Name)
		}
	}
	return requeue, nil
}

// admit plans the pool and writes its stage and grant assignments (see
// AdmitPool) with the controller's informer cache and kube client.
func (c *Controller) admit(ctx context.Context, pool *mcfgv1.MachineConfigPool, pv PoolView, etcdFacts EtcdFacts, ordering *EtcdOrdering) (Result, []NodeView, time.Time, error) {
	now := c.opts.Now()
	w := kubeNodeWriter{kube: c.kube, fold: c.taintFold(pool)}
	t := planTimer{list: func() ([]*corev1.Node, error) { return c.nodesOf(pool) }, w: w}
	degraded, err := c.degradedConditions()
	if err != nil {
		return Result{}, nil, now, err
	}
	mosc, err := c.layering.ConfigFor(pool.Name)
	if err != nil {
		return Result{}, nil, now, err
	}
	r, views, err := AdmitPool(ctx, c.admission, pv, t.listNodes, Facts{Now: now, Etcd: etcdFacts, EtcdOrdering: ordering, Gates: c.opts.Gates,
		Degraded: degraded, MachineOSConfig: mosc}, &t)
	if m := c.opts.PlanMetrics; m != nil && err == nil {
		m.Duration.WithLabelValues(pool.Name).Observe(t.decided().Seconds())
	}
	return r, views, now, err
}

// degradedConditions reads the MachineConfigNodes' NodeDegraded conditions
// (nil when the controller does not read them).
func (c *Controller) degradedConditions() (DegradedConditions, error) {
	if c.mcns == nil {
		return nil, nil
	}
	mcns, err := c.mcns.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing MachineConfigNodes: %w", err)
	}
	return DegradedConditionsOf(mcns), nil
}

// NodeWriter is how the planner's assignments reach the nodes.
type NodeWriter interface {
	// SetAnnotation sets one annotation on a node. It may fail after the
	// write was applied (a timeout, a lost connection).
	SetAnnotation(ctx context.Context, node, key, value string) error
	// RemoveAnnotation removes one annotation from a node (the circuit
	// breaker withdraws stageConfig this way).
	RemoveAnnotation(ctx context.Context, node, key string) error
	// RevokeGrant sets desiredConfig back to r.Current if, and only if,
	// desiredConfig, stageFailure and state are still those r names; a
	// node that moved on meanwhile is left alone and the write is refused
	// (an error that refused() recognizes).
	RevokeGrant(ctx context.Context, r Revocation) error
}

type kubeNodeWriter struct {
	kube kubernetes.Interface
	// fold, when set, returns a JSON patch that makes an annotation write
	// carry the node's other changes too (nodemeta.FoldTaint); false: a
	// plain annotation write.
	fold func(node, key, value string) ([]byte, bool)
}

// Concurrency lets AdmitPool have this many patches in flight: one at a
// time, a plan's writes take a round trip each (a 1,000-node stage wave,
// seconds of holding the admission lock).
func (kubeNodeWriter) Concurrency() int { return 16 }

// SetAnnotation sets one annotation with a merge patch, or with the fold's
// patch when there is one. A refused or failed fold falls back to the merge
// patch: setting the annotation again is harmless, and what the fold would
// have changed is left to its own controller.
func (k kubeNodeWriter) SetAnnotation(ctx context.Context, node, key, value string) error {
	if k.fold != nil {
		if patch, ok := k.fold(node, key, value); ok {
			_, err := k.kube.CoreV1().Nodes().Patch(ctx, node, types.JSONPatchType, patch, metav1.PatchOptions{})
			if err == nil || apierrors.IsNotFound(err) || ctx.Err() != nil {
				return err
			}
			klog.FromContext(ctx).V(2).Info("Folded node write refused; writing the annotation alone", "node", node, "key", key, "err", err)
		}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		return err
	}
	_, err = k.kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// RevokeGrant is one JSON patch: tests of desiredConfig, stageFailure and
// state, then the replace of desiredConfig. The apiserver applies it whole
// or not at all, so a daemon that started the update (state Working) or
// whose stage succeeded (stageFailure removed) after the plan keeps its
// grant: the failed test comes back as a refusal and the next plan decides
// on what the node says then.
func (k kubeNodeWriter) RevokeGrant(ctx context.Context, r Revocation) error {
	var p nodepatch.Patch
	p.Test(constants.DesiredConfigAnnotation, r.Config, true).
		Test(constants.StageFailureAnnotation, r.StageFailure, true).
		Test(constants.StateAnnotation, r.State, r.State != "").
		Replace(constants.DesiredConfigAnnotation, r.Current)
	patch, err := p.Marshal()
	if err != nil {
		return err
	}
	_, err = k.kube.CoreV1().Nodes().Patch(ctx, r.Node, types.JSONPatchType, patch, metav1.PatchOptions{})
	return err
}

// RemoveAnnotation removes one annotation with a merge patch (null deletes).
func (k kubeNodeWriter) RemoveAnnotation(ctx context.Context, node, key string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: nil}}})
	if err != nil {
		return err
	}
	_, err = k.kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// AdmitPool plans one pool and writes its stage and grant assignments,
// holding the cluster's admission lock from reading the nodes (list) to the
// last write: the plan sees every disruption admitted so far (the overlay
// shows writes the cache does not show yet), and the next decider sees this
// plan's grants. It is the node controller's whole decision path, shared
// with the planner's property test; facts.Now stamps the expectations.
func AdmitPool(ctx context.Context, adm *Admission, pv PoolView, list func() ([]*corev1.Node, error), facts Facts, w NodeWriter) (Result, []NodeView, error) {
	logger := klog.FromContext(ctx).WithValues("pool", pv.Name)
	adm.Lock()
	defer adm.Unlock()
	nodes, err := list()
	if err != nil {
		return Result{}, nil, err
	}
	now := facts.Now
	views := make([]NodeView, 0, len(nodes))
	for _, n := range nodes {
		views = append(views, adm.View(n, now))
	}
	r := Plan(pv, views, facts)
	if r.Status == nil {
		return r, views, nil
	}
	logger.V(2).Info("Planned", "target", pv.Target, "maxUnavailable", r.MaxUnavailable, "unavailable", r.Unavailable,
		"capacity", r.Capacity, "grants", len(r.Grant), "stages", len(r.Stage), "holds", len(r.Holds), "moveLeader", r.MoveLeader)
	// Revocations before anything else: the plan counted their places as
	// free. One that is refused (the node moved on: it may be disrupting
	// now) ends the sync before any grant, and the next plan counts again.
	// Every revocation is tried: one node that moved on does not keep
	// another's grant.
	var revokeErr error
	for _, rv := range r.Revocations {
		logger.Info("Revoking grant: the node's stage failed before it started", "node", rv.Node, "config", rv.Config,
			"current", rv.Current)
		if err := revokeExpected(ctx, adm, w, rv, now); err != nil && revokeErr == nil {
			revokeErr = err
		}
	}
	if revokeErr != nil {
		return r, views, revokeErr
	}
	// Grants first: they are what the rollout waits for; a stage wave of a
	// thousand nodes must not hold them back.
	writes := make([]assignmentWrite, 0, len(r.Grant)+len(r.Stage))
	for _, a := range r.Grant {
		logger.Info("Granting disruption", "node", a.Node, "config", a.Config)
		writes = append(writes, assignmentWrite{a, constants.DesiredConfigAnnotation})
	}
	for _, a := range r.Stage {
		writes = append(writes, assignmentWrite{a, constants.StageConfigAnnotation})
	}
	if err := writeAssignments(ctx, adm, w, writes, now); err != nil {
		return r, views, err
	}
	for _, n := range r.Unstage {
		logger.Info("Withdrawing stageConfig: the rollout is halted", "node", n)
		if err := w.RemoveAnnotation(ctx, n, constants.StageConfigAnnotation); err != nil {
			if apierrors.IsNotFound(err) {
				adm.Forget(n)
				continue
			}
			return r, views, fmt.Errorf("removing %s from node %s: %w", constants.StageConfigAnnotation, n, err)
		}
		adm.ExpectAnnotationRemoved(n, constants.StageConfigAnnotation, now)
	}
	return r, views, nil
}

// writeExpected records the write as expected before making it: a write
// that fails with a timeout may have been applied, and a grant the overlay
// does not show could be made twice. Only an answer that says the write was
// refused (the request was not applied) takes the expectation back.
func writeExpected(ctx context.Context, adm *Admission, w NodeWriter, node, key, value string, now time.Time) error {
	undo := adm.expectUndoable(node, key, value, now)
	if err := w.SetAnnotation(ctx, node, key, value); err != nil {
		if apierrors.IsNotFound(err) {
			adm.Forget(node)
			return nil // the node vanished; the delete event re-plans
		}
		if refused(err) {
			undo()
		}
		return fmt.Errorf("setting %s=%s on node %s: %w", key, value, node, err)
	}
	return nil
}

// revokeExpected writes one revocation, expected first like writeExpected:
// the overlay shows desiredConfig back at currentConfig to the next plan
// (of this pool or another decider's) before the cache does.
func revokeExpected(ctx context.Context, adm *Admission, w NodeWriter, rv Revocation, now time.Time) error {
	undo := adm.expectUndoable(rv.Node, constants.DesiredConfigAnnotation, rv.Current, now)
	if err := w.RevokeGrant(ctx, rv); err != nil {
		if apierrors.IsNotFound(err) {
			adm.Forget(rv.Node)
			return nil
		}
		if refused(err) {
			undo()
		}
		return fmt.Errorf("revoking desiredConfig %s of node %s: %w", rv.Config, rv.Node, err)
	}
	return nil
}

// refused tells whether the apiserver answered that it did not apply the
// request. Timeouts, lost connections and server errors are not refusals:
// the write may have been applied.
func refused(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsRequestEntityTooLargeError(err)
}

// mayHoldMembers reports whether the pool needs etcd facts: the control
// plane does, and so does any pool with a node named like a known member (or
// any pool while the members are not known yet).
func (c *Controller) mayHoldMembers(pv PoolView, views []NodeView) bool {
	if pv.ControlPlane {
		return true
	}
	c.membersMu.Lock()
	defer c.membersMu.Unlock()
	if c.members == nil {
		return true
	}
	for _, v := range views {
		if c.members[v.Name] {
			return true
		}
	}
	return false
}

func (c *Controller) rememberMembers(f EtcdFacts) {
	if f.Err() != nil {
		return
	}
	m := map[string]bool{}
	for _, name := range f.Members() {
		m[name] = true
	}
	c.membersMu.Lock()
	c.members = m
	c.membersMu.Unlock()
}

func (c *Controller) moveLeader(ctx context.Context, pool *mcfgv1.MachineConfigPool, m LeaderMove) error {
	mctx, cancel := context.WithTimeout(ctx, c.opts.MoveLeaderTimeout)
	defer cancel()
	err := c.opts.Etcd.MoveLeader(mctx, m.To)
	result := "ok"
	if err != nil {
		result = "error"
		c.recorder.Eventf(pool, corev1.EventTypeWarning, "MoveEtcdLeaderFailed",
			"Moving etcd leadership from %s to %s failed: %v", m.From, m.To, err)
	} else {
		c.recorder.Eventf(pool, corev1.EventTypeNormal, EventMoveEtcdLeader,
			"Moved etcd leadership from %s to %s before updating %s", m.From, m.To, m.From)
	}
	if c.opts.Metrics != nil {
		c.opts.Metrics.LeaderMoves.WithLabelValues(pool.Name, result).Inc()
	}
	return err
}

// nodesOf lists the nodes whose primary pool is pool.
func (c *Controller) nodesOf(pool *mcfgv1.MachineConfigPool) ([]*corev1.Node, error) {
	sel := pool.Spec.NodeSelector
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return nil, nil
	}
	if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
		return nil, fmt.Errorf("pool %s: invalid nodeSelector: %w", pool.Name, err)
	}
	// Every node, placed by Primary (which matches this pool's selector
	// too): listing by the selector first matched it twice per node.
	candidates, err := c.nodes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	return c.placements.membersOf(pool.Name, pools, candidates), nil
}

// record updates the metrics for one plan.
func (c *Controller) record(pool *mcfgv1.MachineConfigPool, views []NodeView, r Result, now time.Time) {
	c.opts.StageMetrics.record(pool.Name, views, r)
	m := c.opts.Metrics
	if m == nil {
		return
	}
	m.Grants.WithLabelValues(pool.Name).Add(float64(len(r.Grant)))
	m.StageGrants.WithLabelValues(pool.Name).Add(float64(len(r.Stage)))
	after := withGrants(views, r.Grant)
	counts := map[Phase]int{}
	for _, v := range after {
		counts[PhaseOf(v, pool.Spec.Configuration.Name)]++
	}
	for _, p := range Phases {
		m.NodesByPhase.WithLabelValues(pool.Name, string(p)).Set(float64(counts[p]))
	}
	m.HeldNodes.DeletePartialMatch(map[string]string{"pool": pool.Name})
	held := map[HoldReason]int{}
	for _, h := range r.Holds {
		held[h.Reason]++
	}
	for reason, n := range held {
		m.HeldNodes.WithLabelValues(pool.Name, string(reason)).Set(float64(n))
	}
	m.PoolUpdatingSeconds.WithLabelValues(pool.Name).Set(UpdatingFor(*r.Status, now).Seconds())
	if d, ok := UpdateFinished(pool.Status, *r.Status, now); ok {
		m.PoolUpdateDuration.WithLabelValues(pool.Name).Observe(d.Seconds())
	}
	c.recordOperational(pool, views, r, now)
}

func (c *Controller) forgetPoolMetrics(pool string) {
	c.opts.StageMetrics.forget(pool)
	if m := c.opts.Metrics; m != nil {
		m.NodesByPhase.DeletePartialMatch(map[string]string{"pool": pool})
		m.HeldNodes.DeletePartialMatch(map[string]string{"pool": pool})
		m.PoolUpdatingSeconds.DeletePartialMatch(map[string]string{"pool": pool})
		forgetOperational(m, pool)
	}
	if m := c.opts.PlanMetrics; m != nil {
		m.Duration.DeletePartialMatch(map[string]string{"pool": pool})
	}
}
