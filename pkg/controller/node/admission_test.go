package node

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// cachedNode is a node as a stale informer cache shows it: done on cfg,
// schedulable and Ready.
func cachedNode(name, cfg string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			constants.CurrentConfigAnnotation: cfg,
			constants.DesiredConfigAnnotation: cfg,
			constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
		}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// planThrough plans pool over the cached nodes as the admission shows them.
func planThrough(a *Admission, p PoolView, now time.Time, cached ...*corev1.Node) Result {
	var views []NodeView
	for _, n := range cached {
		views = append(views, ViewOfNode(a.Node(n, now)))
	}
	return Plan(p, views, Facts{Now: now})
}

// The race of the e2e: the HostMaintenance controller cordoned worker-0 (a
// hold) and the planner, whose cache does not show the cordon yet, plans the
// pool next. Through the shared admission it sees the hold take the pool's
// only place; without it, it would grant a second node.
func TestAdmissionPlannerSeesAnotherDecidersHold(t *testing.T) {
	p := pool("worker")
	p.MaxUnavailable = intOrStr("1")
	cached := []*corev1.Node{cachedNode("worker-0", oldCfg), cachedNode("worker-1", oldCfg)}

	if r := planThrough(NewAdmission(), p, epoch, cached...); len(r.Grant) != 1 {
		t.Fatalf("without a hold the planner grants one node, got %v", grantNames(r))
	}

	a := NewAdmission()
	a.ExpectCordon("worker-0", true, epoch)
	a.ExpectAnnotation("worker-0", constants.MaintenanceCordonAnnotation, "false", epoch)
	r := planThrough(a, p, epoch.Add(time.Second), cached...)
	if len(r.Grant) != 0 || r.Unavailable != 1 {
		t.Fatalf("planner granted %v with %d unavailable; the unobserved hold on worker-0 takes the only place", grantNames(r), r.Unavailable)
	}
	if cached[0].Spec.Unschedulable || cached[0].Annotations[constants.MaintenanceCordonAnnotation] != "" {
		t.Fatalf("the overlay modified the cached node")
	}
}

// The other direction: the planner granted worker-1; the HostMaintenance
// controller reads it through the admission before its cache shows it.
func TestAdmissionShowsGrantBeforeTheCache(t *testing.T) {
	a := NewAdmission()
	a.ExpectAnnotation("worker-1", constants.DesiredConfigAnnotation, newCfg, epoch)
	got := ViewOfNode(a.Node(cachedNode("worker-1", oldCfg), epoch.Add(time.Second)))
	if got.Desired != newCfg || !got.Unavailable() {
		t.Fatalf("grant not visible through the admission: %+v", got)
	}
}

func TestExpectationsCordonAndRemoval(t *testing.T) {
	e := newExpectations(time.Minute)
	n := cachedNode("a", oldCfg)
	n.Annotations[constants.MaintenanceCordonAnnotation] = "false"
	n.Spec.Unschedulable = true

	// A release: annotation removed and uncordoned, the cache not there yet.
	e.expectRemoved("a", constants.MaintenanceCordonAnnotation, epoch)
	e.expectCordon("a", false, epoch)
	got := e.overlayNode(n, epoch.Add(time.Second))
	if _, held := got.Annotations[constants.MaintenanceCordonAnnotation]; held || got.Spec.Unschedulable {
		t.Fatalf("release not overlaid: unschedulable=%v annotations=%v", got.Spec.Unschedulable, got.Annotations)
	}
	if got == n || !n.Spec.Unschedulable {
		t.Fatalf("overlay must copy, not modify, the cached node")
	}

	// The cache catches up: both expectations are observed and dropped, so
	// a later (say, a person's) cordon shows as it is.
	seen := cachedNode("a", oldCfg)
	if e.overlayNode(seen, epoch.Add(2*time.Second)) != seen {
		t.Fatalf("observed node should come back unchanged")
	}
	recordon := cachedNode("a", oldCfg)
	recordon.Spec.Unschedulable = true
	if got := e.overlayNode(recordon, epoch.Add(3*time.Second)); !got.Spec.Unschedulable {
		t.Fatalf("an observed expectation still overrides the cache")
	}

	// Expired expectations stop applying.
	e.expectCordon("b", true, epoch)
	if got := e.overlayNode(cachedNode("b", oldCfg), epoch.Add(2*time.Minute)); got.Spec.Unschedulable {
		t.Fatalf("expired cordon expectation applied")
	}
}

// View is ViewOfNode of what Node returns: an object's view is kept until
// the informer replaces the object, and an overlaid node is viewed afresh.
func TestAdmissionViewFollowsObjectsAndOverlay(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	adm := NewAdmission()
	a := cachedNode("a", oldCfg)
	check := func(step string, n *corev1.Node, wantDesired string) {
		t.Helper()
		got, want := adm.View(n, now), ViewOfNode(adm.Node(n, now))
		if !reflect.DeepEqual(got, want) || got.Desired != wantDesired {
			t.Fatalf("%s: View = %+v, want %+v (desired %s)", step, got, want, wantDesired)
		}
	}
	check("first", a, oldCfg)
	check("again", a, oldCfg)
	adm.ExpectAnnotation("a", constants.DesiredConfigAnnotation, newCfg, now)
	check("a grant the cache does not show yet", a, newCfg)
	a2 := cachedNode("a", newCfg) // the informer shows the grant
	check("the informer's new object", a2, newCfg)
	adm.Forget("a")
	check("forgotten", a, oldCfg)
}
