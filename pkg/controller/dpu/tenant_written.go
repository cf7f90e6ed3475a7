package dpu

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// writtenStatuses remembers the requests whose status this controller
// wrote, as the apiserver answered the write, until the informer shows that
// version. A decision made on an older status would redo what the request
// already did: a Reboot request the informer still shows Rebooting, while
// the write that completed it also released its node, made the next
// decision hold the node again (TestTenantHostMaintenance under make test's
// load: "Completed, but the node is not released"). The node side of the
// same race is the admission's overlay; this is the requests' side.
//
// An answer is dropped once the informer delivers its resourceVersion (a
// watch delivers one object's versions in order, so later ones follow it),
// when the request is deleted, or after ttl (a relist may skip it).
type writtenStatuses struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[types.UID]writtenStatus
}

type writtenStatus struct {
	obj *dpuv1.HostMaintenance
	at  time.Time
}

func newWrittenStatuses(ttl time.Duration) *writtenStatuses {
	return &writtenStatuses{ttl: ttl, m: map[types.UID]writtenStatus{}}
}

// wrote records the apiserver's answer to a status write.
func (w *writtenStatuses) wrote(obj *dpuv1.HostMaintenance, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.m[obj.UID] = writtenStatus{obj: obj, at: now}
}

// delivered is the informer's add or update: a delivery of the written
// version ends the need for it.
func (w *writtenStatuses) delivered(obj any) {
	hm, ok := obj.(*dpuv1.HostMaintenance)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if x, ok := w.m[hm.UID]; ok && x.obj.ResourceVersion == hm.ResourceVersion {
		delete(w.m, hm.UID)
	}
}

// deleted forgets a deleted request.
func (w *writtenStatuses) deleted(obj any) {
	hm, ok := requestOf(obj)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, hm.UID)
}

// current returns the request as of this controller's last status write
// when the informer does not show that write yet, else cached itself.
func (w *writtenStatuses) current(cached *dpuv1.HostMaintenance, now time.Time) *dpuv1.HostMaintenance {
	w.mu.Lock()
	defer w.mu.Unlock()
	x, ok := w.m[cached.UID]
	switch {
	case !ok:
		return cached
	case x.obj.ResourceVersion == cached.ResourceVersion || now.Sub(x.at) > w.ttl:
		delete(w.m, cached.UID)
		return cached
	}
	return x.obj
}

// requestOf returns the request an informer event carries (a tombstone's
// too).
func requestOf(obj any) (*dpuv1.HostMaintenance, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	hm, ok := obj.(*dpuv1.HostMaintenance)
	return hm, ok
}
