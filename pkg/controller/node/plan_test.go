package node

import (
	"slices"
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

type planCase struct {
	name   string
	pool   PoolView
	nodes  []NodeView
	facts  Facts
	grants []string
	stages []string // nil: not checked
	move   *LeaderMove
	holds  map[string]HoldReason
	events []string // reasons that must be present
	noEv   []string // reasons that must be absent
}

func runPlanCases(t *testing.T, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.pool, tc.nodes, tc.facts)
			if got := grantNames(r); !slices.Equal(got, tc.grants) {
				t.Errorf("grants = %v, want %v (holds %+v)", got, tc.grants, r.Holds)
			}
			if tc.stages != nil {
				if got := stageNames(r); !slices.Equal(got, tc.stages) {
					t.Errorf("stages = %v, want %v", got, tc.stages)
				}
			}
			switch {
			case tc.move == nil && r.MoveLeader != nil:
				t.Errorf("unexpected MoveLeader %+v", *r.MoveLeader)
			case tc.move != nil && (r.MoveLeader == nil || *r.MoveLeader != *tc.move):
				t.Errorf("MoveLeader = %+v, want %+v", r.MoveLeader, *tc.move)
			}
			for node, want := range tc.holds {
				if got := holdOf(r, node); got != want {
					t.Errorf("hold of %s = %q, want %q", node, got, want)
				}
			}
			for _, e := range tc.events {
				if !hasEvent(r, e) {
					t.Errorf("missing event %s in %+v", e, r.Events)
				}
			}
			for _, e := range tc.noEv {
				if hasEvent(r, e) {
					t.Errorf("unexpected event %s in %+v", e, r.Events)
				}
			}
		})
	}
}

func TestPlanNoTargetLeavesPoolAlone(t *testing.T) {
	r := Plan(PoolView{Name: "worker"}, []NodeView{doneNode("a", oldCfg, 0)}, Facts{})
	if r.Status != nil || len(r.Grant)+len(r.Stage)+len(r.Events) != 0 {
		t.Fatalf("a pool without target got decisions: %+v", r)
	}
}

func TestPlanGrants(t *testing.T) {
	paused := pool("worker")
	paused.Paused = true
	two := pool("worker")
	two.MaxUnavailable = intOrStr("2")
	half := pool("worker")
	half.MaxUnavailable = intOrStr("50%")
	tenPct := pool("worker")
	tenPct.MaxUnavailable = intOrStr("10%")
	bad := pool("worker")
	bad.MaxUnavailable = intOrStr("lots")
	zero := pool("worker")
	zero.MaxUnavailable = intOrStr("0")

	a, b, c, d := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2), doneNode("d", oldCfg, 3)
	runPlanCases(t, []planCase{
		{name: "default maxUnavailable is 1, oldest first", pool: pool("worker"),
			nodes: []NodeView{c, b, a}, grants: []string{"a"},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable, "c": HoldMaxUnavailable}, events: []string{EventSetDesiredConfig}},
		{name: "paused pool gets nothing", pool: paused, nodes: []NodeView{a, b}, grants: nil, stages: []string{},
			noEv: []string{EventSetDesiredConfig, EventSetStageConfig}},
		{name: "int maxUnavailable", pool: two, nodes: []NodeView{a, b, c}, grants: []string{"a", "b"}},
		{name: "percent rounds down", pool: half, nodes: []NodeView{a, b, c, d, doneNode("e", oldCfg, 4)}, grants: []string{"a", "b"}},
		{name: "percent below one is one", pool: tenPct, nodes: []NodeView{a, b, c}, grants: []string{"a"}},
		{name: "zero is one", pool: zero, nodes: []NodeView{a, b}, grants: []string{"a"}},
		{name: "invalid maxUnavailable grants nothing", pool: bad, nodes: []NodeView{a, b}, grants: nil,
			holds: map[string]HoldReason{"a": HoldInvalidMaxUnavail}, events: []string{EventDisruptionHeld}},
		{name: "node being updated uses the capacity", pool: pool("worker"),
			nodes: []NodeView{granted(a), b}, grants: nil, holds: map[string]HoldReason{"b": HoldMaxUnavailable}},
		{name: "not ready node uses the capacity", pool: pool("worker"),
			nodes: []NodeView{with(a, func(n *NodeView) { n.Ready = false }), b}, grants: nil},
		{name: "cordoned node uses the capacity", pool: two,
			nodes: []NodeView{with(a, func(n *NodeView) { n.Unschedulable = true }), b, c}, grants: []string{"a"}},
		{name: "cordoned updated node uses the capacity", pool: two,
			nodes: []NodeView{with(updatedNode("a", 0), func(n *NodeView) { n.Unschedulable = true }), b, c}, grants: []string{"b"}},
		{name: "daemon working on current config uses the capacity", pool: pool("worker"),
			nodes: []NodeView{with(a, func(n *NodeView) { n.State = constants.MachineConfigDaemonStateWorking }), b}, grants: nil},
		{name: "node failing an old config is retargeted and does not use capacity", pool: pool("worker"),
			nodes: []NodeView{with(a, func(n *NodeView) {
				n.Desired, n.State = "rendered-worker-mid", constants.MachineConfigDaemonStateDegraded
			}), b},
			grants: []string{"a"}},
		{name: "node failing the target uses the capacity", pool: tolerant(two),
			nodes:  []NodeView{with(a, func(n *NodeView) { n.Desired, n.State = newCfg, constants.MachineConfigDaemonStateDegraded }), b, c},
			grants: []string{"b"}},
		{name: "updated nodes are not granted again", pool: pool("worker"),
			nodes: []NodeView{updatedNode("a", 0), b}, grants: []string{"b"}},
		{name: "staged node preferred over older unstaged", pool: pool("worker"),
			nodes: []NodeView{a, b, staged(c)}, grants: []string{"c"}},
		{name: "zone then age like the MCO", pool: two,
			nodes: []NodeView{a, zone(d, "z2"), zone(c, "z1"), zone(b, "z2")}, grants: []string{"c", "b"}},
		{name: "staged wins over zone order", pool: pool("worker"),
			nodes: []NodeView{zone(a, "z1"), staged(b)}, grants: []string{"b"}},
		{name: "gate vetoes without using capacity", pool: pool("worker"), nodes: []NodeView{a, b},
			facts: Facts{Gates: []DisruptionGate{vetoGate{"a": "tenant host not drained"}}}, grants: []string{"b"},
			holds: map[string]HoldReason{"a": HoldGate}, events: []string{EventDisruptionHeld}},
	})
}

