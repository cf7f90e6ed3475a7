package node

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// fakePrometheus speaks the Prometheus HTTP API's instant query endpoint
// (GET/POST /api/v1/query, the JSON envelope and vector result format of
// the Prometheus v3 HTTP API documentation) for the ALERTS series, the way
// Prometheus exposes alert state (labels alertname and alertstate).
type fakePrometheus struct {
	mu     sync.Mutex
	alerts map[string]string // alertname -> alertstate
	fail   bool
	asked  []string
}

func (f *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	_ = r.ParseForm()
	f.asked = append(f.asked, r.Form.Get("query"))
	w.Header().Set("Content-Type", "application/json")
	if f.fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"error","errorType":"unavailable","error":"tsdb not ready"}`))
		return
	}
	type sample struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	result := []sample{}
	if r.Form.Get("query") == "ALERTS" {
		for name, state := range f.alerts {
			result = append(result, sample{Metric: map[string]string{"__name__": "ALERTS", "alertname": name, "alertstate": state, "severity": "warning"},
				Value: [2]any{float64(time.Now().Unix()), "1"}})
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
}

func TestAlertGateAgainstThePrometheusAPI(t *testing.T) {
	prom := &fakePrometheus{alerts: map[string]string{}}
	srv := httptest.NewServer(prom)
	defer srv.Close()
	client, err := api.NewClient(api.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	papi := promv1.NewAPI(client)
	ctx := context.Background()
	now := time.Now()
	clock := func() time.Time { return now }

	check := func(g *AlertGate, wantOK bool, wantMsg string) {
		t.Helper()
		ok, why := g.MayDisrupt(pool("worker"), doneNode("a", oldCfg, 0))
		if ok != wantOK || !strings.Contains(why, wantMsg) {
			t.Fatalf("MayDisrupt = %v %q, want %v containing %q", ok, why, wantOK, wantMsg)
		}
	}
	g := &AlertGate{URL: srv.URL, Now: clock}
	check(g, false, "not been asked")
	g.Refresh(ctx, papi)
	check(g, true, "")

	prom.alerts["KubePodCrashLooping"] = "firing"
	prom.alerts["Watchdog"] = "firing"
	prom.alerts["NodeFilesystemAlmostFull"] = "pending"
	g.Refresh(ctx, papi)
	check(g, false, "3 active alert(s): KubePodCrashLooping, NodeFilesystemAlmostFull, Watchdog")

	// kured's --alert-filter-regexp ignores matching alerts; firing-only
	// ignores pending ones.
	f := &AlertGate{URL: srv.URL, Now: clock, Filter: regexp.MustCompile("^(Watchdog|KubePodCrashLooping)$"), FiringOnly: true}
	f.Refresh(ctx, papi)
	check(f, true, "")
	// --alert-filter-match-only: only matching alerts block.
	m := &AlertGate{URL: srv.URL, Now: clock, Filter: regexp.MustCompile("^Kube"), FilterMatchOnly: true}
	m.Refresh(ctx, papi)
	check(m, false, "1 active alert(s): KubePodCrashLooping")

	prom.fail = true
	g.Refresh(ctx, papi)
	check(g, false, "query failed")
	prom.fail = false
	prom.alerts = map[string]string{}
	g.Refresh(ctx, papi)
	check(g, true, "")
	now = now.Add(5 * time.Minute) // no fresh answer since
	check(g, false, "older than")
	for _, q := range prom.asked {
		if q != "ALERTS" {
			t.Fatalf("the gate asked %q, want ALERTS (as kured)", q)
		}
	}
}

// TestAlertGateAuthenticates: a Prometheus behind a bearer token and TLS
// (OpenShift's thanos-querier) answers only a gate given the token file and
// the CA; without them the gate holds, saying why.
func TestAlertGateAuthenticates(t *testing.T) {
	prom := &fakePrometheus{alerts: map[string]string{"KubeNodeNotReady": "firing"}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sa-token-1" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		prom.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	tokenFile, caFile := filepath.Join(dir, "token"), filepath.Join(dir, "service-ca.crt")
	if err := os.WriteFile(tokenFile, []byte("sa-token-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	ask := func(tokenFile, caFile string) (bool, string) {
		t.Helper()
		rt, err := PrometheusTransport(tokenFile, caFile)
		if err != nil {
			t.Fatal(err)
		}
		g := &AlertGate{URL: srv.URL, RoundTripper: rt}
		papi, err := g.API()
		if err != nil {
			t.Fatal(err)
		}
		g.Refresh(context.Background(), papi)
		return g.MayDisrupt(pool("worker"), doneNode("a", oldCfg, 0))
	}
	if ok, why := ask(tokenFile, caFile); ok || !strings.Contains(why, "1 active alert(s): KubeNodeNotReady") {
		t.Errorf("with token and CA: %v %q, want the alert", ok, why)
	}
	if ok, why := ask("", caFile); ok || !strings.Contains(why, "query failed") {
		t.Errorf("without the token: %v %q, want a failed query", ok, why)
	}
	if ok, why := ask(tokenFile, ""); ok || !strings.Contains(why, "certificate") {
		t.Errorf("without the CA: %v %q, want a TLS failure", ok, why)
	}
	if _, err := PrometheusTransport(tokenFile, filepath.Join(dir, "missing.crt")); err == nil {
		t.Error("a missing CA file was accepted")
	}
}

func TestBlockingPodsKuredSemantics(t *testing.T) {
	pod := func(name string, phase corev1.PodPhase, lbl map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: lbl}, Status: corev1.PodStatus{Phase: phase}}
	}
	sels := []labels.Selector{labels.SelectorFromSet(labels.Set{"app": "db"}), labels.SelectorFromSet(labels.Set{"batch": "nightly"})}
	pods := []*corev1.Pod{
		pod("db-0", corev1.PodRunning, map[string]string{"app": "db"}),
		pod("db-pending", corev1.PodPending, map[string]string{"app": "db"}),
		pod("db-done", corev1.PodSucceeded, map[string]string{"app": "db"}),
		pod("db-failed", corev1.PodFailed, map[string]string{"app": "db"}),
		pod("db-unknown", corev1.PodUnknown, map[string]string{"app": "db"}),
		pod("job", corev1.PodRunning, map[string]string{"batch": "nightly"}),
		pod("web", corev1.PodRunning, map[string]string{"app": "web"}),
	}
	got := fmt.Sprint(BlockingPods(sels, pods))
	if want := "[ns/db-0 ns/db-pending ns/job]"; got != want {
		t.Fatalf("blocking pods = %s, want %s", got, want)
	}
	if got := BlockingPods(sels, pods[2:5]); len(got) != 0 {
		t.Fatalf("finished pods block: %v", got)
	}
}
