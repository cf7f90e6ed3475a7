package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// KubeletHealth polls the kubelet's healthz endpoint like the MCO daemon's
// kubelet health monitor (openshift/machine-config-operator release-4.20,
// pkg/daemon/daemon.go runKubeletHealthzMonitor: every 30 s, a 30 s
// timeout, the count of consecutive failures in mcd_kubelet_state, reset by
// a good answer). The MCO's KubeletHealthState alert fires above 2.
type KubeletHealth struct {
	URL      string
	Interval time.Duration // default 30s
	Timeout  time.Duration // default 30s
	Failures prometheus.Gauge
	Client   *http.Client // default: a plain client
}

// Run polls until ctx ends.
func (k KubeletHealth) Run(ctx context.Context) {
	if k.Interval <= 0 {
		k.Interval = 30 * time.Second
	}
	if k.Timeout <= 0 {
		k.Timeout = 30 * time.Second
	}
	if k.Client == nil {
		k.Client = &http.Client{}
	}
	failures := 0
	k.Failures.Set(0)
	t := time.NewTicker(k.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := k.check(ctx); err != nil {
			failures++
			klog.FromContext(ctx).Info("kubelet health check failed", "failures", failures, "err", err)
		} else {
			failures = 0
		}
		k.Failures.Set(float64(failures))
	}
}

// check is one probe. Like the MCO, only a failed request counts: an
// answer other than "ok" is logged, not counted.
func (k KubeletHealth) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, k.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.URL, nil)
	if err != nil {
		return err
	}
	resp, err := k.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return fmt.Errorf("reading %s: %w", k.URL, err)
	}
	if strings.TrimSpace(string(b)) != "ok" {
		klog.FromContext(ctx).Info("kubelet healthz did not say ok", "url", k.URL, "status", resp.Status, "body", string(b))
	}
	return nil
}
