package render

import (
	"context"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformersv1 "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglistersv1 "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformersv1 "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corelistersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/events"
	"github.com/tandem-mco/tandem/pkg/controller/queue"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// ComponentName is the event source and workqueue name.
const ComponentName = "machineconfigcontroller-rendercontroller"

// Options tune the render controller. The zero value gives the MCO's behaviour.
type Options struct {
	// Defaults fill osImageURL and the extensions image when no MachineConfig
	// sets them (the MCO takes them from the ControllerConfig).
	Defaults mcfg.Defaults
	// ControllerVersion is recorded on rendered configs.
	ControllerVersion string
	// RenderDelay coalesces bursts of MachineConfig changes into one render
	// (MCO: 5s). Negative means no delay.
	RenderDelay time.Duration
	// GCGracePeriod: an unused rendered config is deleted only once it is
	// this old (default 10m). Negative disables garbage collection.
	GCGracePeriod time.Duration
	// EventRecorder records events on pools; nil: events go to the API.
	EventRecorder record.EventRecorder
	// ControllerConfigs, when set, is watched for the MCO's ControllerConfig
	// (ControllerConfigName), the render input that keeps a cluster's
	// rendered names when tandem takes over from the MCO. Nil: render
	// standalone, as without a ControllerConfig.
	ControllerConfigs mcfginformersv1.ControllerConfigInformer
}

func (o *Options) setDefaults() {
	if o.RenderDelay == 0 {
		o.RenderDelay = 5 * time.Second
	}
	if o.RenderDelay < 0 {
		o.RenderDelay = 0
	}
	if o.GCGracePeriod == 0 {
		o.GCGracePeriod = 10 * time.Minute
	}
}

// Controller renders MachineConfigPools. Build it with NewController.
type Controller struct {
	kube kubernetes.Interface
	mcfg mcfgclientset.Interface
	opts Options

	poolLister mcfglistersv1.MachineConfigPoolLister
	mcLister   mcfglistersv1.MachineConfigLister
	nodeLister corelistersv1.NodeLister
	ccLister   mcfglistersv1.ControllerConfigLister // nil: no ControllerConfig watched
	synced     []cache.InformerSynced

	recorder    record.EventRecorder
	broadcaster record.EventBroadcaster // nil when the caller gave a recorder
	queue       workqueue.TypedRateLimitingInterface[string]
	now         func() time.Time
}

// NewController wires the render controller to shared informers; the caller
// starts the informer factories. Nodes are watched only to know which
// rendered configs are still in use.
func NewController(
	kube kubernetes.Interface,
	mcfgClient mcfgclientset.Interface,
	pools mcfginformersv1.MachineConfigPoolInformer,
	configs mcfginformersv1.MachineConfigInformer,
	nodes coreinformersv1.NodeInformer,
	opts Options,
) (*Controller, error) {
	opts.setDefaults()
	c := &Controller{
		kube:       kube,
		mcfg:       mcfgClient,
		opts:       opts,
		poolLister: pools.Lister(),
		mcLister:   configs.Lister(),
		nodeLister: nodes.Lister(),
		synced:     []cache.InformerSynced{pools.Informer().HasSynced, configs.Informer().HasSynced, nodes.Informer().HasSynced},
		queue:      queue.New(ComponentName),
		now:        time.Now,
		recorder:   opts.EventRecorder,
	}
	if c.recorder == nil {
		scheme := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("building event scheme: %w", err)
		}
		if err := mcfgv1.Install(scheme); err != nil {
			return nil, fmt.Errorf("building event scheme: %w", err)
		}
		c.recorder, c.broadcaster = events.NewRecorder(nil, scheme, ComponentName)
	}

	if cc := opts.ControllerConfigs; cc != nil {
		c.ccLister = cc.Lister()
		c.synced = append(c.synced, cc.Informer().HasSynced)
		if _, err := cc.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.controllerConfigChanged,
			UpdateFunc: func(_, obj any) { c.controllerConfigChanged(obj) },
			DeleteFunc: c.controllerConfigChanged,
		}); err != nil {
			return nil, fmt.Errorf("watching ControllerConfigs: %w", err)
		}
	}
	if _, err := pools.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueuePool(obj, 0) },
		UpdateFunc: func(_, obj any) { c.enqueuePool(obj, 0) },
	}); err != nil {
		return nil, fmt.Errorf("watching pools: %w", err)
	}
	if _, err := configs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.configChanged,
		UpdateFunc: func(_, obj any) { c.configChanged(obj) },
		DeleteFunc: c.configChanged,
	}); err != nil {
		return nil, fmt.Errorf("watching MachineConfigs: %w", err)
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: c.nodeChanged,
		DeleteFunc: func(obj any) { c.nodeChanged(obj, nil) },
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	return c, nil
}

