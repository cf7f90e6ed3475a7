package node

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// stageFailed gives n a stageFailure for cfg that began at since.
func stageFailed(n NodeView, cfg string, since time.Time) NodeView {
	f := constants.StageFailure{Config: cfg, Since: since, Reason: "pulling registry.test/os@sha256:1: 503 Service Unavailable", Attempts: 3}
	return with(n, func(n *NodeView) { n.StageFailure, n.StageFailed = f.Encode(), f })
}

// grantedStaging is a node granted the target that has not started on it:
// its daemon stages ahead of the disruption (state still Done).
func grantedStaging(n NodeView) NodeView {
	return with(n, func(n *NodeView) { n.Desired, n.Stage = newCfg, newCfg })
}

func revokedNames(r Result) []string {
	var out []string
	for _, rv := range r.Revocations {
		out = append(out, rv.Node)
	}
	return out
}

// TestPlanStageFailures: the hold and the revocation, as the
// StageFailureAnnotation's contract states them (pkg/constants): a node
// whose stage of a config failed is never granted that config, and gives
// back a grant it has not started on (not Working, no drain asked), which
// frees its place.
func TestPlanStageFailures(t *testing.T) {
	now := epoch.Add(time.Hour)
	recent := now.Add(-time.Minute) // within the breaker's default grace
	a, b, c := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2)
	aFailed := stageFailed(a, newCfg, recent)
	aGranted := stageFailed(grantedStaging(a), newCfg, recent)
	cases := []struct {
		name    string
		nodes   []NodeView
		grants  []string
		revoked []string
		holds   map[string]HoldReason
		events  []string
	}{
		{name: "3 nodes, maxUnavailable 1, a failed to stage the target: b is granted, a held",
			nodes: []NodeView{aFailed, b, c}, grants: []string{"b"},
			holds: map[string]HoldReason{"a": HoldStageFailed, "c": HoldMaxUnavailable}},
		{name: "a failed to stage another config: a is granted as usual",
			nodes: []NodeView{stageFailed(a, "rendered-worker-other", recent), b, c}, grants: []string{"a"},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable, "c": HoldMaxUnavailable}},
		{name: "an annotation that does not parse holds the node",
			nodes:  []NodeView{with(a, func(n *NodeView) { n.StageFailure, n.StageFailureErr = "{", "unexpected end of JSON input" }), b, c},
			grants: []string{"b"}, holds: map[string]HoldReason{"a": HoldStageFailed}},
		{name: "a granted, not started, stage failed: revoked, its place goes to b",
			nodes: []NodeView{aGranted, b, c}, grants: []string{"b"}, revoked: []string{"a"},
			holds: map[string]HoldReason{"a": HoldStageFailed, "c": HoldMaxUnavailable}, events: []string{EventGrantRevoked}},
		{name: "a granted and Working: keeps its grant and its place",
			nodes: []NodeView{with(aGranted, func(n *NodeView) { n.State = constants.MachineConfigDaemonStateWorking }), b, c},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable, "c": HoldMaxUnavailable}},
		{name: "a granted and its drain asked: keeps its grant",
			nodes: []NodeView{with(aGranted, func(n *NodeView) { n.DesiredDrain = constants.DrainRequest(newCfg) }), b, c},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable}},
		{name: "a granted, a drain asked for another config: revoked",
			nodes:  []NodeView{with(aGranted, func(n *NodeView) { n.DesiredDrain = constants.UncordonRequest(oldCfg) }), b, c},
			grants: []string{"b"}, revoked: []string{"a"}},
		{name: "a granted but cordoned (someone waits for its update): keeps its grant",
			nodes: []NodeView{with(aGranted, func(n *NodeView) { n.Unschedulable = true }), b, c},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable}},
		{name: "a granted, its failure names another config: keeps its grant",
			nodes: []NodeView{stageFailed(grantedStaging(a), "rendered-worker-other", recent), b, c},
			holds: map[string]HoldReason{"b": HoldMaxUnavailable}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(pool("worker"), tc.nodes, Facts{Now: now})
			if got := grantNames(r); !slices.Equal(got, tc.grants) {
				t.Errorf("grants = %v, want %v (holds %+v)", got, tc.grants, r.Holds)
			}
			if got := revokedNames(r); !slices.Equal(got, tc.revoked) {
				t.Errorf("revocations = %v, want %v", got, tc.revoked)
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
			if len(tc.revoked) == 0 && hasEvent(r, EventGrantRevoked) {
				t.Errorf("GrantRevoked without a revocation: %+v", r.Events)
			}
		})
	}
}

