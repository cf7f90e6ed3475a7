package nodemeta

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformersv1 "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglistersv1 "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	coreinformersv1 "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelistersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/layering"
	"github.com/tandem-mco/tandem/pkg/controller/queue"
)

// ComponentName is the workqueue name.
const ComponentName = "machineconfigcontroller-nodemeta"

// controllerConfigName is the MCO's one ControllerConfig.
const controllerConfigName = "machine-config-controller"

// DefaultDelay is how long a change waits before the nodes are looked at:
// the node controller's stageConfig and desiredConfig writes carry the
// taint (FoldTaint) and usually leave this controller nothing to write, if
// it lets them land first (and a new target's taints wait FoldWindow for
// the stage wave). The MCO's node controller, which keeps this taint, waits
// 5 s after a node's change (defaultUpdateDelay).
const DefaultDelay = 3 * time.Second

// Options tune the controller.
type Options struct {
	// Delay: see DefaultDelay (0: DefaultDelay; negative: at once).
	Delay time.Duration
	// FoldWindow: see FoldWindow (0: FoldWindow; negative: none).
	FoldWindow time.Duration
	// MachineOSConfigs tell which pools are on-cluster layered: their nodes
	// are left alone, as the MCO's node controller leaves a layered pool's
	// until its image is built (pkg/controller/layering). nil: not read.
	MachineOSConfigs mcfginformersv1.MachineOSConfigInformer
}

// Controller applies Decide to the nodes of every pool. Keys are pool names.
type Controller struct {
	kube       kubernetes.Interface
	nodeLister corelistersv1.NodeLister
	poolLister mcfglistersv1.MachineConfigPoolLister
	ccLister   mcfglistersv1.ControllerConfigLister
	layering   *layering.Source
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[string]
	delay      time.Duration
	foldWindow time.Duration
	now        func() time.Time

	// targets remembers when each pool's target was first seen (for
	// FoldWindow); kept in memory: after a restart the window starts again.
	mu      sync.Mutex
	targets map[string]seenTarget
}

type seenTarget struct {
	name string
	at   time.Time
}

// NewController wires the controller to shared informers.
func NewController(kube kubernetes.Interface, nodes coreinformersv1.NodeInformer, pools mcfginformersv1.MachineConfigPoolInformer,
	ccs mcfginformersv1.ControllerConfigInformer, opts Options) (*Controller, error) {
	switch {
	case opts.Delay == 0:
		opts.Delay = DefaultDelay
	case opts.Delay < 0:
		opts.Delay = 0
	}
	switch {
	case opts.FoldWindow == 0:
		opts.FoldWindow = FoldWindow
	case opts.FoldWindow < 0:
		opts.FoldWindow = 0
	}
	c := &Controller{
		delay: opts.Delay, foldWindow: opts.FoldWindow, now: time.Now, targets: map[string]seenTarget{},
		kube: kube, nodeLister: nodes.Lister(), poolLister: pools.Lister(), ccLister: ccs.Lister(),
		synced: []cache.InformerSynced{nodes.Informer().HasSynced, pools.Informer().HasSynced, ccs.Informer().HasSynced},
		queue:  queue.New(ComponentName),
	}
	src, err := layering.NewSource(opts.MachineOSConfigs, func(pool string) { c.queue.AddAfter(pool, c.delay) })
	if err != nil {
		return nil, err
	}
	if src != nil {
		c.layering = src
		c.synced = append(c.synced, src.Synced())
	}
	all := func(any) { c.enqueueAll() }
	for name, inf := range map[string]cache.SharedIndexInformer{"pools": pools.Informer(), "ControllerConfigs": ccs.Informer()} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: all, UpdateFunc: func(_, o any) { all(o) }, DeleteFunc: all,
		}); err != nil {
			return nil, fmt.Errorf("watching %s: %w", name, err)
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: all,
		UpdateFunc: func(old, cur any) {
			if o, ok := old.(*corev1.Node); ok {
				if n, ok := cur.(*corev1.Node); ok && !metaInputsChanged(o, n) {
					return
				}
			}
			c.enqueueAll()
		},
		DeleteFunc: all,
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	return c, nil
}

