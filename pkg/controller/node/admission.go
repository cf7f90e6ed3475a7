package node

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Admission serializes the decisions that admit disruption in one cluster.
// In a tenant cluster two deciders share a pool's maxUnavailable: the node
// planner (desiredConfig grants) and the HostMaintenance controller (holds
// that cordon a node, reboots coalesced with an update). Each reads nodes
// from the informer cache, which lags behind writes, so deciding side by
// side both could take the pool's last place.
//
// Whoever admits disruption holds the lock from reading the nodes to the end
// of its writes, reads the nodes through Node, and records each write it
// made (Expect*) before unlocking: the next decider, under the lock, then
// sees every admission made so far, whether or not its cache shows it yet.
// The decisions themselves (Plan, the DPU controller's DecideTenant) stay
// pure; only the adapters around them lock.
//
// The zero value is not usable; make one with NewAdmission and hand the same
// one to every decider of the cluster.
type Admission struct {
	mu     sync.Mutex
	expect *expectations
	// views keeps each node object's NodeView, by node name (see View).
	viewsMu sync.Mutex
	views   map[string]cachedView
}

type cachedView struct {
	obj  *corev1.Node
	view NodeView
}

// NewAdmission returns an Admission whose unobserved writes are forgotten
// after a minute (a write the cache never shows, e.g. overwritten at once).
func NewAdmission() *Admission {
	return &Admission{expect: newExpectations(time.Minute), views: map[string]cachedView{}}
}

// View is ViewOfNode(a.Node(n, now)). A plan views every node of its pool,
// and viewing each again at every plan was half of a plan's CPU at a
// thousand nodes (make bench-scale, --controller-profile). Informer
// objects are never changed in place (a change is a new object), so the
// view of an object the overlay leaves alone is kept until the informer
// replaces it; an overlaid node is viewed afresh.
func (a *Admission) View(n *corev1.Node, now time.Time) NodeView {
	o := a.expect.overlayNode(n, now)
	if o != n {
		return ViewOfNode(o)
	}
	a.viewsMu.Lock()
	defer a.viewsMu.Unlock()
	if c, ok := a.views[n.Name]; ok && c.obj == n {
		return c.view
	}
	v := ViewOfNode(n)
	a.views[n.Name] = cachedView{obj: n, view: v}
	return v
}

// Lock is taken before reading the nodes a decision admits disruption on.
func (a *Admission) Lock() { a.mu.Lock() }

// Unlock is called once the decision's writes are made and recorded.
func (a *Admission) Unlock() { a.mu.Unlock() }

// Node returns n as the recorded, not yet observed writes leave it (n itself
// when none applies, otherwise a shallow copy with its own annotations:
// read-only, as n is). Read nodes through it under the lock.
func (a *Admission) Node(n *corev1.Node, now time.Time) *corev1.Node {
	return a.expect.overlayNode(n, now)
}

// ExpectAnnotation records that annotation key was set to value on node.
func (a *Admission) ExpectAnnotation(node, key, value string, now time.Time) {
	a.expect.expect(node, key, value, now)
}

// expectUndoable records an annotation write about to be made, and returns
// what takes the record back if the write is refused.
func (a *Admission) expectUndoable(node, key, value string, now time.Time) func() {
	return a.expect.expectUndoable(node, key, value, now)
}

// ExpectAnnotationRemoved records that annotation key was removed from node.
func (a *Admission) ExpectAnnotationRemoved(node, key string, now time.Time) {
	a.expect.expectRemoved(node, key, now)
}

// ExpectCordon records that node's spec.unschedulable was set.
func (a *Admission) ExpectCordon(node string, unschedulable bool, now time.Time) {
	a.expect.expectCordon(node, unschedulable, now)
}

// Forget drops what was recorded for node (it was deleted).
func (a *Admission) Forget(node string) {
	a.expect.forget(node)
	a.viewsMu.Lock()
	delete(a.views, node)
	a.viewsMu.Unlock()
}
