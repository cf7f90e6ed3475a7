package kube

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// ownNode lets Node answer from the node's watch instead of a GET once the
// watch has caught up with what the daemon last knew from the apiserver:
// the answer to its last write, or its last GET. The daemon must decide on
// a node that shows its own last write (or it would make the write again);
// it need not see others' writes made a moment ago, since each of those
// wakes it once its watch event arrives, and a GET a moment earlier would
// have missed them too. At a thousand nodes the GET per turn was most of
// the daemons' requests (make bench-scale: 24 node reads per node and
// rollout).
//
// The watch delivers one object's versions in order, so once the event of
// a known resourceVersion has passed, the watch's object is at least that
// version. Node waits for that a moment (echoWait); after a failed write
// (it may have been applied) and when the daemon starts, it reads the
// apiserver, and that read is the next version to wait for.
type ownNode struct {
	mu    sync.Mutex
	store cache.Store // the watch's; nil: no watch
	// anchor is the resourceVersion last known from the apiserver (a
	// write's answer or a GET); fresh: the watch has delivered it.
	anchor string
	fresh  bool
	// recent are the resourceVersions the watch delivered lately, for an
	// answer that arrives after its event.
	recent []string
	// delivery is closed (and replaced) at each delivery.
	delivery chan struct{}
}

// echoWait bounds how long Node waits for the watch to show a version the
// daemon knows of (its write's event usually comes within milliseconds)
// before it reads the apiserver instead.
const echoWait = 250 * time.Millisecond

// recentKept bounds ownNode.recent.
const recentKept = 16

// watching wires the watch's store (nil: the watch stopped). Whether the
// watch has listed is not asked: a delivery of the known version is what
// makes its store usable (and HasSynced takes the watch queue's lock, which
// is held while delivered runs).
func (o *ownNode) watching(store cache.Store) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.store, o.fresh = store, false
	o.recent = nil
}

// delivered records an object the watch delivered (every event, status
// heartbeats included).
func (o *ownNode) delivered(obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if n.ResourceVersion == o.anchor {
		o.fresh = true
	}
	if o.delivery != nil {
		close(o.delivery)
		o.delivery = nil
	}
	o.recent = append(o.recent, n.ResourceVersion)
	if len(o.recent) > recentKept {
		o.recent = o.recent[len(o.recent)-recentKept:]
	}
}

// known records the node as the apiserver answered a write or a read; nil
// after a failed write, which may or may not have been applied.
func (o *ownNode) known(n *corev1.Node) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n == nil {
		o.anchor, o.fresh = "", false
		return
	}
	o.anchor = n.ResourceVersion
	o.fresh = slices.Contains(o.recent, n.ResourceVersion) // its event came first
}

// await returns a copy of the watch's node once it is at least the last
// version known from the apiserver, waiting at most wait for that (not at
// all when no version is known: after a failed write, or at the start).
func (o *ownNode) await(ctx context.Context, name string, wait time.Duration) (*corev1.Node, bool) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		n, ok, waitFor := o.current(name)
		if ok || waitFor == nil {
			return n, ok
		}
		select {
		case <-waitFor:
		case <-deadline.C:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// current returns a copy of the watch's node when it is at least the last
// version known from the apiserver; otherwise, when a delivery may make it
// so, a channel closed at the next delivery.
func (o *ownNode) current(name string) (*corev1.Node, bool, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.store == nil {
		return nil, false, nil
	}
	if !o.fresh {
		if o.anchor == "" {
			return nil, false, nil
		}
		if o.delivery == nil {
			o.delivery = make(chan struct{})
		}
		return nil, false, o.delivery
	}
	obj, ok, err := o.store.GetByKey(name)
	if err != nil || !ok {
		return nil, false, nil
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, false, nil
	}
	return n.DeepCopy(), true, nil
}
