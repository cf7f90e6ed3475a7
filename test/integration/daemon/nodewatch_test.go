//go:build integration

package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/daemon/kube"
	"github.com/tandem-mco/tandem/test/framework"
)

// nodeGets counts GETs of one node (not lists, not watches).
type nodeGets struct {
	path  string
	count atomic.Int64
	next  http.RoundTripper
}

func (g *nodeGets) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, g.path) && req.URL.Query().Get("watch") != "true" {
		g.count.Add(1)
	}
	return g.next.RoundTrip(req)
}

// TestNodeReadsComeFromTheWatch: with WatchNode running, the daemon's
// adapter answers Node from its watch once the watch shows the daemon's own
// last write, so every read shows that write and few reads reach the
// apiserver; another writer's change shows once its event arrives.
func TestNodeReadsComeFromTheWatch(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "nodewatch"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const name = "nodewatch-0"
	if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gets := &nodeGets{path: "/nodes/" + name}
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { gets.next = rt; return gets }
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &kube.Client{Kube: kc, MCO: cp.MCO, NodeName: name}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	wake := make(chan struct{}, 1)
	go c.WatchNode(wctx, wake)

	// The daemon's turn: write, then read at once; the read must show it.
	const steps = 40
	for i := range steps {
		v := fmt.Sprint(i)
		if err := c.SetAnnotations(ctx, map[string]string{"example.com/step": v}, nil); err != nil {
			t.Fatal(err)
		}
		n, err := c.Node(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Annotations["example.com/step"]; got != v {
			t.Fatalf("step %d: Node shows step %q right after the daemon wrote %q", i, got, v)
		}
	}
	got := gets.count.Load()
	t.Logf("node-watch: %d write-then-read turns, %d GETs", steps, got)
	if got > steps/4 {
		t.Errorf("%d of %d reads after a write went to the apiserver, want most from the watch", got, steps)
	}

	// Another writer's change: shown once its event has come (the wake).
	patch := []byte(`{"metadata":{"annotations":{"example.com/other":"yes"}}}`)
	if _, err := cp.Kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := c.Node(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n.Annotations["example.com/other"] == "yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("another writer's annotation not shown within a minute: %v", n.Annotations)
		}
		select {
		case <-wake:
		case <-time.After(time.Second):
		}
	}

	// Without the watch every read is a GET, and still shows the last write.
	stopWatch()
	time.Sleep(100 * time.Millisecond)
	before := gets.count.Load()
	if err := c.SetAnnotations(ctx, map[string]string{"example.com/step": "after"}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Node(ctx); err != nil || n.Annotations["example.com/step"] != "after" {
		t.Fatalf("without the watch: Node = %v, %v", n, err)
	}
	if gets.count.Load() != before+1 {
		t.Errorf("without the watch the read did not GET (GETs %d -> %d)", before, gets.count.Load())
	}
}