// TestRevocationCarriesWhatThePlanSaw: the revocation's write tests the
// values the plan decided on, verbatim.
func TestRevocationCarriesWhatThePlanSaw(t *testing.T) {
	n := stageFailed(grantedStaging(doneNode("a", oldCfg, 0)), newCfg, epoch)
	r := Plan(pool("worker"), []NodeView{n}, Facts{Now: epoch.Add(time.Minute)})
	want := []Revocation{{Node: "a", Config: newCfg, Current: oldCfg, StageFailure: n.StageFailure, State: constants.MachineConfigDaemonStateDone}}
	if !slices.Equal(r.Revocations, want) {
		t.Errorf("revocations = %+v, want %+v", r.Revocations, want)
	}
	if r.Unavailable != 0 || r.Capacity != 1 {
		// The node's place is free again (it is held for its stage, so no
		// one takes it in this one-node pool).
		t.Errorf("after the revocation: %d unavailable, capacity %d; want 0, 1", r.Unavailable, r.Capacity)
	}
}

// TestRevokedNodeIsAvailable: a node whose grant was given back (desired
// back at current, not cordoned, not Working, not Degraded) takes no place,
// stage failure or not.
func TestRevokedNodeIsAvailable(t *testing.T) {
	n := stageFailed(doneNode("a", oldCfg, 0), newCfg, epoch)
	n.Stage = newCfg
	if n.Unavailable() || PlacesUsed(newCfg, n) != 0 {
		t.Errorf("revoked node %+v: unavailable %v, places %d; want false, 0", n, n.Unavailable(), PlacesUsed(newCfg, n))
	}
}

// TestPausedPoolRevokesNothing: a paused pool's grants are not touched, not even given back.
func TestPausedPoolRevokesNothing(t *testing.T) {
	p := pool("worker")
	p.Paused = true
	r := Plan(p, []NodeView{stageFailed(grantedStaging(doneNode("a", oldCfg, 0)), newCfg, epoch)}, Facts{Now: epoch})
	if len(r.Revocations) != 0 {
		t.Errorf("paused pool revoked %+v", r.Revocations)
	}
}

// TestStagesFailedCondition: True with who failed to stage what and why,
// announced once when it becomes True and once when it clears.
func TestStagesFailedCondition(t *testing.T) {
	now := epoch.Add(time.Hour)
	long := "staging img: " + strings.Repeat("x", 500) + ": 503 Service Unavailable"
	nodes := []NodeView{
		stageFailed(doneNode("b", oldCfg, 1), newCfg, now),
		with(stageFailed(doneNode("a", oldCfg, 0), newCfg, now), func(n *NodeView) { n.StageFailed.Reason = long }),
		doneNode("c", oldCfg, 2), doneNode("d", oldCfg, 3), doneNode("e", oldCfg, 4),
	}
	r := Plan(pool("worker"), nodes, Facts{Now: now})
	c := FindCondition(r.Status.Conditions, PoolStagesFailedCondition)
	if c == nil || c.Status != corev1.ConditionTrue {
		t.Fatalf("StagesFailed = %+v, want True", c)
	}
	// The reason keeps its start (the step) and its end (the cause).
	prefix := "2 of 5 nodes failed to stage " + newCfg + ": staging img: "
	if !strings.HasPrefix(c.Message, prefix) || !strings.HasSuffix(c.Message, ": 503 Service Unavailable (a, b)") ||
		!strings.Contains(c.Message, "x…x") || len(c.Message) > len(prefix)+maxReasonLen+len(" (a, b)")+len("…") {
		t.Errorf("message %q: want the reason's start and its cause, elided to %d bytes", c.Message, maxReasonLen)
	}
	if !hasEvent(r, EventStagesFailed) {
		t.Errorf("no StagesFailed event: %+v", r.Events)
	}
	// Next plan, same failures: no new event.
	p := pool("worker")
	p.Status = *r.Status
	if r2 := Plan(p, nodes, Facts{Now: now.Add(time.Minute)}); hasEvent(r2, EventStagesFailed) {
		t.Errorf("StagesFailed announced again: %+v", r2.Events)
	}
	// Recovered.
	clean := []NodeView{doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1)}
	r3 := Plan(p, clean, Facts{Now: now.Add(2 * time.Minute)})
	c = FindCondition(r3.Status.Conditions, PoolStagesFailedCondition)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "AsExpected" {
		t.Errorf("StagesFailed after recovery = %+v, want False/AsExpected", c)
	}
	if !hasEvent(r3, EventStagesRecovered) {
		t.Errorf("no StagesRecovered event: %+v", r3.Events)
	}
}

