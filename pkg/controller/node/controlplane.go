package node

import (
	"fmt"
	"slices"
	"strings"
)

// etcdOrder holds the control-plane facts one plan needs: whether etcd
// ordering applies to the pool, a pool-wide block, the leader, the members
// and how many more members may be disrupted without risking quorum.
type etcdOrder struct {
	active   bool
	block    HoldReason // pool-wide: no control-plane disruption at all
	blockMsg string
	leader   string
	members  map[string]bool
	facts    EtcdFacts
	budget   int
}

// newEtcdOrder derives the control-plane facts. Etcd ordering applies to a
// control-plane pool, or to any pool whose nodes are etcd members, when an
// etcd source is configured.
func newEtcdOrder(pool PoolView, nodes []NodeView, etcd EtcdFacts) etcdOrder {
	if etcd == nil {
		return etcdOrder{}
	}
	if err := etcd.Err(); err != nil {
		if !pool.ControlPlane {
			// Membership is unknown; only a pool known to be the control
			// plane is held.
			return etcdOrder{}
		}
		return etcdOrder{active: true, block: HoldEtcdUnreachable,
			blockMsg: fmt.Sprintf("etcd is unreachable: %v", err)}
	}
	o := etcdOrder{leader: etcd.Leader(), members: map[string]bool{}, facts: etcd}
	for _, m := range etcd.Members() {
		o.members[m] = true
	}
	o.active = pool.ControlPlane
	for _, n := range nodes {
		if o.members[n.Name] {
			o.active = true
		}
	}
	if !o.active {
		return etcdOrder{}
	}
	if o.leader == "" {
		o.block, o.blockMsg = HoldEtcdUnreachable, "etcd has no leader"
		return o
	}

	// Members whose node this pool is updating right now are expected to be
	// down; they still forbid any new grant (never risk quorum) but are the
	// ordinary order of a rollout, not an alarm.
	inflight := map[string]bool{}
	byName := map[string]NodeView{}
	for _, n := range nodes {
		byName[n.Name] = n
		if o.members[n.Name] && (n.Unavailable() || n.failing()) {
			inflight[n.Name] = true
		}
	}
	var sick, sickInflight []string
	for _, m := range sortedKeys(o.members) {
		if ok, why := etcd.Healthy(m); !ok {
			msg := fmt.Sprintf("etcd member %s is unhealthy: %s", m, why)
			if inflight[m] && byName[m].Desired == pool.Target {
				sickInflight = append(sickInflight, msg)
			} else {
				sick = append(sick, msg)
			}
		}
	}
	switch {
	case len(sick) > 0:
		o.block, o.blockMsg = HoldEtcdUnhealthy, strings.Join(append(sick, sickInflight...), "; ")
	case len(sickInflight) > 0:
		o.block, o.blockMsg = HoldEtcdQuorum, strings.Join(sickInflight, "; ")
	}
	// A cluster of n members keeps quorum with (n-1)/2 members down. One or
	// two members cannot lose any; they still update one at a time.
	o.budget = max((len(o.members)-1)/2, 1) - len(inflight)
	return o
}

func (o etcdOrder) member(node string) bool { return o.active && o.members[node] }

// pendingFollowers lists the member nodes other than the leader that are not
// updated to target yet.
func (o etcdOrder) pendingFollowers(nodes []NodeView, target string) []string {
	var out []string
	for _, n := range nodes {
		if n.Name != o.leader && o.members[n.Name] && !n.updated(target) {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return out
}

// leaderTarget picks the member to move leadership to: a healthy member
// other than the leader whose node is updated to target and schedulable.
// Members with no node in the pool are a fallback (they are not disrupted by
// this rollout). The name breaks ties, so plans are deterministic.
func (o etcdOrder) leaderTarget(nodes []NodeView, target string) string {
	inPool := map[string]NodeView{}
	for _, n := range nodes {
		inPool[n.Name] = n
	}
	var fallback string
	for _, m := range sortedKeys(o.members) {
		if m == o.leader {
			continue
		}
		if ok, _ := o.facts.Healthy(m); !ok {
			continue
		}
		n, ok := inPool[m]
		if !ok {
			if fallback == "" {
				fallback = m
			}
			continue
		}
		if n.updated(target) && n.schedulable() {
			return m
		}
	}
	return fallback
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
