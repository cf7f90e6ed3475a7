//go:build integration

package daemon_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/daemon/kube"
	"github.com/tandem-mco/tandem/test/framework"
)

// requestTally counts the client's MachineConfig requests by kind: a GET of
// one config, a list, a watch.
type requestTally struct {
	mu     sync.Mutex
	counts map[string]int
	next   http.RoundTripper
}

func (r *requestTally) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.Contains(req.URL.Path, "/machineconfigs") {
		kind := "list"
		switch {
		case req.URL.Query().Get("watch") == "true":
			kind = "watch"
		case !strings.HasSuffix(req.URL.Path, "/machineconfigs"):
			kind = "get"
		}
		r.mu.Lock()
		r.counts[kind]++
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

func (r *requestTally) get(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[kind]
}

// TestConfigsComeFromWatches: with WatchConfigs, the daemon's adapter reads
// a config the node names once (a list and a watch), not at every step, and
// still sees it edited, deleted, or created after it was first asked for.
// Without WatchConfigs every read is a GET (make bench-scale counted about 40
// per node per rollout).
func TestConfigsComeFromWatches(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "configwatch"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mcs := cp.MCO.MachineconfigurationV1().MachineConfigs()
	if _, err := mcs.Create(ctx, &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	tally := &requestTally{counts: map[string]int{}}
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { tally.next = rt; return tally }
	client, err := mcfgclientset.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &kube.Client{Kube: cp.Kube, MCO: client, NodeName: "configwatch"}
	c.WatchConfigs(ctx)

	const steps = 20
	for range steps {
		mc, err := c.MachineConfig(ctx, "rendered-worker-a")
		if err != nil || mc == nil || mc.Name != "rendered-worker-a" {
			t.Fatalf("MachineConfig(rendered-worker-a) = %v, %v", mc, err)
		}
	}
	if g, l := tally.get("get"), tally.get("list"); g != 0 || l != 1 {
		t.Errorf("%d reads of one config: %d GETs and %d lists, want 0 and 1 (the watch's)", steps, g, l)
	}

	// An edit reaches the daemon through the watch.
	mc, err := mcs.Get(ctx, "rendered-worker-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc.Labels = map[string]string{"edited": "yes"}
	if _, err := mcs.Update(ctx, mc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConfig(ctx, t, c, "rendered-worker-a", "the edit", func(mc *mcfgv1.MachineConfig) bool {
		return mc != nil && mc.Labels["edited"] == "yes"
	})

	// A config first asked for before it exists is found once created.
	if mc, err := c.MachineConfig(ctx, "rendered-worker-b"); err != nil || mc != nil {
		t.Fatalf("MachineConfig(rendered-worker-b) before it exists = %v, %v; want nil, nil", mc, err)
	}
	if _, err := mcs.Create(ctx, &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if mc, err := c.MachineConfig(ctx, "rendered-worker-b"); err != nil || mc == nil {
		t.Fatalf("MachineConfig(rendered-worker-b) just created = %v, %v", mc, err)
	}

	// A deletion too.
	if err := mcs.Delete(ctx, "rendered-worker-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConfig(ctx, t, c, "rendered-worker-a", "the deletion", func(mc *mcfgv1.MachineConfig) bool { return mc == nil })
}

// waitConfig reads name until ok, at most a minute.
func waitConfig(ctx context.Context, t *testing.T, c *kube.Client, name, what string, ok func(*mcfgv1.MachineConfig) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var last *mcfgv1.MachineConfig
	for time.Now().Before(deadline) {
		mc, err := c.MachineConfig(ctx, name)
		if err != nil {
			t.Fatalf("MachineConfig(%s): %v", name, err)
		}
		if ok(mc) {
			return
		}
		last = mc
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("MachineConfig(%s) did not show %s within a minute; last read %+v", name, what, last)
}
