package node

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/transport"
	"k8s.io/klog/v2"
)

// PrometheusTransport is the transport to a Prometheus behind
// authentication, as OpenShift's thanos-querier is: a bearer token read
// from tokenFile (re-read as it rotates, like a projected service account
// token) and TLS verified with caFile; either may be empty. It uses
// client-go's transport, which refreshes file tokens itself.
func PrometheusTransport(tokenFile, caFile string) (http.RoundTripper, error) {
	if tokenFile == "" && caFile == "" {
		return nil, nil
	}
	rt, err := transport.New(&transport.Config{BearerTokenFile: tokenFile, TLS: transport.TLSConfig{CAFile: caFile}})
	if err != nil {
		return nil, fmt.Errorf("prometheus transport (token file %q, CA file %q): %w", tokenFile, caFile, err)
	}
	return rt, nil
}

// AlertGate holds every disruption while Prometheus has active alerts, as
// kured's --prometheus-url does (kubereboot/kured 1.23.0,
// pkg/blockers/prometheus.go): it asks for the ALERTS series; an alert with
// a non-zero sample blocks when its name passes the filter (Filter matching
// means ignored; with FilterMatchOnly, only matching alerts block) and, with
// FiringOnly, when its alertstate is firing. A failed query blocks.
//
// The query runs in Run, off the planner's path; MayDisrupt reads the last
// answer. Before the first answer, and when the answer is older than
// MaxAge, it holds.
type AlertGate struct {
	URL             string
	Filter          *regexp.Regexp
	FilterMatchOnly bool
	FiringOnly      bool
	Interval        time.Duration // default 30s
	Timeout         time.Duration // default 10s
	MaxAge          time.Duration // default 3×Interval
	Now             func() time.Time
	// RoundTripper carries the queries; nil: plain HTTP(S) with the
	// system's roots. On OpenShift the cluster's Prometheus (thanos-querier)
	// wants a service account token and the service CA: see
	// PrometheusTransport.
	RoundTripper http.RoundTripper

	mu     sync.Mutex
	alerts []string
	err    error
	at     time.Time
}

func (g *AlertGate) Name() string           { return "PrometheusAlerts" }
func (g *AlertGate) HoldReason() HoldReason { return HoldFiringAlerts }

func (g *AlertGate) defaults() {
	if g.Interval <= 0 {
		g.Interval = 30 * time.Second
	}
	if g.Timeout <= 0 {
		g.Timeout = 10 * time.Second
	}
	if g.MaxAge <= 0 {
		g.MaxAge = 3 * g.Interval
	}
	if g.Now == nil {
		g.Now = time.Now
	}
}

// Run queries Prometheus every Interval until ctx ends.
func (g *AlertGate) Run(ctx context.Context) error {
	g.defaults()
	papi, err := g.API()
	if err != nil {
		return err
	}
	t := time.NewTicker(g.Interval)
	defer t.Stop()
	for {
		g.Refresh(ctx, papi)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// API is the Prometheus client the gate queries with (URL, RoundTripper).
func (g *AlertGate) API() (promv1.API, error) {
	client, err := api.NewClient(api.Config{Address: g.URL, RoundTripper: g.RoundTripper})
	if err != nil {
		return nil, fmt.Errorf("--prometheus-url %q: %w", g.URL, err)
	}
	return promv1.NewAPI(client), nil
}

// Refresh asks once and keeps the answer.
func (g *AlertGate) Refresh(ctx context.Context, papi promv1.API) {
	g.defaults()
	qctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()
	now := g.Now()
	value, _, _, err := papi.Query(qctx, "ALERTS", now)
	var alerts []string
	if err == nil {
		alerts, err = ActiveAlerts(value, g.Filter, g.FilterMatchOnly, g.FiringOnly)
	}
	if err != nil {
		klog.FromContext(ctx).Info("Prometheus alert query failed; disruption held", "url", g.URL, "err", err)
	}
	g.mu.Lock()
	g.alerts, g.err, g.at = alerts, err, now
	g.mu.Unlock()
}

func (g *AlertGate) MayDisrupt(PoolView, NodeView) (bool, string) {
	g.defaults()
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.at.IsZero():
		return false, "Prometheus has not been asked for alerts yet"
	case g.err != nil:
		return false, fmt.Sprintf("Prometheus alert query failed: %v", g.err)
	case g.Now().Sub(g.at) > g.MaxAge:
		return false, fmt.Sprintf("the last answer from Prometheus is older than %s", g.MaxAge)
	case len(g.alerts) > 0:
		return false, fmt.Sprintf("%d active alert(s): %s", len(g.alerts), nodeList(g.alerts))
	}
	return true, ""
}

// ActiveAlerts is kured's filter over an ALERTS query result: the sorted,
// distinct names of the alerts that block.
func ActiveAlerts(v model.Value, filter *regexp.Regexp, filterMatchOnly, firingOnly bool) ([]string, error) {
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %v", v.Type())
	}
	set := map[string]bool{}
	for _, s := range vec {
		name, isAlert := s.Metric[model.AlertNameLabel]
		if !isAlert || s.Value == 0 {
			continue
		}
		if filter != nil && filter.MatchString(string(name)) != filterMatchOnly {
			continue
		}
		if firingOnly && s.Metric["alertstate"] != "firing" {
			continue
		}
		set[string(name)] = true
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}
