package drain

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the drain controller's Prometheus metrics.
type Metrics struct {
	// DrainErr is the MCO's mcc_drain_err{node}: 1 while a node's drain has
	// failed for longer than the drain timeout; removed when it succeeds.
	// Stock alerts (MCCDrainError) fire on it.
	DrainErr *prometheus.GaugeVec
	// AttemptFailures counts failed drain attempts per node.
	AttemptFailures *prometheus.CounterVec
	// Duration observes how long drains took, from the first attempt to the
	// last eviction, in seconds.
	Duration prometheus.Histogram
}

// NewMetrics builds the metrics and registers them with reg (nil: not
// registered, as in tests that read them directly).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		DrainErr: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mcc_drain_err",
			Help: "1 while the drain of a node has been failing for longer than the drain timeout.",
		}, []string{"node"}),
		AttemptFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcc_drain_attempt_failures_total",
			Help: "Failed drain attempts (a PodDisruptionBudget that does not allow an eviction, a pod that does not go in time, an API error).",
		}, []string{"node"}),
		Duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mcc_drain_duration_seconds",
			Help:    "Time from the first attempt of a drain to its success.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14), // 1s .. ~2.3h
		}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.DrainErr, m.AttemptFailures, m.Duration} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering drain metrics: %w", err)
		}
	}
	return m, nil
}
