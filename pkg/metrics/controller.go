package metrics

import "github.com/prometheus/client_golang/prometheus"

// Namespace prefixes every tandem metric.
const Namespace = "tandem"

// Controller holds the node controller's metrics. Drain failures are the
// drain controller's own (pkg/controller/drain Metrics:
// mcc_drain_attempt_failures_total, mcc_drain_err).
type Controller struct {
	// Grants counts desiredConfig grants (permissions to disrupt), per pool.
	Grants *prometheus.CounterVec
	// StageGrants counts stageConfig permissions, per pool.
	StageGrants *prometheus.CounterVec
	// LeaderMoves counts etcd MoveLeader calls by result (ok, error).
	LeaderMoves *prometheus.CounterVec
	// NodesByPhase is the number of a pool's nodes in each rollout phase
	// (Updated, Pending, Staging, Staged, Updating, Degraded).
	NodesByPhase *prometheus.GaugeVec
	// HeldNodes is the number of nodes held back, per pool and hold reason.
	HeldNodes *prometheus.GaugeVec
	// PoolUpdatingSeconds is how long the pool's current update has run (0
	// when it is not updating).
	PoolUpdatingSeconds *prometheus.GaugeVec
	// PoolUpdateDuration observes the time from Updating=True to the end of
	// the update, per pool.
	PoolUpdateDuration *prometheus.HistogramVec
	// DisruptionHeldSeconds is how long the pool's DisruptionHeld condition
	// has been True, by its reason; no series while it is False.
	DisruptionHeldSeconds *prometheus.GaugeVec
	// BreakerOpen is 1 while the pool's circuit breaker stops its rollout.
	BreakerOpen *prometheus.GaugeVec
	// FailedNodes is the number of the pool's nodes failing on its target.
	FailedNodes *prometheus.GaugeVec
	// MCO holds the stock controller's mcc_* series the node controller owns.
	MCO MCOController
}

// NewController creates the controller metrics and registers them on reg.
func NewController(reg prometheus.Registerer) *Controller {
	const sub = "mcc"
	m := &Controller{
		Grants: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub,
			Name: "grants_total", Help: "desiredConfig grants (permissions to disrupt a node), per pool."}, []string{"pool"}),
		StageGrants: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub,
			Name: "stage_grants_total", Help: "stageConfig permissions (stage without disruption), per pool."}, []string{"pool"}),
		LeaderMoves: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub,
			Name: "etcd_leader_moves_total", Help: "etcd MoveLeader calls before a leader's update, by result."}, []string{"pool", "result"}),
		NodesByPhase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "pool_nodes", Help: "Nodes of a pool per rollout phase."}, []string{"pool", "phase"}),
		HeldNodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "held_nodes", Help: "Nodes that want a grant and are held back, per reason."}, []string{"pool", "reason"}),
		PoolUpdatingSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "pool_updating_seconds", Help: "How long the pool's current update has been running; 0 when not updating."}, []string{"pool"}),
		PoolUpdateDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: sub,
			Name: "pool_update_duration_seconds", Help: "Time a pool spent updating, from Updating=True to all nodes updated.",
			Buckets: prometheus.ExponentialBuckets(30, 2, 12)}, []string{"pool"}),
		DisruptionHeldSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "disruption_held_seconds", Help: "How long the pool's DisruptionHeld condition has been True, by reason."}, []string{"pool", "reason"}),
		BreakerOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "pool_breaker_open", Help: "1 while the pool's circuit breaker stops its rollout after too many failed nodes."}, []string{"pool"}),
		FailedNodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "pool_failed_nodes", Help: "Nodes of the pool whose daemon failed on the pool's target config."}, []string{"pool"}),
		MCO: newMCOController(),
	}
	reg.MustRegister(m.Grants, m.StageGrants, m.LeaderMoves, m.NodesByPhase, m.HeldNodes,
		m.PoolUpdatingSeconds, m.PoolUpdateDuration, m.DisruptionHeldSeconds, m.BreakerOpen, m.FailedNodes)
	reg.MustRegister(m.MCO.collectors()...)
	return m
}
