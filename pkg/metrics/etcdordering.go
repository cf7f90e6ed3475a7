package metrics

import "github.com/prometheus/client_golang/prometheus"

// EtcdOrdering holds the controller's etcd configuration metrics: whether
// control-plane disruptions are ordered by etcd leadership, and the reloads
// of the etcd client from the cluster's objects (pkg/etcddiscovery).
type EtcdOrdering struct {
	// On is 1 while ordering is on, 0 while it is off; one series at a
	// time, labelled with where etcd's configuration comes from ("flags",
	// "openshift") and the EtcdLeaderOrdering condition's reason.
	On *prometheus.GaugeVec
	// Reloads counts reads of the etcd objects that changed something, by
	// result: "reloaded" (a new client), "invalid" (kept the last valid
	// configuration, or none), "error" (the objects could not be read).
	Reloads *prometheus.CounterVec
}

// NewEtcdOrdering creates the metrics and registers them on reg.
func NewEtcdOrdering(reg prometheus.Registerer) *EtcdOrdering {
	const sub = "mcc"
	m := &EtcdOrdering{
		On: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: sub,
			Name: "etcd_leader_ordering", Help: "1 while control-plane disruptions are ordered by etcd leadership, 0 while they are not; by configuration source and reason."},
			[]string{"source", "reason"}),
		Reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub,
			Name: "etcd_discovery_changes_total", Help: "Changes seen in the cluster's etcd objects, by result (reloaded, invalid, error)."},
			[]string{"result"}),
	}
	reg.MustRegister(m.On, m.Reloads)
	return m
}

// Set makes the one series of On say on or off.
func (m *EtcdOrdering) Set(source, reason string, on bool) {
	m.On.Reset()
	v := 0.0
	if on {
		v = 1
	}
	m.On.WithLabelValues(source, reason).Set(v)
}
