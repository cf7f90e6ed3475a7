package kube

import (
	"context"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// listed is an in-memory ListerWatcher for one name: the config exists
// when present says so.
type listed struct {
	name    string
	present bool
}

func (l listed) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	list := &mcfgv1.MachineConfigList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	if l.present {
		list.Items = []mcfgv1.MachineConfig{{ObjectMeta: metav1.ObjectMeta{Name: l.name, ResourceVersion: "1"}}}
	}
	return list, nil
}

func (l listed) WatchWithContext(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFake()
	go func() {
		<-ctx.Done()
		w.Stop()
	}()
	return w, nil
}

func (l listed) List(o metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), o)
}

func (l listed) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), o)
}

// TestNamedWatchesKeepTheLatelyRead: a name's watch serves it; an absent
// object is for the caller to read; past the limit the least recently read
// watch is dropped, not the one just read.
func TestNamedWatchesKeepTheLatelyRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := newNamedWatches(ctx, &mcfgv1.MachineConfig{}, 2, func(name string) cache.ListerWatcher {
		return listed{name: name, present: name != "absent"}
	})

	if obj, ok := n.get(ctx, "a"); !ok || obj.(*mcfgv1.MachineConfig).Name != "a" {
		t.Fatalf("get(a) = %v, %v", obj, ok)
	}
	if _, ok := n.get(ctx, "absent"); ok {
		t.Fatal("get(absent) served from the watch; want the caller to read it")
	}
	if _, ok := n.get(ctx, "a"); !ok { // a is now the most recently read
		t.Fatal("get(a) again: not served")
	}
	if _, ok := n.get(ctx, "b"); !ok {
		t.Fatal("get(b): not served")
	}
	if got := n.open(); got != 2 {
		t.Errorf("%d watches open, want the limit 2", got)
	}
	n.mu.Lock()
	_, hasA := n.byName["a"]
	_, hasAbsent := n.byName["absent"]
	n.mu.Unlock()
	if !hasA || hasAbsent {
		t.Errorf("open watches: a=%v absent=%v; want a kept (read last but one) and absent dropped", hasA, hasAbsent)
	}
}
