package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestKubeletHealthCountsConsecutiveFailures: failures count up while the
// endpoint is gone, and one good answer resets the count (the MCO's rule).
func TestKubeletHealthCountsConsecutiveFailures(t *testing.T) {
	var up atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close() // a kubelet that is down: the request fails
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcd_kubelet_state"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go KubeletHealth{URL: srv.URL, Interval: 5 * time.Millisecond, Timeout: time.Second, Failures: g}.Run(ctx)

	waitGauge := func(cond func(float64) bool, what string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if cond(testutil.ToFloat64(g)) {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("mcd_kubelet_state never %s; last %v", what, testutil.ToFloat64(g))
	}
	waitGauge(func(v float64) bool { return v >= 3 }, "reached 3 failures")
	up.Store(true)
	waitGauge(func(v float64) bool { return v == 0 }, "reset to 0 after a good answer")
}
