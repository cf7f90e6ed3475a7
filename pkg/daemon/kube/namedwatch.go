package kube

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// namedWatches keeps a few objects of one kind, each by name, current from a
// watch of its own (field selector metadata.name=<name>). The daemon reads
// its node's MachineConfigs at every step; a rendered config never changes
// under its name, so re-reading it is a full Ignition config sent again for
// nothing (make bench-scale: about 40 reads per node per rollout). A watch
// per name costs one list and one watch when the node first names a config,
// and sees an edit or a deletion as any informer does, unlike a cache that
// trusts the name.
//
// The least recently read watch stops when more than max are open, so a
// daemon never watches more than the configs it has lately named.
type namedWatches struct {
	ctx     context.Context // bounds every watch: the daemon's run
	newLW   func(name string) cache.ListerWatcher
	objType runtime.Object
	max     int
	// syncWait bounds the wait for a new watch's first list; past it the
	// caller reads the object directly.
	syncWait time.Duration

	mu     sync.Mutex
	tick   uint64
	byName map[string]*namedWatch
}

type namedWatch struct {
	store  cache.Store
	synced cache.InformerSynced
	stop   context.CancelFunc
	used   uint64
}

func newNamedWatches(ctx context.Context, objType runtime.Object, limit int, newLW func(name string) cache.ListerWatcher) *namedWatches {
	return &namedWatches{ctx: ctx, newLW: newLW, objType: objType, max: limit, syncWait: 30 * time.Second, byName: map[string]*namedWatch{}}
}

// get returns the named object as its watch last saw it (shared: callers
// must not modify it). ok is false when the caller must read it itself: the
// watch has not listed yet within syncWait, or it does not hold the object
// (a config created a moment ago may not have reached the apiserver's watch
// cache; an absent object is read where it is authoritative).
func (n *namedWatches) get(ctx context.Context, name string) (obj any, ok bool) {
	w := n.watch(name)
	if !w.synced() {
		wctx, cancel := context.WithTimeout(ctx, n.syncWait)
		synced := cache.WaitForCacheSync(wctx.Done(), w.synced)
		cancel()
		if !synced {
			return nil, false
		}
	}
	obj, exists, err := w.store.GetByKey(name)
	if err != nil || !exists {
		return nil, false
	}
	return obj, true
}

// watch returns name's watch, starting it (and stopping the least recently
// read one beyond max) when there is none.
func (n *namedWatches) watch(name string) *namedWatch {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tick++
	if w := n.byName[name]; w != nil {
		w.used = n.tick
		return w
	}
	for len(n.byName) >= n.max {
		oldest := ""
		for k, w := range n.byName {
			if oldest == "" || w.used < n.byName[oldest].used {
				oldest = k
			}
		}
		n.byName[oldest].stop()
		delete(n.byName, oldest)
	}
	wctx, stop := context.WithCancel(n.ctx)
	store, inf := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: n.newLW(name),
		ObjectType:    n.objType,
		Handler:       cache.ResourceEventHandlerFuncs{},
	})
	go inf.RunWithContext(wctx)
	w := &namedWatch{store: store, synced: inf.HasSynced, stop: stop, used: n.tick}
	n.byName[name] = w
	return w
}

// open is the number of watches running (for tests).
func (n *namedWatches) open() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.byName)
}
