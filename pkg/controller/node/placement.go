package node

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// placements remembers each node's primary pool between plans. A plan of a
// 1,000-node pool places every node of the cluster; matching each against
// every pool's selector was about 15% of the plans' CPU (make bench-scale,
// --controller-profile: 0.29 s of 1.95 s; 0.12 s with this). An informer replaces a node's object when the node
// changes, so an answer is kept per object (pointer) and per set of pools
// (names, UIDs and generations: a selector is spec, and a status write does
// not move the generation): any change to either places again.
type placements struct {
	mu      sync.Mutex
	poolsAt string
	primary map[*corev1.Node]placement
}

type placement struct {
	pool string // "" when no pool selects the node
	err  error
}

// membersOf returns the nodes whose primary pool is pool, in the order of
// nodes; a node that cannot be placed is logged and skipped.
func (p *placements) membersOf(pool string, pools []*mcfgv1.MachineConfigPool, nodes []*corev1.Node) []*corev1.Node {
	key := PoolsVersion(pools)
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.primary
	if p.poolsAt != key {
		old = nil
	}
	// A new map each time: objects the informer has replaced drop out.
	next := make(map[*corev1.Node]placement, len(nodes))
	var members *Membership
	out := make([]*corev1.Node, 0, len(nodes))
	for _, n := range nodes {
		pl, ok := old[n]
		if !ok {
			if members == nil {
				m := NewMembership(pools)
				members = &m
			}
			primary, err := members.Primary(n)
			pl = placement{err: err}
			if primary != nil {
				pl.pool = primary.Name
			}
		}
		next[n] = pl
		if pl.err != nil {
			klog.ErrorS(pl.err, "Skipping node", "node", n.Name)
			continue
		}
		if pl.pool == pool {
			out = append(out, n)
		}
	}
	p.poolsAt, p.primary = key, next
	return out
}

// PoolsVersion names a set of pools at their spec generations: a node's
// placement holds while it is the same.
func PoolsVersion(pools []*mcfgv1.MachineConfigPool) string {
	parts := make([]string, 0, len(pools))
	for _, p := range pools {
		parts = append(parts, fmt.Sprintf("%s/%s@%d", p.Name, p.UID, p.Generation))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
