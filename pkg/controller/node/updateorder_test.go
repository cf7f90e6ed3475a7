package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The admin's order, as proposed upstream: a node's integer update-order
// (MCO PR #2162: "Setting it to 0 will entirely skip that node for
// updates. Otherwise, higher values are preferred.") and a pool's
// OldestFirst/NewestFirst (MCO PR #6407: "only reverses age order within a
// zone (and among no-zone nodes)").

func TestParseNodeUpdateOrder(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		present bool
		want    int
		bad     bool
	}{
		{"", false, DefaultUpdateOrder, false},
		{"0", true, 0, false},
		{"7", true, 7, false},
		{" 12 ", true, 12, false},
		{"1000000", true, 1000000, false},
		{"1000001", true, 0, true},
		{"-1", true, 0, true},
		{"1O", true, 0, true},
		{"", true, 0, true},
		{"high", true, 0, true},
	} {
		got, err := ParseNodeUpdateOrder(tc.raw, tc.present)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ParseNodeUpdateOrder(%q, %v) = %d, %v; want %d, bad=%v", tc.raw, tc.present, got, err, tc.want, tc.bad)
		}
		if err != nil && !strings.Contains(err.Error(), constants.UpdateOrderAnnotation) {
			t.Errorf("error %q does not name the annotation", err)
		}
	}
}

func TestParsePoolUpdateOrder(t *testing.T) {
	for _, tc := range []struct {
		raw          string
		present      bool
		newest, fail bool
	}{
		{"", false, false, false},
		{"OldestFirst", true, false, false},
		{"NewestFirst", true, true, false},
		{"newestfirst", true, false, true},
		{"", true, false, true},
		{"Random", true, false, true},
	} {
		newest, err := ParsePoolUpdateOrder(tc.raw, tc.present)
		if (err != nil) != tc.fail || newest != tc.newest {
			t.Errorf("ParsePoolUpdateOrder(%q, %v) = %v, %v; want %v, fail=%v", tc.raw, tc.present, newest, err, tc.newest, tc.fail)
		}
	}
}

func TestViewsReadUpdateOrder(t *testing.T) {
	n := func(ann map[string]string) NodeView {
		return ViewOfNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a", Annotations: ann}})
	}
	if v := n(nil); v.order() != DefaultUpdateOrder || v.keptOut() || v.UpdateOrderErr != "" {
		t.Errorf("no annotation: %+v", v)
	}
	if v := n(map[string]string{constants.UpdateOrderAnnotation: "0"}); !v.keptOut() || v.order() != 0 {
		t.Errorf("update-order 0: %+v", v)
	}
	if v := n(map[string]string{constants.UpdateOrderAnnotation: "5"}); v.order() != 5 || v.keptOut() {
		t.Errorf("update-order 5: %+v", v)
	}
	if v := n(map[string]string{constants.UpdateOrderAnnotation: "x"}); v.UpdateOrderErr == "" || v.keptOut() {
		t.Errorf("update-order x: %+v", v)
	}
	p := func(val string) PoolView {
		return ViewOfPool(&mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker",
			Annotations: map[string]string{constants.UpdateOrderAnnotation: val}}})
	}
	if v := p("NewestFirst"); !v.NewestFirst || v.UpdateOrderErr != "" {
		t.Errorf("pool NewestFirst: %+v", v)
	}
	if v := p("Newest"); v.NewestFirst || v.UpdateOrderErr == "" {
		t.Errorf("pool Newest: %+v", v)
	}
}

func ordered(n NodeView, k int) NodeView {
	return with(n, func(n *NodeView) { n.UpdateOrder, n.HasUpdateOrder = k, true })
}

