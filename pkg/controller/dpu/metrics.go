package dpu

import (
	"github.com/prometheus/client_golang/prometheus"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

const subsystem = "dpu"

// tenantMetrics are the tenant controller's metrics.
type tenantMetrics struct {
	// requests is the number of HostMaintenance requests per action and phase.
	requests *prometheus.GaugeVec
	// reboots counts reboot requests handed to daemons, by whether they
	// were coalesced with an update.
	reboots *prometheus.CounterVec
}

func newTenantMetrics(reg prometheus.Registerer) (*tenantMetrics, error) {
	m := &tenantMetrics{
		requests: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "host_maintenances", Help: "HostMaintenance requests in the tenant cluster, per action and phase."},
			[]string{"action", "phase"}),
		reboots: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "host_reboot_requests_total", Help: "Host reboots asked of machine-config-daemons for HostMaintenance, by coalesced (with a staged update)."},
			[]string{"coalesced"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.requests, m.reboots} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// observe sets the per-phase gauge from the requests as they will be.
func (m *tenantMetrics) observe(reqs []*dpuv1.HostMaintenance, updates []StatusUpdate) {
	next := map[string]dpuv1.HostMaintenancePhase{}
	for _, u := range updates {
		next[u.Name] = u.Status.Phase
	}
	m.requests.Reset()
	for _, hm := range reqs {
		p, ok := next[hm.Name]
		if !ok {
			p = hm.Status.Phase
		}
		if p == "" {
			p = dpuv1.PhasePending
		}
		m.requests.WithLabelValues(string(hm.Spec.Action), string(p)).Inc()
	}
}

// infraMetrics are the infra controller's metrics.
type infraMetrics struct {
	// holdSeconds is how long the infra planner has wanted to update an
	// infra node while its tenant host was not drained yet.
	holdSeconds *prometheus.GaugeVec
	// holdOverdue is 1 while that wait exceeds the threshold.
	holdOverdue *prometheus.GaugeVec
	// requests counts HostMaintenance requests created in the tenant cluster.
	requests *prometheus.CounterVec
	// hostTainted is 1 while an infra node's outage taints its tenant host.
	hostTainted *prometheus.GaugeVec
}

func newInfraMetrics(reg prometheus.Registerer) (*infraMetrics, error) {
	labels := []string{"infra_node", "tenant_node"}
	m := &infraMetrics{
		holdSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "tenant_hold_seconds", Help: "How long an infra node's update has waited for its tenant host to drain; 0 when not waiting."}, labels),
		holdOverdue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "tenant_hold_overdue", Help: "1 while a tenant host has held an infra node's update back longer than the threshold."}, labels),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "tenant_requests_total", Help: "HostMaintenance requests the infra controller created in the tenant cluster, by action."},
			[]string{"action"}),
		hostTainted: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metrics.Namespace, Subsystem: subsystem,
			Name: "host_tainted", Help: "1 while an infra node is down and its tenant host is tainted NoSchedule (a Taint HostMaintenance)."}, labels),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.holdSeconds, m.holdOverdue, m.requests, m.hostTainted} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
