package masters

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	configv1 "github.com/openshift/api/config/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	coreinformersv1 "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelistersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/queue"
)

// ComponentName is the workqueue name.
const ComponentName = "machineconfigcontroller-masters"

// Controller applies Decide to every master. Keys are node names.
type Controller struct {
	kube        kubernetes.Interface
	nodeLister  corelistersv1.NodeLister
	schedLister configlistersv1.SchedulerLister
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]

	// deleted is set when the Scheduler "cluster" was deleted while this
	// process watched it: the MCO then makes the masters unschedulable once.
	// Kept in memory: after a restart a missing Scheduler leaves the masters
	// alone, as the MCO's restarted controller does.
	mu      sync.Mutex
	deleted bool
}

// NewController wires the controller to shared informers.
func NewController(kube kubernetes.Interface, nodes coreinformersv1.NodeInformer, schedulers configinformersv1.SchedulerInformer) (*Controller, error) {
	c := &Controller{
		kube: kube, nodeLister: nodes.Lister(), schedLister: schedulers.Lister(),
		synced: []cache.InformerSynced{nodes.Informer().HasSynced, schedulers.Informer().HasSynced},
		queue:  queue.New(ComponentName),
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueNode,
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*corev1.Node)
			n, ok2 := cur.(*corev1.Node)
			if ok1 && ok2 && maps.Equal(o.Labels, n.Labels) && slices.Equal(o.Spec.Taints, n.Spec.Taints) {
				return // a heartbeat or an annotation: nothing Decide reads
			}
			c.enqueueNode(cur)
		},
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	if _, err := schedulers.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if isCluster(obj) {
				c.setDeleted(false)
				c.enqueueMasters()
			}
		},
		UpdateFunc: func(_, cur any) {
			if isCluster(cur) {
				c.enqueueMasters()
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if isCluster(obj) {
				c.setDeleted(true)
				c.enqueueMasters()
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("watching schedulers: %w", err)
	}
	return c, nil
}

func isCluster(obj any) bool {
	s, ok := obj.(*configv1.Scheduler)
	return ok && s.Name == SchedulerName
}

func (c *Controller) setDeleted(v bool) {
	c.mu.Lock()
	c.deleted = v
	c.mu.Unlock()
}

func (c *Controller) enqueueNode(obj any) {
	if n, ok := obj.(*corev1.Node); ok && IsMaster(n) {
		c.queue.Add(n.Name)
	}
}

func (c *Controller) enqueueMasters() {
	nodes, err := c.nodeLister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, n := range nodes {
		c.enqueueNode(n)
	}
}

// Run works until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	return queue.Workers{Queue: c.queue, Sync: queue.NoRequeue(c.sync), KeyName: "node",
		FailureMessage: "Updating the master's scheduling failed; will retry", QuietConflicts: true,
	}.Serve(ctx, "masters", "masters controller: informer caches", workers, c.synced...)
}

// scheduling is what the cluster asks now.
func (c *Controller) scheduling() (Scheduling, error) {
	s, err := c.schedLister.Get(SchedulerName)
	if apierrors.IsNotFound(err) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.deleted {
			return Unschedulable, nil
		}
		return Leave, nil
	}
	if err != nil {
		return Leave, fmt.Errorf("reading Scheduler %s: %w", SchedulerName, err)
	}
	return SchedulingOf(s), nil
}

func (c *Controller) sync(ctx context.Context, name string) error {
	s, err := c.scheduling()
	if err != nil {
		return err
	}
	// A node gone from the cache has nothing to do either.
	if cached, err := c.nodeLister.Get(name); err != nil || Decide(cached, s).Empty() {
		return ignoreNotFound(err)
	}
	// Decided again on a fresh read: the patch tests what it read, and a
	// stale cache would only make it fail.
	n, err := c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ignoreNotFound(fmt.Errorf("reading node %s: %w", name, err))
	}
	ch := Decide(n, s)
	if ch.Empty() {
		return nil
	}
	patch, err := Patch(n, ch)
	if err != nil {
		return err
	}
	if _, err := c.kube.CoreV1().Nodes().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patching node %s: %w", name, err)
	}
	klog.FromContext(ctx).Info("Updated master scheduling", "node", name, "mastersSchedulable", s == Schedulable,
		"labels", ch.SetLabels, "taints", ch.SetTaints)
	return nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Patch is a JSON patch (RFC 6902) making ch on n: for each of the label map
// and the taint list it changes, a test that it is still n's (a patch
// carries no resourceVersion: a writer that changed it meanwhile makes the
// apiserver refuse the whole patch, and the retry reads the node afresh),
// then the new value.
func Patch(n *corev1.Node, ch Change) ([]byte, error) {
	var ops []map[string]any
	if ch.SetLabels {
		// A nil value tests as "absent" in the apiserver's JSON patch.
		var old any
		if n.Labels != nil {
			old = n.Labels
		}
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/labels", "value": old},
			map[string]any{"op": "add", "path": "/metadata/labels", "value": ch.Labels})
	}
	if ch.SetTaints {
		var old any
		if n.Spec.Taints != nil {
			old = n.Spec.Taints
		}
		taints := ch.Taints
		if taints == nil {
			taints = []corev1.Taint{}
		}
		ops = append(ops, map[string]any{"op": "test", "path": "/spec/taints", "value": old},
			map[string]any{"op": "add", "path": "/spec/taints", "value": taints})
	}
	b, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("patch for node %s: %w", n.Name, err)
	}
	return b, nil
}
