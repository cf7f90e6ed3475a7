//go:build integration

package drain_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/test/framework"
)

// writeCounter counts the write requests a client sends, by kind of object.
type writeCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int // "nodes", "events", ...
}

func (c *writeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet {
		kind := "other"
		switch {
		case strings.Contains(r.URL.Path, "/events"):
			kind = "events"
		case strings.Contains(r.URL.Path, "/nodes/"):
			kind = "nodes"
		}
		c.mu.Lock()
		c.n[kind]++
		c.mu.Unlock()
	}
	return c.next.RoundTrip(r)
}

func (c *writeCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.n
	c.n = map[string]int{}
	return out
}

// TestDrainCycleWrites: make bench-scale (issue 14) counts every write of a
// rollout. A drain cycle of a node without pods to evict writes the node
// twice (the cordon with its record, then the acknowledgement) and the
// uncordon once (with its acknowledgement); it was five writes (record,
// cordon, acknowledgement; uncordon, acknowledgement). A cycle that goes
// well makes one event, Drained (it made four: Drain, Cordon, Drained,
// Uncordon); the MCO's drain controller reports failures only.
func TestDrainCycleWrites(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "drain-writes"})
	counter := &writeCounter{n: map[string]int{}}
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := drain.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cp.Kube, 0)
	ctrl, err := drain.NewController(kube, factory.Core().V1().Nodes(), drain.Options{Metrics: metrics})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	defer func() { stop(); <-done }()
	factory.Start(runCtx.Done())
	go func() { done <- ctrl.Run(runCtx, 2) }()

	w := world{t: t, cp: cp}
	if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, framework.KwokNode("node-w", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNode := func(what string, cond func(n *corev1.Node) bool) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, time.Minute)
		defer wcancel()
		w.waitFor(wctx, what, func() (bool, string) {
			n := w.node(ctx, "node-w")
			return cond(n), describeDrain(n)
		})
	}
	// Events are sent in the background: let them go out before counting.
	settle := func() map[string]int { time.Sleep(2 * time.Second); return counter.take() }

	req := constants.DrainRequest(config)
	w.annotate(ctx, "node-w", map[string]*string{constants.DesiredDrainAnnotation: &req})
	waitNode("drain acknowledged", func(n *corev1.Node) bool {
		return n.Spec.Unschedulable && n.Annotations[constants.LastAppliedDrainAnnotation] == req
	})
	if got := settle(); got["nodes"] != 2 || got["events"] != 1 || got["other"] != 0 {
		t.Errorf("drain wrote %v, want nodes=2 (cordon with its record, acknowledgement) events=1 (Drained)", got)
	}

	unc := constants.UncordonRequest(config)
	w.annotate(ctx, "node-w", map[string]*string{constants.DesiredDrainAnnotation: &unc})
	waitNode("uncordon acknowledged", func(n *corev1.Node) bool {
		return !n.Spec.Unschedulable && n.Annotations[constants.LastAppliedDrainAnnotation] == unc
	})
	if got := settle(); got["nodes"] != 1 || got["events"] != 0 || got["other"] != 0 {
		t.Errorf("uncordon wrote %v, want nodes=1 (uncordon with its acknowledgement) and no event", got)
	}
	if _, ok := w.node(ctx, "node-w").Annotations[constants.CordonedByAdminAnnotation]; ok {
		t.Errorf("cordon record left after the cycle")
	}
}

func describeDrain(n *corev1.Node) string {
	return "unschedulable=" + map[bool]string{true: "true", false: "false"}[n.Spec.Unschedulable] +
		" desiredDrain=" + n.Annotations[constants.DesiredDrainAnnotation] +
		" lastAppliedDrain=" + n.Annotations[constants.LastAppliedDrainAnnotation]
}