// Run waits for the informers, then renders pools with workers goroutines
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", "render")
	ctx = klog.NewContext(ctx, logger)

	defer events.Start(c.kube, c.broadcaster)()
	if err := queue.WaitForCaches(ctx, "render", "render controller: informer caches", c.synced...); err != nil {
		return err
	}
	logger.Info("Starting render controller", "workers", workers)
	queue.Workers{
		Queue:          c.queue,
		Sync:           queue.NoRequeue(c.sync),
		KeyName:        "pool",
		FailureMessage: "Rendering pool failed; will retry",
		QuietConflicts: true,
	}.Run(ctx, workers)
	logger.Info("Stopping render controller")
	return nil
}

func (c *Controller) enqueuePool(obj any, after time.Duration) {
	pool, ok := obj.(*mcfgv1.MachineConfigPool)
	if !ok {
		return
	}
	c.queue.AddAfter(pool.Name, after)
}

// controllerConfigChanged re-renders every pool: the ControllerConfig is an
// input of each rendered config.
func (c *Controller) controllerConfigChanged(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	cc, ok := obj.(*mcfgv1.ControllerConfig)
	if !ok || cc.Name != ControllerConfigName {
		return
	}
	pools, err := c.poolLister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("listing pools for ControllerConfig %s: %w", cc.Name, err))
		return
	}
	for _, p := range pools {
		c.queue.AddAfter(p.Name, c.opts.RenderDelay)
	}
}

// controllerConfig returns the MCO's ControllerConfig, nil when there is none.
func (c *Controller) controllerConfig() (*mcfgv1.ControllerConfig, error) {
	if c.ccLister == nil {
		return nil, nil
	}
	cc, err := c.ccLister.Get(ControllerConfigName)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting ControllerConfig %s: %w", ControllerConfigName, err)
	}
	return cc, nil
}

// configChanged re-renders every pool the MachineConfig feeds, after the
// render delay so that a burst of changes gives one render.
func (c *Controller) configChanged(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	mc, ok := obj.(*mcfgv1.MachineConfig)
	if !ok {
		return
	}
	pools, err := c.poolLister.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("listing pools for MachineConfig %s: %w", mc.Name, err))
		return
	}
	for _, p := range PoolsForConfig(mc, pools) {
		c.queue.AddAfter(p.Name, c.opts.RenderDelay)
	}
}

// nodeChanged re-checks garbage when a node stops referring to a rendered
// config: the pools whose configs it referred to may now delete them.
func (c *Controller) nodeChanged(oldObj, newObj any) {
	if t, ok := oldObj.(cache.DeletedFinalStateUnknown); ok {
		oldObj = t.Obj
	}
	oldNode, ok := oldObj.(*corev1.Node)
	if !ok {
		return
	}
	newNode, _ := newObj.(*corev1.Node)
	released := map[string]bool{}
	for _, a := range nodeConfigAnnotations {
		name := oldNode.Annotations[a]
		if name == "" || (newNode != nil && newNode.Annotations[a] == name) {
			continue
		}
		released[name] = true
	}
	if len(released) == 0 {
		return
	}
	pools, err := c.poolLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, p := range pools {
		for name := range released {
			if mcfg.IsRenderedFor(p.Name, name) {
				c.queue.AddAfter(p.Name, c.opts.RenderDelay)
				break
			}
		}
	}
}
