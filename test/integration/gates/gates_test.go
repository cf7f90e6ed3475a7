//go:build integration

// Package gates runs the node controller, wired as
// cmd/machine-config-controller wires it, against a real kube-apiserver,
// and checks each disruption gate end to end: the grant waits, staging does
// not, and the pool's DisruptionHeld condition names the hold; and the
// admin's update-order, which orders the grants and keeps nodes out.
package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// prometheus answers instant queries of ALERTS like the Prometheus HTTP API.
type prometheus struct {
	mu     sync.Mutex
	firing []string
}

func (p *prometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = r.ParseForm()
	result := []map[string]any{}
	if r.URL.Path == "/api/v1/query" && r.Form.Get("query") == "ALERTS" {
		for _, a := range p.firing {
			result = append(result, map[string]any{"metric": map[string]string{"__name__": "ALERTS", "alertname": a, "alertstate": "firing"},
				"value": []any{float64(time.Now().Unix()), "1"}})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
}

func (p *prometheus) set(alerts ...string) { p.mu.Lock(); p.firing = alerts; p.mu.Unlock() }

func TestGatesHoldGrantsNotStages(t *testing.T) {
	w := newPoolWorld(t, "gates", []string{"w1", "w2"}, nil, 2,
		map[string]string{constants.DisruptionHoldAnnotation: "change freeze until Monday"})
	ctx, cp := w.ctx, w.cp
	// The namespace of a pod the blocking-pod selector will match.
	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "db"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	prom := &prometheus{}
	prom.set("KubeNodeNotReady")
	srv := httptest.NewServer(prom)
	t.Cleanup(srv.Close)

	blocking, err := node.NewBlockingPodGate([]string{"app=db"}, w.kubeInf.Core().V1().Pods())
	if err != nil {
		t.Fatal(err)
	}
	alerts := &node.AlertGate{URL: srv.URL, Interval: 200 * time.Millisecond}
	w.start(blocking, alerts)
	w.goRun(func(ctx context.Context) { _ = alerts.Run(ctx) })
	state, patchPool := w.state, func(a map[string]any) { t.Helper(); w.patch("", a) }

	// Staging goes ahead under every hold; only desiredConfig waits.
	state("manual hold", string(node.HoldManual), "change freeze until Monday",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	// A window that opens once a year, an hour from now at the earliest.
	closed := time.Now().UTC().Add(-2 * time.Hour)
	patchPool(map[string]any{constants.DisruptionHoldAnnotation: nil,
		constants.MaintenanceWindowsAnnotation: fmt.Sprintf("%d %d %d %d * 30m", closed.Minute(), closed.Hour(), closed.Day(), int(closed.Month()))})
	state("maintenance window", string(node.HoldMaintenanceWindow), "outside the maintenance windows",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	patchPool(map[string]any{constants.MaintenanceWindowsAnnotation: nil})
	state("firing alert", string(node.HoldFiringAlerts), "KubeNodeNotReady",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "db-0", Labels: map[string]string{"app": "db"}},
		Spec: corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "db", Image: "db"}}}}
	if _, err := cp.Kube.CoreV1().Pods("db").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	prom.set()
	state("blocking pod", string(node.HoldBlockingPods), "db/db-0",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgB}})
	// kured's rule: a finished pod does not block.
	pod, err = cp.Kube.CoreV1().Pods("db").Get(ctx, "db-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodSucceeded
	if _, err := cp.Kube.CoreV1().Pods("db").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	state("no hold", "", "", map[string][2]string{"w1": {cfgB, cfgB}, "w2": {cfgB, cfgB}})
}
