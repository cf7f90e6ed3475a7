package node

import (
	"slices"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func annotated(p PoolView, kv ...string) PoolView {
	p.Annotations = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Annotations[kv[i]] = kv[i+1]
	}
	return p
}

// TestWindowOpen is written from cron's meaning: "0 22 * * 1-5 4h" is open
// from 22:00 to 02:00 after each weekday evening, and closed otherwise.
func TestWindowOpen(t *testing.T) {
	ws, err := ParseWindows("0 22 * * 1-5 4h")
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	at := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	// 2025-01-06 is a Monday; 2025-01-11 a Saturday.
	for s, want := range map[string]bool{
		"2025-01-06 21:59": false, "2025-01-06 22:00": true, "2025-01-07 01:59": true,
		"2025-01-07 02:00": false, "2025-01-07 12:00": false, "2025-01-11 23:00": false,
		"2025-01-11 01:00": true, // Friday's window runs into Saturday
	} {
		if got := w.Open(at(s)); got != want {
			t.Errorf("open at %s = %v, want %v", s, got, want)
		}
	}
	tz, err := ParseWindows("CRON_TZ=Asia/Tokyo 0 1 * * * 1h; @weekly 30m")
	if err != nil {
		t.Fatal(err)
	}
	if !tz[0].Open(at("2025-01-06 16:30")) || tz[0].Open(at("2025-01-06 01:30")) {
		t.Error("CRON_TZ window: 01:00 JST is 16:00 UTC")
	}
	for _, bad := range []string{"", "0 22 * * *", "0 22 * * * -1h", "0 22 * * * 9d", "61 22 * * * 1h", "@every 1h 1h", "0 22 * * * 10000h"} {
		if _, err := ParseWindows(bad); err == nil {
			t.Errorf("ParseWindows(%q) accepted", bad)
		}
	}
}

func TestGatesHoldDisruptionNotStaging(t *testing.T) {
	monday2200 := time.Date(2025, 1, 6, 22, 30, 0, 0, time.UTC)
	monday1200 := time.Date(2025, 1, 6, 12, 0, 0, 0, time.UTC)
	a, b := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1)
	two := pool("worker")
	two.MaxUnavailable = intOrStr("2")
	window := constants.MaintenanceWindowsAnnotation
	hold := constants.DisruptionHoldAnnotation
	cases := []struct {
		name      string
		pool      PoolView
		nodes     []NodeView
		now       time.Time
		grants    []string
		reason    HoldReason // the DisruptionHeld condition's reason; "" : not held
		msgSubstr string
	}{
		{name: "inside the window", pool: annotated(two, window, "0 22 * * 1-5 4h"), nodes: []NodeView{a, b},
			now: monday2200, grants: []string{"a", "b"}},
		{name: "outside the window", pool: annotated(two, window, "0 22 * * 1-5 4h"), nodes: []NodeView{a, b},
			now: monday1200, reason: HoldMaintenanceWindow, msgSubstr: "next opens at 2025-01-06T22:00:00Z"},
		{name: "invalid window holds", pool: annotated(two, window, "every night"), nodes: []NodeView{a, b},
			now: monday2200, reason: HoldMaintenanceWindow, msgSubstr: "invalid maintenanceWindows"},
		{name: "pool hold", pool: annotated(two, hold, "change freeze"), nodes: []NodeView{a, b},
			now: monday2200, reason: HoldManual, msgSubstr: `"change freeze"`},
		{name: "node hold holds only that node", pool: two,
			nodes: []NodeView{with(a, func(n *NodeView) { n.Hold = "disk swap" }), b},
			now:   monday1200, grants: []string{"b"}, reason: HoldManual, msgSubstr: "holding a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Plan(c.pool, c.nodes, Facts{Now: c.now})
			if got := grantNames(r); !slices.Equal(got, c.grants) {
				t.Fatalf("grants = %v, want %v (holds %+v)", got, c.grants, r.Holds)
			}
			// Staging ignores windows and holds: every node may stage.
			want := []string{}
			for _, n := range c.nodes {
				if !slices.Contains(c.grants, n.Name) {
					want = append(want, n.Name)
				}
			}
			if got := stageNames(r); !slices.Equal(append([]string{}, got...), want) {
				t.Errorf("stages = %v, want %v", got, want)
			}
			held := cond(r.Status, constants.PoolDisruptionHeldCondition)
			if c.reason == "" {
				if held.Status != corev1.ConditionFalse {
					t.Errorf("DisruptionHeld = %s %s", held.Status, held.Message)
				}
				return
			}
			if held.Status != corev1.ConditionTrue || held.Reason != string(c.reason) || !strings.Contains(held.Message, c.msgSubstr) {
				t.Errorf("DisruptionHeld = %s/%s %q, want True/%s containing %q", held.Status, held.Reason, held.Message, c.reason, c.msgSubstr)
			}
		})
	}
}

