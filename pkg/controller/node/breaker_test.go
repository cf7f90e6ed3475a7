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

// TestBreakerGrace: a node counts as failed once its Degraded condition
// (the MachineConfigNode's NodeDegraded, since its lastTransitionTime) has
// held for the pool's grace, default 5 minutes. Written from the rule, not
// from EvaluateBreaker: a blip (shorter) opens nothing and unstages
// nothing; a failure (as long or longer) halts the pool and unstages the
// nodes staged ahead.
func TestBreakerGrace(t *testing.T) {
	now := epoch.Add(time.Hour)
	onTarget := func(state string) func(*NodeView) {
		return func(n *NodeView) { n.Desired, n.Stage, n.Staged, n.State = newCfg, newCfg, newCfg, state }
	}
	degradedNode := with(doneNode("a", oldCfg, 0), onTarget(constants.MachineConfigDaemonStateDegraded))
	retrying := with(doneNode("a", oldCfg, 0), onTarget(constants.MachineConfigDaemonStateWorking))
	b := staged(doneNode("b", oldCfg, 1))
	p := pool("worker")
	p.MaxUnavailable = intOrStr("2")
	grace := constants.FailedNodeGraceAnnotation
	since := func(ago time.Duration) DegradedConditions {
		return DegradedConditions{"a": {True: true, Since: now.Add(-ago)}, "b": {}}
	}
	cases := []struct {
		name     string
		pool     PoolView
		a        NodeView
		degraded DegradedConditions
		failed   []string
		pending  []string
		invalid  string // substring of the warning; "" for none
	}{
		{name: "Degraded for 1m of the default 5m: a blip", pool: p, a: degradedNode, degraded: since(time.Minute),
			pending: []string{"a"}},
		{name: "Degraded for 4m59s: still a blip", pool: p, a: degradedNode, degraded: since(5*time.Minute - time.Second),
			pending: []string{"a"}},
		{name: "Degraded for the default 5m: failed", pool: p, a: degradedNode, degraded: since(5 * time.Minute),
			failed: []string{"a"}},
		{name: "retrying (state Working) but Degraded for 6m: failed", pool: p, a: retrying, degraded: since(6 * time.Minute),
			failed: []string{"a"}},
		{name: "the pool's grace of 30s: 31s is a failure", pool: annotated(p, grace, "30s"), a: degradedNode,
			degraded: since(31 * time.Second), failed: []string{"a"}},
		{name: "the pool's grace of 1h: 10m is a blip", pool: annotated(p, grace, "1h"), a: degradedNode,
			degraded: since(10 * time.Minute), pending: []string{"a"}},
		{name: "grace 0s: at once", pool: annotated(p, grace, "0s"), a: degradedNode, degraded: since(0),
			failed: []string{"a"}},
		{name: "the daemon says Degraded, its MachineConfigNode not yet: pending", pool: p, a: degradedNode,
			degraded: DegradedConditions{"a": {}}, pending: []string{"a"}},
		{name: "no MachineConfigNode for the node: nothing tells since when, at once", pool: p, a: degradedNode,
			degraded: DegradedConditions{"b": {}}, failed: []string{"a"}},
		{name: "MachineConfigNodes not read: at once", pool: p, a: degradedNode, failed: []string{"a"}},
		{name: "the node runs the target: a stale condition counts for nothing", pool: p,
			a: with(updatedNode("a", 0), func(n *NodeView) { n.State = constants.MachineConfigDaemonStateDone }), degraded: since(time.Hour)},
		{name: "Degraded on an older config: not this target's failure", pool: p,
			a: with(degradedNode, func(n *NodeView) { n.Desired = "rendered-worker-older" }), degraded: since(time.Hour)},
		{name: "a grace that is no duration: default, with a warning", pool: annotated(p, grace, "five minutes"), a: degradedNode,
			degraded: since(time.Minute), pending: []string{"a"},
			invalid: `machineconfiguration.openshift.io/failedNodeGrace="five minutes" is not a duration of 0 or more`},
		{name: "a negative grace: default, with a warning", pool: annotated(p, grace, "-1m"), a: degradedNode,
			degraded: since(5 * time.Minute), failed: []string{"a"}, invalid: `failedNodeGrace="-1m"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.pool, []NodeView{tc.a, b}, Facts{Now: now, Degraded: tc.degraded})
			if !slices.Equal(r.Breaker.Failed, tc.failed) || !slices.Equal(r.Breaker.Pending, tc.pending) {
				t.Errorf("failed %v pending %v, want %v %v", r.Breaker.Failed, r.Breaker.Pending, tc.failed, tc.pending)
			}
			halted := cond(r.Status, constants.PoolRolloutHaltedCondition)
			if open := len(tc.failed) > 0; open {
				// K=1: a failure halts the pool and unstages b, staged ahead.
				if halted.Status != corev1.ConditionTrue || !slices.Equal(r.Unstage, []string{"b"}) || len(r.Grant) > 0 {
					t.Errorf("a failure: RolloutHalted %s, unstage %v, grants %v; want halted, b unstaged, no grant",
						halted.Status, r.Unstage, grantNames(r))
				}
			} else {
				// A blip opens nothing and unstages nothing: b is granted.
				if halted.Status == corev1.ConditionTrue || len(r.Unstage) > 0 || !slices.Contains(grantNames(r), "b") {
					t.Errorf("a blip: RolloutHalted %s %q, unstage %v, grants %v; want not halted, nothing unstaged, b granted",
						halted.Status, halted.Message, r.Unstage, grantNames(r))
				}
				if len(tc.pending) > 0 && (halted.Reason != "FailurePending" || !strings.Contains(halted.Message, "counted as failed if it lasts")) {
					t.Errorf("pending failure not reported: RolloutHalted %s/%s %q", halted.Status, halted.Reason, halted.Message)
				}
			}
			warned := slices.ContainsFunc(r.Events, func(e Event) bool {
				return e.Reason == EventInvalidSetting && e.Type == corev1.EventTypeWarning && tc.invalid != "" && strings.Contains(e.Message, tc.invalid)
			})
			if (tc.invalid != "") != warned {
				t.Errorf("invalid-setting warning %v, want one saying %q: events %+v", warned, tc.invalid, r.Events)
			}
		})
	}
}

// TestDegradedConditionsOf reads each MachineConfigNode's NodeDegraded
// condition by the node it names.
func TestDegradedConditionsOf(t *testing.T) {
	at := metav1.NewTime(epoch)
	mcn := func(name, node string, conds ...metav1.Condition) *mcfgv1.MachineConfigNode {
		m := &mcfgv1.MachineConfigNode{ObjectMeta: metav1.ObjectMeta{Name: name}}
		m.Spec.Node.Name = node
		m.Status.Conditions = conds
		return m
	}
	deg := func(s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: string(mcfgv1.MachineConfigNodeNodeDegraded), Status: s, LastTransitionTime: at}
	}
	updated := metav1.Condition{Type: string(mcfgv1.MachineConfigNodeUpdated), Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(epoch.Add(time.Hour))}
	got := DegradedConditionsOf([]*mcfgv1.MachineConfigNode{
		mcn("a", "a", updated, deg(metav1.ConditionTrue)),
		mcn("b", "b", deg(metav1.ConditionFalse)),
		mcn("c", "", updated), // no spec.node: its own name
	})
	want := DegradedConditions{"a": {True: true, Since: epoch}, "b": {Since: epoch}, "c": {}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g.True != v.True || !g.Since.Equal(v.Since) {
			t.Errorf("%s: got %+v (present %v), want %+v", k, g, ok, v)
		}
	}
}
