package node

import (
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// urlEtcd is an etcd snapshot whose members are not named like their nodes
// but list their URLs (etcd's member list), as on a cluster whose members
// were named by an installer ("etcd-0") or by IP.
type urlEtcd struct {
	fakeEtcd
	urls map[string][]string
}

func (u urlEtcd) MemberURLs(m string) []string { return u.urls[m] }

func addressed(n NodeView, addrs ...string) NodeView {
	return with(n, func(n *NodeView) { n.Addresses = addrs })
}

// TestPlanMapsEtcdMembersToNodes: issue 16 found the member name assumed to
// be the node name; a mismatch silently turned leader-last off. Members are
// now found by name, then by the address of their peer or client URLs, and a
// control-plane member that matches no node holds the pool.
func TestPlanMapsEtcdMembersToNodes(t *testing.T) {
	cp := with2(pool(constants.MasterPool), constants.MasterPool)
	m0 := addressed(doneNode("m0", oldCfg, 0), "10.0.0.10", "m0.example")
	m1 := addressed(doneNode("m1", oldCfg, 1), "10.0.0.11")
	m2 := addressed(doneNode("m2", oldCfg, 2), "10.0.0.12")
	u1, u2 := addressed(updatedNode("m1", 1), "10.0.0.11"), addressed(updatedNode("m2", 2), "10.0.0.12")
	byURL := func(leader string) urlEtcd {
		return urlEtcd{fakeEtcd: fakeEtcd{leader: leader, members: []string{"etcd-0", "etcd-1", "etcd-2"}, unhealthy: map[string]string{}},
			urls: map[string][]string{
				"etcd-0": {"https://10.0.0.10:2380", "https://10.0.0.10:2379"},
				"etcd-1": {"https://10.0.0.11:2380"},
				"etcd-2": {"https://m2.other:2380", "https://10.0.0.12:2379"},
			}}
	}
	noURLs := fakeEtcd{leader: "etcd-0", members: []string{"etcd-0", "etcd-1", "etcd-2"}}
	runPlanCases(t, []planCase{
		{name: "members found by peer URL: the leader's node (oldest) waits", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: byURL("etcd-0")}, grants: []string{"m1"},
			holds: map[string]HoldReason{"m0": HoldMaxUnavailable, "m2": HoldMaxUnavailable}},
		{name: "followers updated: leadership moves, by member name", pool: cp, nodes: []NodeView{m0, u1, u2},
			facts: Facts{Etcd: byURL("etcd-0")}, grants: nil, move: &LeaderMove{From: "etcd-0", To: "etcd-1"},
			holds: map[string]HoldReason{"m0": HoldMoveLeaderPending}, events: []string{EventMoveEtcdLeader}},
		{name: "moved: the old leader's node is granted", pool: cp, nodes: []NodeView{m0, u1, u2},
			facts: Facts{Etcd: byURL("etcd-1")}, grants: []string{"m0"}},
		{name: "members that match no node hold the control plane and say so", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: noURLs}, grants: nil,
			holds: map[string]HoldReason{"m0": HoldEtcdMemberUnmapped, "m1": HoldEtcdMemberUnmapped, "m2": HoldEtcdMemberUnmapped}},
	})
}

func TestMemberNodes(t *testing.T) {
	nodes := []NodeView{addressed(doneNode("a", oldCfg, 0), "10.0.0.1"), addressed(doneNode("b", oldCfg, 0), "10.0.0.2"),
		addressed(doneNode("c", oldCfg, 0), "10.0.0.2")}
	e := urlEtcd{fakeEtcd: fakeEtcd{members: []string{"a", "x", "y", "z"}},
		urls: map[string][]string{"a": {"https://10.0.0.9:2380"}, "x": {"https://10.0.0.1:2380"}, "y": {"https://10.0.0.2:2380"}, "z": {"not a url"}}}
	nodeOf, unmapped := memberNodes(e, nodes)
	// a by name (its URL does not matter); x's address is a's, taken by the
	// member named a; y matches two nodes; z has no usable URL.
	if len(nodeOf) != 1 || nodeOf["a"] != "a" {
		t.Errorf("nodeOf = %v", nodeOf)
	}
	if want := []string{"x", "y", "z"}; len(unmapped) != 3 || unmapped[0] != want[0] || unmapped[1] != want[1] || unmapped[2] != want[2] {
		t.Errorf("unmapped = %v, want %v", unmapped, want)
	}
}