// TestBreaker: K failures on the target halt the pool (no grant, no stage,
// staged-ahead nodes unstaged, RolloutHalted True), fewer do not, and the
// admin's resume annotation for this target lets it go on.
func TestBreaker(t *testing.T) {
	failed := func(n NodeView) NodeView {
		return with(n, func(n *NodeView) {
			n.Desired, n.Stage, n.Staged, n.State = newCfg, newCfg, newCfg, constants.MachineConfigDaemonStateDegraded
		})
	}
	three := pool("worker")
	three.MaxUnavailable = intOrStr("3")
	a, b, c, d := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2), doneNode("d", oldCfg, 3)
	k := constants.MaxFailedNodesAnnotation
	cases := []struct {
		name    string
		pool    PoolView
		nodes   []NodeView
		grants  []string
		unstage []string
		halted  bool
	}{
		{name: "default K=1: one failure halts", pool: three, nodes: []NodeView{failed(a), staged(b), c, d},
			unstage: []string{"b"}, halted: true},
		{name: "below K the rollout goes on", pool: annotated(three, k, "2"), nodes: []NodeView{failed(a), staged(b), c, d},
			grants: []string{"b", "c"}},
		{name: "K reached", pool: annotated(three, k, "2"), nodes: []NodeView{failed(a), failed(b), staged(c), d},
			unstage: []string{"c"}, halted: true},
		{name: "resumed for this target", pool: annotated(three, constants.ResumeRolloutAnnotation, newCfg),
			nodes: []NodeView{failed(a), staged(b), c, d}, grants: []string{"b", "c"}},
		{name: "a resume for another target does not count", pool: annotated(three, constants.ResumeRolloutAnnotation, oldCfg),
			nodes: []NodeView{failed(a), staged(b), c, d}, unstage: []string{"b"}, halted: true},
		{name: "invalid K falls back to 1", pool: annotated(three, k, "zero"), nodes: []NodeView{failed(a), b},
			halted: true},
		{name: "failure on an old config does not count (and the MCO retargets it)", pool: three,
			nodes: []NodeView{with(a, func(n *NodeView) {
				n.Desired, n.State = "rendered-worker-older", constants.MachineConfigDaemonStateDegraded
			}), b},
			grants: []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.pool, tc.nodes, Facts{Now: epoch})
			if got := grantNames(r); !slices.Equal(got, tc.grants) {
				t.Errorf("grants = %v, want %v", got, tc.grants)
			}
			if !slices.Equal(r.Unstage, tc.unstage) {
				t.Errorf("unstage = %v, want %v", r.Unstage, tc.unstage)
			}
			halted := cond(r.Status, constants.PoolRolloutHaltedCondition)
			if (halted.Status == corev1.ConditionTrue) != tc.halted {
				t.Errorf("RolloutHalted = %s %q, want halted=%v", halted.Status, halted.Message, tc.halted)
			}
			if tc.halted {
				if len(r.Stage) != 0 {
					t.Errorf("halted pool staged %v", stageNames(r))
				}
				if held := cond(r.Status, constants.PoolDisruptionHeldCondition); held.Reason != string(HoldCircuitBreaker) {
					t.Errorf("DisruptionHeld reason = %q", held.Reason)
				}
				if !slices.ContainsFunc(r.Events, func(e Event) bool { return e.Reason == EventRolloutHalted }) {
					t.Errorf("no %s event: %+v", EventRolloutHalted, r.Events)
				}
			}
		})
	}
}

// TestPoolAlert is the MCO's mcc_pool_alert rule (helpers.go
// GetPoolsForNode, release-4.20): 1 only for a node in master and one custom pool.
func TestPoolAlert(t *testing.T) {
	mk := func(name, role string) *mcfgv1.MachineConfigPool {
		return &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + role: ""}}}}
	}
	pools := []*mcfgv1.MachineConfigPool{mk("master", "master"), mk("worker", "worker"), mk("infra", "infra")}
	node := func(roles ...string) *corev1.Node {
		l := map[string]string{}
		for _, r := range roles {
			l[constants.NodeRoleLabelPrefix+r] = ""
		}
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: l}}
	}
	for roles, want := range map[string]float64{"master": 0, "master,worker": 0, "master,infra": 1, "worker,infra": 0, "infra": 0} {
		if got := PoolAlert(pools, node(strings.Split(roles, ",")...)); got != want {
			t.Errorf("roles %s: mcc_pool_alert = %v, want %v", roles, got, want)
		}
	}
}
