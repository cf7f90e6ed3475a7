package node

import (
	"cmp"
	"slices"
)

// compareCandidates orders nodes for staging and grants. The admin's
// update-order comes first (higher first): it is the admin's word. Then
// staged nodes (their disruption is short); ties break like the MCO's
// sortNodeList: nodes with a zone label first, by zone, then oldest first
// (newest first if the pool asks); nodes without a zone last, by age the
// same way. The name breaks what is left, so a plan is deterministic.
func compareCandidates(target string, newestFirst bool) func(a, b *NodeView) int {
	return func(a, b *NodeView) int {
		if c := cmp.Compare(b.order(), a.order()); c != 0 {
			return c
		}
		if as, bs := a.Staged == target, b.Staged == target; as != bs {
			if as {
				return -1
			}
			return 1
		}
		return compareMCO(a, b, newestFirst)
	}
}

// compareMCO is the MCO's zone-then-age order; newestFirst reverses the age
// order within a zone and among the nodes without one (MCO PR #6407).
func compareMCO(a, b *NodeView, newestFirst bool) int {
	if a.HasZone != b.HasZone {
		if a.HasZone {
			return -1
		}
		return 1
	}
	if a.HasZone && a.Zone != b.Zone {
		return cmp.Compare(a.Zone, b.Zone)
	}
	byAge := a.Created.Compare(b.Created)
	if newestFirst {
		byAge = -byAge
	}
	if byAge != 0 {
		return byAge
	}
	return cmp.Compare(a.Name, b.Name)
}

// sortCandidates sorts a pool's nodes in place for its target, the etcd
// leader (if any) last: it is disrupted after every follower, whatever
// order the admin asked. The order is total (names are unique), so no
// stable sort is needed; it sorts indices and permutes once, because
// moving NodeViews (a few hundred bytes each) through a sort of thousands
// of nodes cost more than the comparisons.
func sortCandidates(nodes []NodeView, pool PoolView, leader string) {
	byStage := compareCandidates(pool.Target, pool.NewestFirst)
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &nodes[i], &nodes[j]
		if leader != "" && (a.Name == leader) != (b.Name == leader) {
			if a.Name == leader {
				return 1
			}
			return -1
		}
		return byStage(a, b)
	})
	sorted := make([]NodeView, len(nodes))
	for k, i := range idx {
		sorted[k] = nodes[i]
	}
	copy(nodes, sorted)
}
