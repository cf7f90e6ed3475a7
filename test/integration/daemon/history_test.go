//go:build integration

package daemon_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// history records every version of a few objects of different kinds,
// from watches, with their resourceVersion. The test apiserver keeps all
// of them in one etcd, whose revisions order every write of every kind
// (the resourceVersion is that revision): so the state of object B when A
// was written is B's last version with a lower resourceVersion. A judge can
// then ask what the node looked like when its MachineConfigNode was
// written, without racing the two watches.
type history struct {
	mu       sync.Mutex
	versions []version
	errs     []error
}

// version is one recorded version.
type version struct {
	rv   uint64
	kind string
	obj  runtime.Object
}

// record watches what lw lists and watches, named kind, until ctx ends.
func (h *history) record(t testing.TB, kind string, lw cache.ListerWatcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := lw.List(metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("listing %s: %v", kind, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	for _, o := range items {
		h.add(kind, o)
	}
	rv, err := meta.NewAccessor().ResourceVersion(list)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.follow(ctx, kind, lw, rv)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// follow watches from resourceVersion rv until ctx ends, watching again
// from the last version seen when the apiserver ends a watch.
func (h *history) follow(ctx context.Context, kind string, lw cache.ListerWatcher, rv string) {
	for ctx.Err() == nil {
		w, err := lw.Watch(metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			h.fail(fmt.Errorf("watching %s from %s: %w", kind, rv, err))
			return
		}
		var failed bool
		rv, failed = h.drain(ctx, kind, w, rv)
		w.Stop()
		if failed {
			return
		}
	}
}

// drain records w's events until it ends; it returns the last version
// seen, and whether the watch failed (recorded as an error).
func (h *history) drain(ctx context.Context, kind string, w watch.Interface, rv string) (string, bool) {
	for {
		select {
		case <-ctx.Done():
			return rv, false
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, false
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				h.add(kind, ev.Object)
			case watch.Error:
				h.fail(fmt.Errorf("watch of %s: %v", kind, apierrors.FromObject(ev.Object)))
				return rv, true
			}
			if m, err := meta.Accessor(ev.Object); err == nil && m.GetResourceVersion() != "" {
				rv = m.GetResourceVersion()
			}
		}
	}
}

func (h *history) add(kind string, o runtime.Object) {
	m, err := meta.Accessor(o)
	if err != nil {
		h.fail(err)
		return
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		h.fail(fmt.Errorf("%s %s: resourceVersion %q is not an etcd revision: %w", kind, m.GetName(), m.GetResourceVersion(), err))
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.versions = append(h.versions, version{rv: rv, kind: kind, obj: o.DeepCopyObject()})
}

func (h *history) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs = append(h.errs, err)
}

// seen reports whether a version of kind at rv or later was recorded.
func (h *history) seen(kind string, rv uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range h.versions {
		if v.kind == kind && v.rv >= rv {
			return true
		}
	}
	return false
}

// catchUp waits until every kind's watch delivered the object's current
// version (getRV reads it from the apiserver).
func (h *history) catchUp(t testing.TB, kinds map[string]func() (uint64, error)) {
	t.Helper()
	for kind, get := range kinds {
		rv, err := get()
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for !h.seen(kind, rv) {
			if time.Now().After(deadline) {
				t.Fatalf("the %s watch did not deliver resourceVersion %d within a minute", kind, rv)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// timeline returns the versions in write order, and the watch errors.
func (h *history) timeline() ([]version, []error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	vs := slices.Clone(h.versions)
	slices.SortStableFunc(vs, func(a, b version) int {
		switch {
		case a.rv < b.rv:
			return -1
		case a.rv > b.rv:
			return 1
		}
		return 0
	})
	return slices.CompactFunc(vs, func(a, b version) bool { return a.rv == b.rv && a.kind == b.kind }), slices.Clone(h.errs)
}
