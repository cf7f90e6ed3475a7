package world

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/test/framework"
)

// coalesceWatch observes, during a rollout, what a person would count to
// tell whether the two clusters' updates were coalesced: how often each DPU
// host was cordoned (one drain cycle each, from a watch of the tenant
// Nodes), how often it rebooted in order (its simulated machine's boots),
// and whether anyone paused a pool (a watch of both clusters' pools). It
// reads nothing the controllers keep for themselves.
type coalesceWatch struct {
	w     *World
	start time.Time
	stop  context.CancelFunc

	pauses *framework.PoolPauses

	mu      sync.Mutex
	cordons map[string]int // DPU host -> schedulable-to-cordoned transitions
}

// CoalesceCounts are the figures of the dpu-coalesce line.
type CoalesceCounts struct {
	Hosts       int
	HostDrains  int
	HostReboots int
	// PowerLosses are DPU hosts' boots after a power cycle (a fault the
	// rollout injects, not a reboot anyone asked for).
	PowerLosses int
	Pauses      int
}

// Line is the figure line the e2e prints.
func (c CoalesceCounts) Line() string {
	return fmt.Sprintf("dpu-coalesce: hosts=%d host_drains=%d host_reboots=%d harness_pauses=%d",
		c.Hosts, c.HostDrains, c.HostReboots, c.Pauses)
}

func startCoalesceWatch(ctx context.Context, w *World) (*coalesceWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	c := &coalesceWatch{w: w, start: time.Now(), stop: cancel, cordons: map[string]int{}}
	kube := informers.NewSharedInformerFactory(w.Tenant.CP.Kube, 0)
	nodes := kube.Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: c.nodeChanged}); err != nil {
		cancel()
		return nil, err
	}
	kube.Start(ctx.Done())
	var err error
	if c.pauses, err = framework.WatchPoolPauses(ctx, w.Tenant.CP.MCO, w.Infra.CP.MCO); err != nil {
		cancel()
		return nil, err
	}
	if !cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced) {
		cancel()
		return nil, fmt.Errorf("coalesce watch: caches did not sync")
	}
	return c, nil
}

func (c *coalesceWatch) nodeChanged(old, cur any) {
	o, n := old.(*corev1.Node), cur.(*corev1.Node)
	if wn, ok := c.w.Nodes[n.Name]; !ok || wn.Cluster != c.w.Tenant || wn.Pair == "" {
		return
	}
	if !o.Spec.Unschedulable && n.Spec.Unschedulable {
		c.mu.Lock()
		c.cordons[n.Name]++
		c.mu.Unlock()
	}
}

// counts stops the watch and returns its figures.
func (c *coalesceWatch) counts() CoalesceCounts {
	c.stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := CoalesceCounts{Pauses: c.pauses.Count()}
	for _, name := range c.w.Order {
		n := c.w.Nodes[name]
		if n.Cluster != c.w.Tenant || n.Pair == "" {
			continue
		}
		out.Hosts++
		out.HostDrains += c.cordons[name]
		for _, b := range n.Sim.Boots() {
			switch {
			case b.Time.Before(c.start):
			case b.Cause == "reboot":
				out.HostReboots++
			case b.Cause != "start":
				out.PowerLosses++
			}
		}
	}
	return out
}

// perHost reports, for the invariant's detail, the hosts not drained once.
func (c *coalesceWatch) notDrainedOnce() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var bad []string
	for _, name := range c.w.Order {
		n := c.w.Nodes[name]
		if n.Cluster == c.w.Tenant && n.Pair != "" && c.cordons[name] != 1 {
			bad = append(bad, fmt.Sprintf("%s cordoned %d times", name, c.cordons[name]))
		}
	}
	return bad
}