func TestPlanStageWave(t *testing.T) {
	conc := func(s string) PoolView { p := pool("worker"); p.StageConcurrency = intOrStr(s); return p }
	stagingNode := func(n NodeView) NodeView { return with(n, func(n *NodeView) { n.Stage = newCfg }) }
	a, b, c, d := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2), doneNode("d", oldCfg, 3)
	paused := pool("worker")
	paused.Paused = true
	cp := with2(pool(constants.MasterPool), constants.MasterPool)
	m0, m1, m2 := doneNode("m0", oldCfg, 0), doneNode("m1", oldCfg, 1), doneNode("m2", oldCfg, 2)
	runPlanCases(t, []planCase{
		{name: "default stages every node", pool: pool("worker"), nodes: []NodeView{d, c, b, a},
			grants: []string{"a"}, stages: []string{"b", "c", "d"}, events: []string{EventSetStageConfig}},
		{name: "bounded by concurrency, in-flight stages count", pool: conc("2"),
			nodes: []NodeView{granted(a), stagingNode(b), c, d}, grants: nil, stages: []string{}},
		{name: "free slot goes to the next node", pool: conc("2"),
			nodes: []NodeView{granted(a), staged(b), c, d}, grants: nil, stages: []string{"c"}},
		{name: "percent rounds up", pool: conc("30%"), nodes: []NodeView{granted(a), b, c, d},
			grants: nil, stages: []string{"b"}},
		{name: "failed stage frees its slot", pool: conc("1"),
			nodes:  []NodeView{with(stagingNode(a), func(n *NodeView) { n.State = constants.MachineConfigDaemonStateDegraded }), granted(b), c},
			grants: nil, stages: []string{}},
		{name: "invalid concurrency stages all and warns", pool: conc("many"), nodes: []NodeView{a, b},
			grants: []string{"a"}, stages: []string{"b"}, events: []string{EventInvalidSetting}},
		{name: "updated and staged nodes are not restaged", pool: pool("worker"),
			nodes: []NodeView{updatedNode("a", 0), staged(b), c}, grants: []string{"b"}, stages: []string{"c"}},
		{name: "paused pool does not stage", pool: paused, nodes: []NodeView{a, b}, grants: nil, stages: []string{}},
		{name: "staging goes on while etcd is unreachable", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: fakeEtcd{err: errUnreachable}}, grants: nil, stages: []string{"m0", "m1", "m2"}},
		{name: "etcd leader stages last", pool: with2(conc("2"), constants.MasterPool), nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"}, stages: []string{"m2"}},
	})
}

