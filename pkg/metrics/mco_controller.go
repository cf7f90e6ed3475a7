package metrics

import "github.com/prometheus/client_golang/prometheus"

// MCOController holds the stock machine-config-controller's series that the
// node controller owns, with the MCO's names and labels (openshift/
// machine-config-operator release-4.20, commit afed0993,
// pkg/controller/common/metrics.go; set in pkg/controller/node/
// node_controller.go). mcc_drain_err is the drain controller's
// (pkg/controller/drain).
type MCOController struct {
	// PoolAlert is mcc_pool_alert{node}: 1 while a node matches both the
	// master pool and a custom pool (master wins, the custom pool's config
	// is not applied); the MCCPoolAlert alert fires on it.
	PoolAlert *prometheus.GaugeVec
	// SubControllerState is mcc_sub_controller_state{subcontroller,state,object}:
	// the time a sub-controller last synced object.
	SubControllerState *prometheus.GaugeVec
}

func newMCOController() MCOController {
	m := MCOController{
		PoolAlert: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcc_pool_alert",
			Help: "pool status alert"}, []string{"node"}),
		SubControllerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcc_sub_controller_state",
			Help: "state of sub-controllers in the MCC"}, []string{"subcontroller", "state", "object"}),
	}
	// The MCO initialises its vectors so dashboards find them before the
	// first event (OCPBUGS-20427).
	m.PoolAlert.WithLabelValues("initialize").Set(0)
	m.SubControllerState.WithLabelValues("initialize", "initialize", "initialize").Set(0)
	return m
}

func (m MCOController) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.PoolAlert, m.SubControllerState}
}