func TestPlanUpdateOrder(t *testing.T) {
	a, b, c, d := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2), doneNode("d", oldCfg, 3)
	two := pool("worker")
	two.MaxUnavailable = intOrStr("2")
	newest := pool("worker")
	newest.NewestFirst = true
	badPool := pool("worker")
	badPool.UpdateOrderErr = "update-order on the pool is neither OldestFirst nor NewestFirst"
	bad := with(d, func(n *NodeView) { n.UpdateOrderErr = "update-order \"x\" is not a whole number" })
	cp := with2(pool(constants.MasterPool), constants.MasterPool)
	m0, m1, m2 := doneNode("m0", oldCfg, 0), doneNode("m1", oldCfg, 1), doneNode("m2", oldCfg, 2)
	runPlanCases(t, []planCase{
		{name: "higher update-order first, ahead of age", pool: pool("worker"),
			nodes: []NodeView{a, b, ordered(c, 5)}, grants: []string{"c"},
			holds: map[string]HoldReason{"a": HoldMaxUnavailable, "b": HoldMaxUnavailable}},
		{name: "unannotated counts as 1: above 0-less values only by raising", pool: two,
			nodes: []NodeView{ordered(a, 1), b, ordered(c, 2), ordered(d, 3)}, grants: []string{"d", "c"}},
		{name: "the admin's order goes ahead of staged nodes", pool: pool("worker"),
			nodes: []NodeView{staged(a), ordered(b, 2)}, grants: []string{"b"}},
		{name: "equal orders fall back to staged, then zone and age", pool: two,
			nodes: []NodeView{ordered(a, 3), ordered(zone(b, "z1"), 3), ordered(staged(c), 3)}, grants: []string{"c", "b"}},
		{name: "0 keeps a node out, its place goes to the next", pool: pool("worker"),
			nodes: []NodeView{ordered(a, 0), b}, grants: []string{"b"}, stages: []string{"a"},
			holds: map[string]HoldReason{"a": HoldUpdateOrder}, events: []string{EventDisruptionHeld}},
		{name: "a vetoed first node lets the next one through (a preference, not a barrier)", pool: pool("worker"),
			nodes: []NodeView{a, ordered(b, 9)}, facts: Facts{Gates: []DisruptionGate{vetoGate{"b": "busy"}}},
			grants: []string{"a"}, holds: map[string]HoldReason{"b": HoldGate}},
		{name: "NewestFirst reverses age", pool: newest, nodes: []NodeView{a, b, c}, grants: []string{"c"}},
		{name: "NewestFirst keeps the zone order", pool: newest,
			nodes: []NodeView{zone(a, "z1"), zone(c, "z2"), d}, grants: []string{"a"}},
		{name: "an unreadable node value holds the pool; staging goes on", pool: pool("worker"),
			nodes: []NodeView{a, b, bad}, grants: nil, stages: []string{"a", "b", "d"},
			holds:  map[string]HoldReason{"a": HoldInvalidUpdateOrder, "d": HoldInvalidUpdateOrder},
			events: []string{EventDisruptionHeld, EventSetStageConfig}},
		{name: "an unreadable value on an updated node holds nothing", pool: pool("worker"),
			nodes: []NodeView{a, with(updatedNode("d", 3), func(n *NodeView) { n.UpdateOrderErr = "bad" })}, grants: []string{"a"}},
		{name: "an unreadable pool value holds the pool", pool: badPool, nodes: []NodeView{a, b}, grants: nil,
			stages: []string{"a", "b"}, holds: map[string]HoldReason{"a": HoldInvalidUpdateOrder}, events: []string{EventDisruptionHeld}},
		{name: "the etcd leader stays last whatever its order", pool: cp,
			nodes: []NodeView{ordered(m0, 100), m1, m2}, facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m1"},
			holds: map[string]HoldReason{"m0": HoldMaxUnavailable}},
		{name: "followers follow the admin's order", pool: cp,
			nodes: []NodeView{m0, m1, ordered(m2, 4)}, facts: Facts{Etcd: etcd3("m0")}, grants: []string{"m2"}},
	})
}

func TestUpdateHoldKeepsOutOrderZero(t *testing.T) {
	n := ordered(doneNode("a", oldCfg, 0), 0)
	if why := UpdateHold(pool("worker"), Breaker{}, n, time.Now(), nil); !strings.Contains(why, "update-order") {
		t.Errorf("UpdateHold of a node with update-order 0 = %q, want a hold naming update-order", why)
	}
	if why := UpdateHold(pool("worker"), Breaker{}, ordered(n, 3), time.Now(), nil); why != "" {
		t.Errorf("UpdateHold of a node with update-order 3 = %q, want none", why)
	}
}
