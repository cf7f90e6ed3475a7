package kube

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// The watch's node is used only once it shows the last version the daemon
// knew from the apiserver (its write's answer or its GET), whichever of the
// event and the answer comes first.
func TestOwnNodeServesOnlyWhatShowsTheLastWrite(t *testing.T) {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	var o ownNode
	node := func(rv, state string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: rv,
			Annotations: map[string]string{"state": state}}}
	}
	// deliver is the informer: the store first, then the handler.
	deliver := func(n *corev1.Node) {
		if err := store.Update(n); err != nil {
			t.Fatal(err)
		}
		o.delivered(n)
	}
	serves := func(step, wantState string) {
		t.Helper()
		n, ok := o.await(context.Background(), "n", 0)
		switch {
		case wantState == "" && ok:
			t.Fatalf("%s: served %s from the watch, want a GET", step, n.Annotations["state"])
		case wantState != "" && !ok:
			t.Fatalf("%s: not served from the watch, want %s", step, wantState)
		case ok && n.Annotations["state"] != wantState:
			t.Fatalf("%s: served %s, want %s", step, n.Annotations["state"], wantState)
		}
	}

	serves("no watch", "")
	o.watching(store)
	deliver(node("5", "a"))
	serves("listed, nothing known from the apiserver yet (a start)", "")
	o.known(node("5", "a")) // the start's GET
	serves("the GET's version was listed", "a")

	o.known(node("7", "b")) // a write, answered before its event
	serves("a write not in the watch yet", "")
	deliver(node("6", "someone else's, before the write"))
	serves("an older event", "")
	deliver(node("7", "b"))
	serves("the write's event", "b")
	deliver(node("8", "c"))
	serves("a later event", "c")

	deliver(node("9", "d")) // the event comes before the write's answer
	o.known(node("9", "d"))
	serves("the write's event came first", "d")

	o.known(nil) // a failed write: applied or not, only the apiserver knows
	serves("after a failed write", "")
	deliver(node("10", "e"))
	serves("an event after a failed write", "")
	o.known(node("10", "e")) // the GET that follows
	serves("the GET after a failed write", "e")

	// A write's event that comes while Node waits for it.
	o.known(node("11", "f"))
	go func() {
		time.Sleep(10 * time.Millisecond)
		_ = store.Update(node("11", "f"))
		o.delivered(node("11", "f"))
	}()
	if n, ok := o.await(context.Background(), "n", time.Minute); !ok || n.Annotations["state"] != "f" {
		t.Fatalf("waiting for the write's event: served %v (%v), want f", n, ok)
	}

	o.watching(nil)
	serves("the watch stopped", "")
}