// TestBreakerCountsLongStageFailures: a stage of the target failing for
// the grace counts as a failed node; it stops new grants but unstages
// nothing and makes nobody unavailable. Degraded nodes still unstage.
func TestBreakerCountsLongStageFailures(t *testing.T) {
	now := epoch.Add(time.Hour)
	p := pool("worker")
	p.MaxUnavailable = intOrStr("3")
	p.Annotations = map[string]string{constants.MaxFailedNodesAnnotation: "2"}
	old := now.Add(-DefaultFailedNodeGrace)
	fresh := now.Add(-DefaultFailedNodeGrace + time.Second)
	a := stageFailed(staged(doneNode("a", oldCfg, 0)), newCfg, old)
	a.Staged = ""
	b := stageFailed(doneNode("b", oldCfg, 1), newCfg, old)
	c := staged(doneNode("c", oldCfg, 2))
	d := doneNode("d", oldCfg, 3)
	degraded := with(doneNode("x", oldCfg, 4), func(n *NodeView) {
		n.Desired, n.State = newCfg, constants.MachineConfigDaemonStateDegraded
	})
	cases := []struct {
		name     string
		nodes    []NodeView
		failed   []string
		open     bool
		grants   []string
		unstaged []string
	}{
		{name: "two stage failures past the grace: open, nothing unstaged",
			nodes: []NodeView{a, b, c, d}, failed: []string{"a", "b"}, open: true},
		{name: "one past the grace, one not yet: closed, c and d granted",
			nodes: []NodeView{a, stageFailed(doneNode("b", oldCfg, 1), newCfg, fresh), c, d}, failed: []string{"a"},
			grants: []string{"c", "d"}},
		{name: "a failure of another config does not count",
			nodes: []NodeView{a, stageFailed(doneNode("b", oldCfg, 1), "rendered-worker-other", old), c, d}, failed: []string{"a"},
			grants: []string{"c", "b", "d"}},
		{name: "one stage failure and one Degraded node: open, still nothing unstaged",
			nodes: []NodeView{a, c, d, degraded}, failed: []string{"x", "a"}, open: true},
		{name: "two Degraded nodes: open and the staged nodes are unstaged, as before",
			nodes:  []NodeView{a, c, d, degraded, with(degraded, func(n *NodeView) { n.Name = "y" })},
			failed: []string{"x", "y", "a"}, open: true, unstaged: []string{"a", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(p, tc.nodes, Facts{Now: now})
			if !slices.Equal(r.Breaker.Failed, tc.failed) || r.Breaker.Open != tc.open {
				t.Errorf("breaker failed %v open %v, want %v %v", r.Breaker.Failed, r.Breaker.Open, tc.failed, tc.open)
			}
			if got := grantNames(r); !slices.Equal(got, tc.grants) {
				t.Errorf("grants = %v, want %v (holds %+v)", got, tc.grants, r.Holds)
			}
			if !slices.Equal(r.Unstage, tc.unstaged) {
				t.Errorf("unstaged %v, want %v", r.Unstage, tc.unstaged)
			}
			for _, n := range tc.nodes {
				if n.StageFailure != "" && n.Desired == n.Current && n.Unavailable() {
					t.Errorf("node %s with a failed stage counts as unavailable", n.Name)
				}
			}
		})
	}
}

