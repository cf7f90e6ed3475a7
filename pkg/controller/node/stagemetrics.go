package node

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tandem-mco/tandem/pkg/metrics"
)

// StageMetrics are the node controller's series about failed stages. They
// live beside the planner rather than in pkg/metrics.Controller so that the
// series and the decisions they count change together; the alert
// TandemStagesFailing reads the gauge.
type StageMetrics struct {
	// StageFailedNodes is the number of the pool's nodes that report a
	// failed stage (the stageFailure annotation), of any config.
	StageFailedNodes *prometheus.GaugeVec
	// RevokedGrants counts grants given back because the node's stage
	// failed before it started on the config.
	RevokedGrants *prometheus.CounterVec
}

// NewStageMetrics creates the stage metrics and registers them on reg.
func NewStageMetrics(reg prometheus.Registerer) *StageMetrics {
	const sub = "mcc"
	m := &StageMetrics{
		StageFailedNodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "pool_stage_failed_nodes",
			Help: "Nodes of the pool whose background stage of a config failed and is being retried (not Degraded: they keep serving)."},
			[]string{"pool"}),
		RevokedGrants: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: sub,
			Name: "revoked_grants_total",
			Help: "desiredConfig grants given back because the node's stage of the config failed before it started, per pool."},
			[]string{"pool"}),
	}
	reg.MustRegister(m.StageFailedNodes, m.RevokedGrants)
	return m
}

func (m *StageMetrics) record(pool string, views []NodeView, r Result) {
	if m == nil {
		return
	}
	m.StageFailedNodes.WithLabelValues(pool).Set(float64(StageFailedNodes(views)))
	m.RevokedGrants.WithLabelValues(pool).Add(float64(len(r.Revocations)))
}

func (m *StageMetrics) forget(pool string) {
	if m == nil {
		return
	}
	m.StageFailedNodes.DeletePartialMatch(map[string]string{"pool": pool})
	m.RevokedGrants.DeletePartialMatch(map[string]string{"pool": pool})
}
