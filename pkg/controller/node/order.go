package node

import (
	"cmp"
	"slices"
)

// compareCandidates orders nodes for staging and grants. Staged nodes come
// first (their disruption is short); ties break like the MCO's sortNodeList:
// nodes with a zone label first, by zone, then oldest first; nodes without a
// zone last, oldest first. The name breaks what is left, so a plan is
// deterministic.
func compareCandidates(target string) func(a, b *NodeView) int {
	return func(a, b *NodeView) int {
		if as, bs := a.Staged == target, b.Staged == target; as != bs {
			if as {
				return -1
			}
			return 1
		}
		return compareMCO(a, b)
	}
}

// compareMCO is the MCO's zone-then-age order.
func compareMCO(a, b *NodeView) int {
	if a.HasZone != b.HasZone {
		if a.HasZone {
			return -1
		}
		return 1
	}
	if a.HasZone && a.Zone != b.Zone {
		return cmp.Compare(a.Zone, b.Zone)
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// sortCandidates sorts nodes in place for target, the etcd leader (if any)
// last: it is disrupted after every follower. The order is total (names are
// unique), so no stable sort is needed; it sorts indices and permutes once,
// because moving NodeViews (a few hundred bytes each) through a sort of
// thousands of nodes cost more than the comparisons.
func sortCandidates(nodes []NodeView, target, leader string) {
	byStage := compareCandidates(target)
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
