package dpu

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	kubedrain "k8s.io/kubectl/pkg/drain"

	"github.com/tandem-mco/tandem/pkg/controller/drain"
)

// drainer drains held nodes with kubectl's drain library (evictions honour
// PodDisruptionBudgets; DaemonSet pods stay), one goroutine per node,
// retrying failed attempts until it is reset. It only remembers results in
// memory: the durable fact is the request's Drained condition.
type drainer struct {
	kube           kubernetes.Interface
	attemptTimeout time.Duration
	retryDelay     time.Duration
	notify         func() // called after every attempt

	mu    sync.Mutex
	nodes map[string]*drainRun
}

type drainRun struct {
	cancel context.CancelFunc
	state  DrainState
}

func newDrainer(kube kubernetes.Interface, attemptTimeout, retryDelay time.Duration, notify func()) *drainer {
	return &drainer{kube: kube, attemptTimeout: attemptTimeout, retryDelay: retryDelay, notify: notify,
		nodes: map[string]*drainRun{}}
}

// Ensure starts draining node unless a drain runs or succeeded since the last reset.
func (d *drainer) Ensure(ctx context.Context, node string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.nodes[node]; ok {
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	run := &drainRun{cancel: cancel, state: DrainState{Running: true}}
	d.nodes[node] = run
	go d.run(runCtx, node, run)
}

// Reset stops a node's drain and forgets its result: the hold was released,
// or the node was cordoned again and must be drained again.
func (d *drainer) Reset(node string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.nodes[node]; ok {
		r.cancel()
		delete(d.nodes, node)
	}
}

// States returns the drain results by node.
func (d *drainer) States() map[string]DrainState {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]DrainState, len(d.nodes))
	for n, r := range d.nodes {
		out[n] = r.state
	}
	return out
}

func (d *drainer) set(run *drainRun, s DrainState) {
	d.mu.Lock()
	run.state = s
	d.mu.Unlock()
	d.notify()
}

func (d *drainer) run(ctx context.Context, node string, run *drainRun) {
	logger := klog.FromContext(ctx).WithValues("node", node)
	for {
		logger.Info("Draining node for HostMaintenance")
		err := d.attempt(ctx, node)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			logger.Info("Node drained for HostMaintenance")
			d.set(run, DrainState{Succeeded: true})
			return
		}
		logger.Info("Drain attempt failed; will retry", "retryIn", d.retryDelay, "err", err.Error())
		d.set(run, DrainState{Running: true, Err: err.Error()})
		select {
		case <-ctx.Done():
			return
		case <-time.After(d.retryDelay):
		}
	}
}

func (d *drainer) attempt(ctx context.Context, node string) error {
	actx, cancel := context.WithTimeout(ctx, d.attemptTimeout)
	defer cancel()
	logger := klog.FromContext(ctx).WithValues("node", node)
	// The drain controller's (and the MCO's) settings.
	h := drain.NewDrainHelper(actx, d.kube, node, d.attemptTimeout)
	h.OnPodDeletionOrEvictionFinished = func(pod *corev1.Pod, usingEviction bool, err error) {
		if err == nil {
			logger.V(2).Info("Pod removed", "pod", klog.KObj(pod), "eviction", usingEviction)
		}
	}
	return kubedrain.RunNodeDrain(h, node)
}