func with2(p PoolView, name string) PoolView {
	p.Name = name
	p.ControlPlane = name == constants.MasterPool
	return p
}

func TestPlanControlPlane(t *testing.T) {
	cp := with2(pool(constants.MasterPool), constants.MasterPool)
	cpAll := cp
	cpAll.MaxUnavailable = intOrStr("100%")
	m0, m1, m2 := doneNode("m0", oldCfg, 0), doneNode("m1", oldCfg, 1), doneNode("m2", oldCfg, 2)
	u0, u1, u2 := updatedNode("m0", 0), updatedNode("m1", 1), updatedNode("m2", 2)
	custom := with2(pool("etcd-hosts"), "etcd-hosts")
	five := fakeEtcd{leader: "m4", members: []string{"m0", "m1", "m2", "m3", "m4"}}
	runPlanCases(t, []planCase{
		{name: "followers first: leader is oldest but waits", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"},
			holds: map[string]HoldReason{"m0": HoldMaxUnavailable, "m2": HoldMaxUnavailable}},
		{name: "leader waits for a vetoed follower", pool: cp, nodes: []NodeView{m0, u1, m2},
			facts: Facts{Etcd: etcd3("m0"), Gates: []DisruptionGate{vetoGate{"m2": "busy"}}}, grants: nil,
			holds: map[string]HoldReason{"m0": HoldLeaderLast, "m2": HoldGate}},
		{name: "staged leader still waits for unstaged followers", pool: cpAll, nodes: []NodeView{staged(m0), m1, m2},
			facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"},
			holds: map[string]HoldReason{"m0": HoldEtcdQuorum, "m2": HoldEtcdQuorum}},
		{name: "leader waits while a follower updates", pool: cpAll, nodes: []NodeView{m0, u1, granted(m2)},
			facts: Facts{Etcd: etcd3("m0")}, grants: nil, holds: map[string]HoldReason{"m0": HoldEtcdQuorum}},
		{name: "leader waits for a degraded follower", pool: tolerant(cp),
			nodes: []NodeView{m0, u1, with(granted(m2), func(n *NodeView) { n.State = constants.MachineConfigDaemonStateDegraded })},
			facts: Facts{Etcd: etcd3("m0")}, grants: nil, holds: map[string]HoldReason{"m0": HoldMaxUnavailable}},
		{name: "leader waits for a degraded follower with capacity", pool: tolerant(cpAll),
			nodes: []NodeView{m0, u1, with(granted(m2), func(n *NodeView) { n.State = constants.MachineConfigDaemonStateDegraded })},
			facts: Facts{Etcd: etcd3("m0")}, grants: nil, holds: map[string]HoldReason{"m0": HoldEtcdQuorum}},
		{name: "followers updated: move leadership, do not grant", pool: cp, nodes: []NodeView{m0, u1, u2},
			facts: Facts{Etcd: etcd3("m0")}, grants: nil, move: &LeaderMove{From: "m0", To: "m1"},
			holds: map[string]HoldReason{"m0": HoldMoveLeaderPending}, events: []string{EventMoveEtcdLeader}},
		{name: "move skips a cordoned follower", pool: cpAll,
			nodes: []NodeView{m0, with(u1, func(n *NodeView) { n.Unschedulable = true }), u2},
			facts: Facts{Etcd: etcd3("m0")}, grants: nil, holds: map[string]HoldReason{"m0": HoldEtcdQuorum}},
		{name: "after the move the old leader is a follower and is granted", pool: cp, nodes: []NodeView{m0, u1, u2},
			facts: Facts{Etcd: etcd3("m1")}, grants: []string{"m0"}},
		{name: "unreachable etcd: no grant, say why", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: fakeEtcd{err: errUnreachable}}, grants: nil,
			holds:  map[string]HoldReason{"m1": HoldEtcdUnreachable},
			events: []string{EventDisruptionHeld, EventSetStageConfig}},
		{name: "no leader is like unreachable", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("")}, grants: nil, holds: map[string]HoldReason{"m1": HoldEtcdUnreachable}},
		{name: "member down: no master granted", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0", "m2")}, grants: nil,
			holds: map[string]HoldReason{"m1": HoldEtcdUnhealthy}, events: []string{EventDisruptionHeld}},
		{name: "member of a node we update is down: held, no alarm", pool: cpAll, nodes: []NodeView{m0, granted(m1), m2},
			facts: Facts{Etcd: etcd3("m0", "m1")}, grants: nil,
			holds: map[string]HoldReason{"m2": HoldEtcdQuorum}, noEv: []string{EventDisruptionHeld}},
		{name: "quorum budget: one of three at a time", pool: cpAll, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"}, holds: map[string]HoldReason{"m2": HoldEtcdQuorum}},
		{name: "quorum budget: two of five at a time", pool: cpAll,
			nodes: []NodeView{m0, m1, m2, doneNode("m3", oldCfg, 3), doneNode("m4", oldCfg, 4)},
			facts: Facts{Etcd: five}, grants: []string{"m0", "m1"}},
		{name: "single member: the leader is granted", pool: cp, nodes: []NodeView{m0},
			facts: Facts{Etcd: fakeEtcd{leader: "m0", members: []string{"m0"}}}, grants: []string{"m0"}},
		{name: "no etcd source: MCO order", pool: cp, nodes: []NodeView{m0, m1, m2}, grants: []string{"m0"}},
		{name: "worker pool ignores etcd", pool: pool("worker"), nodes: []NodeView{doneNode("a", oldCfg, 0)},
			facts: Facts{Etcd: fakeEtcd{err: errUnreachable}}, grants: []string{"a"}},
		{name: "a custom pool of etcd members is ordered too", pool: custom, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"}, holds: map[string]HoldReason{"m0": HoldMaxUnavailable}},
		{name: "gate vetoes a follower on the control plane", pool: cp, nodes: []NodeView{m0, m1, m2},
			facts: Facts{Etcd: etcd3("m0"), Gates: []DisruptionGate{vetoGate{"m1": "busy"}}}, grants: []string{"m2"}},
		{name: "all done: nothing to do", pool: cp, nodes: []NodeView{u0, u1, u2},
			facts: Facts{Etcd: fakeEtcd{err: errUnreachable}}, grants: nil, noEv: []string{EventDisruptionHeld}},
	})
}

