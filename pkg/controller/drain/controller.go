package drain

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformersv1 "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corelistersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/events"
	"github.com/tandem-mco/tandem/pkg/controller/queue"
)

// ComponentName is the event source and workqueue name.
const ComponentName = "machineconfigcontroller-draincontroller"

// Options tune the drain controller. The zero value gives the MCO's behaviour.
type Options struct {
	// AttemptTimeout bounds one drain attempt: evictions refused by a
	// PodDisruptionBudget are retried within it every 5s (kubectl drain's
	// --timeout; MCO: 90s).
	AttemptTimeout time.Duration
	// Retry says when a failed attempt is retried; zero fields get the MCO's values.
	Retry RetryPolicy
	// EventRecorder records events on nodes; nil: events go to the API.
	EventRecorder record.EventRecorder
	// Metrics; nil: unregistered metrics.
	Metrics *Metrics
}

func (o *Options) setDefaults() error {
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 90 * time.Second
	}
	if o.Retry.Delay <= 0 {
		o.Retry.Delay = time.Minute
	}
	if o.Retry.SlowAfter <= 0 {
		o.Retry.SlowAfter = 10 * time.Minute
	}
	if o.Retry.SlowDelay <= 0 {
		o.Retry.SlowDelay = 5 * time.Minute
	}
	if o.Retry.Timeout <= 0 {
		o.Retry.Timeout = time.Hour
	}
	if o.Metrics == nil {
		m, err := NewMetrics(nil)
		if err != nil {
			return err
		}
		o.Metrics = m
	}
	return nil
}

// Controller serves drain and uncordon requests. Build it with NewController.
type Controller struct {
	kube       kubernetes.Interface
	opts       Options
	nodeLister corelistersv1.NodeLister
	synced     cache.InformerSynced

	recorder    record.EventRecorder
	broadcaster record.EventBroadcaster // nil when the caller gave a recorder
	queue       workqueue.TypedRateLimitingInterface[string]
	now         func() time.Time

	mu      sync.Mutex
	ongoing map[string]*ongoingDrain
}

// ongoingDrain is in-memory bookkeeping of a drain being attempted: when it
// began (for the duration metric and the retry policy) and how to stop its
// current attempt when the request changes. Losing it in a restart only
// resets those clocks; what to do comes from the node (Decide).
type ongoingDrain struct {
	request string
	started time.Time
	cancel  context.CancelFunc // set while an attempt runs
}

// NewController wires the drain controller to a shared node informer; the
// caller starts the informer factory.
func NewController(kube kubernetes.Interface, nodes coreinformersv1.NodeInformer, opts Options) (*Controller, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	c := &Controller{
		kube:       kube,
		opts:       opts,
		nodeLister: nodes.Lister(),
		synced:     nodes.Informer().HasSynced,
		queue:      queue.New(ComponentName),
		now:        time.Now,
		ongoing:    map[string]*ongoingDrain{},
	}
	c.recorder, c.broadcaster = events.NewRecorder(opts.EventRecorder, clientgoscheme.Scheme, ComponentName)
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.nodeChanged(nil, obj) },
		UpdateFunc: c.nodeChanged,
		DeleteFunc: c.nodeDeleted,
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	return c, nil
}

// Run waits for the node informer, then serves requests with workers
// goroutines until ctx ends. A drain occupies a worker for up to
// Options.AttemptTimeout.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx).WithValues("controller", "drain")
	ctx = klog.NewContext(ctx, logger)

	defer events.Start(c.kube, c.broadcaster)()
	if err := queue.WaitForCaches(ctx, "drain", "drain controller: informer cache", c.synced); err != nil {
		return err
	}
	logger.Info("Starting drain controller", "workers", workers)
	queue.Workers{
		Queue:          c.queue,
		Sync:           queue.NoRequeue(c.sync),
		KeyName:        "node",
		FailureMessage: "Serving drain request failed; will retry",
		QuietConflicts: true,
	}.Run(ctx, workers)
	logger.Info("Stopping drain controller")
	return nil
}

// nodeChanged enqueues a node when something Decide reads changed (node
// heartbeats must not cut a retry delay short), and stops a running drain
// attempt whose request was withdrawn or replaced.
func (c *Controller) nodeChanged(oldObj, newObj any) {
	n, ok := newObj.(*corev1.Node)
	if !ok {
		return
	}
	if o, ok := oldObj.(*corev1.Node); ok && !relevantChange(o, n) {
		return
	}
	c.mu.Lock()
	if d := c.ongoing[n.Name]; d != nil && d.cancel != nil && d.request != n.Annotations[constants.DesiredDrainAnnotation] {
		d.cancel()
	}
	c.mu.Unlock()
	c.queue.Add(n.Name)
}

func (c *Controller) nodeDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	c.mu.Lock()
	if d := c.ongoing[n.Name]; d != nil && d.cancel != nil {
		d.cancel()
	}
	c.mu.Unlock()
	c.forget(n.Name)
}

// relevantChange tells whether anything Decide reads differs.
func relevantChange(o, n *corev1.Node) bool {
	if o.Spec.Unschedulable != n.Spec.Unschedulable {
		return true
	}
	for _, k := range []string{constants.DesiredDrainAnnotation, constants.LastAppliedDrainAnnotation, constants.CordonedByAdminAnnotation} {
		ov, oOK := o.Annotations[k]
		nv, nOK := n.Annotations[k]
		if ov != nv || oOK != nOK {
			return true
		}
	}
	return false
}
