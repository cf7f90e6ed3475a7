package node

import (
	"fmt"
	"slices"
	"strings"
)

// etcdOrder holds the control-plane facts one plan needs: whether etcd
// ordering applies to the pool, a pool-wide block, the leader, the members
// and how many more members may be disrupted without risking quorum. Nodes
// are named by node name, members by member name; memberOf links them.
type etcdOrder struct {
	active   bool
	block    HoldReason // pool-wide: no control-plane disruption at all
	blockMsg string
	// leader is the node running the leader member ("" when no node of the
	// pool runs it); leaderMember is the member's name.
	leader       string
	leaderMember string
	// members are the pool's nodes that run a member; memberOf maps such a
	// node to its member, nodeOf a member to its node.
	members    map[string]bool
	memberOf   map[string]string
	nodeOf     map[string]string
	allMembers []string
	facts      EtcdFacts
	budget     int
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
	nodeOf, unmapped := memberNodes(etcd, nodes)
	o := etcdOrder{leaderMember: etcd.Leader(), members: map[string]bool{}, memberOf: map[string]string{},
		nodeOf: nodeOf, allMembers: etcd.Members(), facts: etcd}
	slices.Sort(o.allMembers)
	for m, n := range nodeOf {
		o.members[n], o.memberOf[n] = true, m
	}
	o.leader = nodeOf[o.leaderMember]
	o.active = pool.ControlPlane || len(o.members) > 0
	if !o.active {
		return etcdOrder{}
	}
	if pool.ControlPlane && len(unmapped) > 0 {
		o.block, o.blockMsg = HoldEtcdMemberUnmapped, fmt.Sprintf(
			"cannot tell which node runs etcd member(s) %s: no node of the pool is named so or has the address of its URLs; "+
				"the leader's node must update last, so nothing is granted until every member matches a node", strings.Join(unmapped, ", "))
		return o
	}
	if o.leaderMember == "" {
		o.block, o.blockMsg = HoldEtcdUnreachable, "etcd has no leader"
		return o
	}

	// Members whose node this pool is updating right now are expected to be
	// down; they still forbid any new grant (never risk quorum) but are the
	// ordinary order of a rollout, not an alarm.
	inflight := map[string]bool{} // by node
	byName := map[string]NodeView{}
	for _, n := range nodes {
		byName[n.Name] = n
		if o.members[n.Name] && (n.Unavailable() || n.failing()) {
			inflight[n.Name] = true
		}
	}
	var sick, sickInflight []string
	for _, m := range o.allMembers {
		if ok, why := etcd.Healthy(m); !ok {
			msg := fmt.Sprintf("etcd member %s is unhealthy: %s", m, why)
			if n := nodeOf[m]; n != "" && inflight[n] && byName[n].Desired == pool.Target {
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
	o.budget = max((len(o.allMembers)-1)/2, 1) - len(inflight)
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
	for _, m := range o.allMembers {
		if m == o.leaderMember {
			continue
		}
		if ok, _ := o.facts.Healthy(m); !ok {
			continue
		}
		n, ok := inPool[o.nodeOf[m]]
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