func TestLeaderTargetFallsBackToMemberOutsidePool(t *testing.T) {
	o := newEtcdOrder(with2(pool(constants.MasterPool), constants.MasterPool),
		[]NodeView{doneNode("m0", oldCfg, 0)}, etcd3("m0"))
	if got := o.leaderTarget([]NodeView{doneNode("m0", oldCfg, 0)}, newCfg); got != "m1" {
		t.Fatalf("leaderTarget = %q, want m1", got)
	}
	sick := etcd3("m0", "m1", "m2")
	o = newEtcdOrder(with2(pool(constants.MasterPool), constants.MasterPool), nil, sick)
	if got := o.leaderTarget(nil, newCfg); got != "" {
		t.Fatalf("leaderTarget with every other member sick = %q, want none", got)
	}
}

func TestMaxUnavailableRounding(t *testing.T) {
	for _, tc := range []struct {
		v     string
		total int
		want  int
	}{{"", 10, 1}, {"1", 10, 1}, {"3", 10, 3}, {"0", 10, 1}, {"25%", 10, 2}, {"29%", 7, 2}, {"10%", 5, 1}, {"100%", 3, 3}, {"50%", 0, 1}} {
		var v = intOrStr(tc.v)
		if tc.v == "" {
			v = nil
		}
		got, err := MaxUnavailable(v, tc.total)
		if err != nil || got != tc.want {
			t.Errorf("MaxUnavailable(%q, %d) = %d, %v; want %d", tc.v, tc.total, got, err, tc.want)
		}
	}
	if _, err := MaxUnavailable(intOrStr("x%"), 3); err == nil {
		t.Errorf("invalid percent accepted")
	}
}

// TestPlanRepointsStaleStage: a node that runs or was granted the target but
// still carries an older stageConfig gets it re-pointed, so its daemon does
// not stage the old OS again; nodes without a stale stage are left alone.
func TestPlanRepointsStaleStage(t *testing.T) {
	stale := func(n NodeView) NodeView { return with(n, func(n *NodeView) { n.Stage = oldCfg }) }
	nodes := []NodeView{
		stale(updatedNode("a", 1)),               // runs the target, stale stage
		stale(granted(doneNode("b", oldCfg, 2))), // granted the target, stale stage
		updatedNode("c", 3),                      // runs the target, no stage annotation
	}
	r := Plan(pool("worker"), nodes, Facts{Now: epoch})
	if got, want := stageNames(r), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("stage assignments %v, want %v", got, want)
	}
	for _, a := range r.Stage {
		if a.Config != newCfg {
			t.Errorf("%s re-pointed to %s, want %s", a.Node, a.Config, newCfg)
		}
	}
}
