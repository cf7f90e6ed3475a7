package metrics

import "github.com/prometheus/client_golang/prometheus"

// Plan holds the node controller's planning cost. It is apart from
// Controller so that the planner's own timing can be added or left out
// without touching the rollout metrics.
type Plan struct {
	// Duration observes one pool's decision, per pool: reading the pool's
	// nodes from the informer cache, building their views and node.Plan,
	// everything the cluster's admission lock is held for before the first
	// write. make bench-scale reads its p99.
	Duration *prometheus.HistogramVec
}

// NewPlan creates the planning metrics and registers them on reg.
func NewPlan(reg prometheus.Registerer) *Plan {
	m := &Plan{
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "mcc",
			Name: "plan_duration_seconds",
			Help: "Time to decide one pool's plan: list its nodes from the cache, build their views and plan, per pool.",
			// Fine around the 50 ms goal of issue 14, up to seconds.
			Buckets: []float64{.0005, .001, .0025, .005, .01, .02, .03, .04, .05, .075, .1, .25, .5, 1, 2.5, 5}},
			[]string{"pool"}),
	}
	reg.MustRegister(m.Duration)
	return m
}
