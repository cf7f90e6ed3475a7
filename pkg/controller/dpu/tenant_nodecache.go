package dpu

import (
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// tenantNodeCache keeps each node object's TenantNode (its view and
// primary pool) between snapshots. A snapshot reads every node of the
// cluster, and placing and viewing each one again at every decision was
// most of the tenant controller's CPU at a thousand nodes (make
// bench-scale, --controller-profile: 2.5 s of 8.7 s). Informer objects are
// never changed in place (a change is a new object) and the admission's
// overlay returns a new object when it changes a node, so an answer is
// kept per object (pointer) and per set of pools (node.PoolsVersion).
// UpdateHeld is not kept: it depends on the time and the gates.
type tenantNodeCache struct {
	mu      sync.Mutex
	poolsAt string
	byObj   map[*corev1.Node]TenantNode
}

// nodes returns the TenantNode of each of nodes, in order.
func (c *tenantNodeCache) nodes(pools []*mcfgv1.MachineConfigPool, nodes []*corev1.Node, logger klog.Logger) []TenantNode {
	key := node.PoolsVersion(pools)
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.byObj
	if c.poolsAt != key {
		old = nil
	}
	// A new map each time: objects the informer has replaced drop out.
	next := make(map[*corev1.Node]TenantNode, len(nodes))
	out := make([]TenantNode, 0, len(nodes))
	var membership *node.Membership
	for _, n := range nodes {
		tn, ok := old[n]
		if !ok {
			if membership == nil {
				m := node.NewMembership(pools)
				membership = &m
			}
			p, err := membership.Primary(n)
			if err != nil {
				logger.Error(err, "Cannot tell the node's pool", "node", n.Name)
			}
			tn = tenantNodeOf(n, p)
		}
		next[n] = tn
		out = append(out, tn)
	}
	c.poolsAt, c.byObj = key, next
	return out
}