// TestViewOfNodeReadsStageFailure: the annotation is kept verbatim for the
// revocation's test, parsed for the plan, and a value that does not parse
// is kept with its error (it holds the node), never dropped.
func TestViewOfNodeReadsStageFailure(t *testing.T) {
	f := constants.StageFailure{Config: newCfg, Since: epoch, Reason: "boom", Attempts: 2}
	node := func(ann map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a", Annotations: ann}}
	}
	v := ViewOfNode(node(map[string]string{constants.StageFailureAnnotation: f.Encode(), constants.DesiredDrainAnnotation: "drain-x"}))
	if v.StageFailure != f.Encode() || v.StageFailed != f || v.StageFailureErr != "" || v.DesiredDrain != "drain-x" {
		t.Errorf("view %+v", v)
	}
	v = ViewOfNode(node(map[string]string{constants.StageFailureAnnotation: "not json"}))
	if v.StageFailure != "not json" || v.StageFailureErr == "" || !v.stageFailedFor(newCfg) {
		t.Errorf("unparsable value: %+v", v)
	}
	v = ViewOfNode(node(map[string]string{constants.StageFailureAnnotation: ""}))
	if v.StageFailure != "" || v.stageFailedFor(newCfg) {
		t.Errorf("empty value: %+v", v)
	}
}

// revokeWriter records revocations and refuses the nodes in refuse (a
// failed test op).
type revokeWriter struct {
	recordingWriter
	refuse  map[string]bool
	revoked []string
}

func (w *revokeWriter) RevokeGrant(_ context.Context, r Revocation) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.order = append(w.order, r.Node+"/revoke")
	if w.refuse[r.Node] {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Node"}, r.Node, nil)
	}
	w.revoked = append(w.revoked, r.Node)
	return nil
}

// TestAdmitPoolRevokesBeforeGranting: the revocation is written before the
// grant whose place it frees; a refused one (the node moved on, it may be
// disrupting now) stops the grants of that sync, after every revocation
// was tried.
func TestAdmitPoolRevokesBeforeGranting(t *testing.T) {
	now := epoch.Add(time.Hour)
	failure := constants.StageFailure{Config: newCfg, Since: now.Add(-time.Minute), Reason: "503", Attempts: 1}.Encode()
	grantedFailed := func(name string) *corev1.Node {
		n := cachedNode(name, oldCfg)
		n.Annotations[constants.DesiredConfigAnnotation] = newCfg
		n.Annotations[constants.StageFailureAnnotation] = failure
		return n
	}
	p := pool("worker")
	p.MaxUnavailable = intOrStr("2")
	list := func() ([]*corev1.Node, error) {
		return []*corev1.Node{grantedFailed("a"), grantedFailed("b"), cachedNode("c", oldCfg), cachedNode("d", oldCfg)}, nil
	}

	w := &revokeWriter{}
	adm := NewAdmission()
	r, _, err := AdmitPool(context.Background(), adm, p, list, Facts{Now: now}, w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.order[:2], []string{"a/revoke", "b/revoke"}) || !slices.Contains(w.order, "c/"+constants.DesiredConfigAnnotation) {
		t.Errorf("writes %v: want the revocations first, then c's grant", w.order)
	}
	if got := grantNames(r); !slices.Equal(got, []string{"c", "d"}) {
		t.Errorf("grants %v, want [c d]: both places freed", got)
	}
	if v := ViewOfNode(adm.Node(grantedFailed("a"), now)); v.Desired != oldCfg {
		t.Errorf("the overlay shows a's desiredConfig %s, want %s back", v.Desired, oldCfg)
	}

	w = &revokeWriter{refuse: map[string]bool{"a": true}}
	_, _, err = AdmitPool(context.Background(), NewAdmission(), p, list, Facts{Now: now}, w)
	if err == nil || !apierrors.IsInvalid(errors.Unwrap(err)) {
		t.Errorf("refused revocation: err %v, want the refusal", err)
	}
	if !slices.Equal(w.order, []string{"a/revoke", "b/revoke"}) {
		t.Errorf("writes %v: want both revocations tried and no grant", w.order)
	}
}