// metaInputsChanged tells whether a node update changed anything a sync
// reads of it: the labels that place it in a pool, the annotations Decide
// compares and its taints. Status heartbeats and the rollout's other
// annotations do not: at a thousand nodes each of them woke a pass over
// every node of every pool (make bench-scale, --controller-profile: 15% of
// the controller's CPU).
func metaInputsChanged(o, n *corev1.Node) bool {
	return !maps.Equal(o.Labels, n.Labels) ||
		o.Annotations[constants.DesiredConfigAnnotation] != n.Annotations[constants.DesiredConfigAnnotation] ||
		o.Annotations[constants.ControlPlaneTopologyAnnotation] != n.Annotations[constants.ControlPlaneTopologyAnnotation] ||
		!slices.EqualFunc(o.Spec.Taints, n.Spec.Taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value })
}

func (c *Controller) enqueueAll() {
	pools, err := c.poolLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, p := range pools {
		c.queue.AddAfter(p.Name, c.delay) // at once when 0
	}
}

// Run works until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	return queue.Workers{Queue: c.queue, Sync: queue.NoRequeue(c.sync), KeyName: "pool",
		FailureMessage: "Updating node taints and annotations failed; will retry", QuietConflicts: true,
	}.Serve(ctx, "nodemeta", "node metadata controller: informer caches", workers, c.synced...)
}

func (c *Controller) sync(ctx context.Context, name string) error {
	pool, err := c.poolLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if mosc, err := c.layering.ConfigFor(name); err != nil || mosc != "" {
		return err // on-cluster layered: the node controller refuses it
	}
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.NodeSelector)
	if err != nil || pool.Spec.NodeSelector == nil || sel.Empty() {
		return nil // the node controller reports a bad selector
	}
	nodes, err := c.nodeLister.List(sel)
	if err != nil {
		return err
	}
	topology := ""
	if cc, err := c.ccLister.Get(controllerConfigName); err == nil {
		topology = Topology(cc)
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	age := c.targetAge(pool)
	deferred := false
	for _, n := range nodes {
		ch := Decide(n, pool, topology)
		if ch.Empty() {
			continue
		}
		if LeaveToFold(n, pool, ch, age, c.foldWindow) {
			deferred = true
			continue
		}
		if err := c.apply(ctx, n.Name, pool, topology); err != nil {
			return err
		}
	}
	if deferred {
		c.queue.AddAfter(name, c.foldWindow-age)
	}
	return nil
}

// targetAge is how long ago the pool's current target was first seen.
func (c *Controller) targetAge(pool *mcfgv1.MachineConfigPool) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	now, target := c.now(), pool.Spec.Configuration.Name
	seen, ok := c.targets[pool.Name]
	if !ok || seen.name != target {
		seen = seenTarget{name: target, at: now}
		c.targets[pool.Name] = seen
	}
	return now.Sub(seen.at)
}

// apply re-reads the node and writes what Decide asks with a strategic
// merge patch computed from the fresh copy, as the MCO's
// setUpdateInProgressTaint does: a patch carries no resourceVersion, so a
// busy node (daemon annotations, kubelet heartbeats) does not turn every
// write into a conflict and a backed-off retry.
func (c *Controller) apply(ctx context.Context, name string, pool *mcfgv1.MachineConfigPool, topology string) error {
	n, err := c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	ch := Decide(n, pool, topology)
	if ch.Empty() {
		return nil
	}
	want := n.DeepCopy()
	if ch.SetTaints {
		want.Spec.Taints = ch.Taints
	}
	if want.Annotations == nil {
		want.Annotations = map[string]string{}
	}
	for k, v := range ch.Annotations {
		want.Annotations[k] = v
	}
	oldJSON, err := json.Marshal(n)
	if err != nil {
		return err
	}
	newJSON, err := json.Marshal(want)
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, corev1.Node{})
	if err != nil {
		return fmt.Errorf("patch for node %s: %w", name, err)
	}
	if _, err := c.kube.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patching node %s: %w", name, err)
	}
	klog.FromContext(ctx).Info("Updated node metadata", "node", name, "pool", pool.Name, "taints", len(want.Spec.Taints), "setTaints", ch.SetTaints, "annotations", ch.Annotations)
	return nil
}
