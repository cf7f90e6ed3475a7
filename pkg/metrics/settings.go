package metrics

import "github.com/prometheus/client_golang/prometheus"

// NewSettingsInvalid creates and registers tandem_mcc_settings_invalid: 1
// while the controller's settings ConfigMap is refused as invalid (the
// controller runs without it and holds every disruption), 0 otherwise.
func NewSettingsInvalid(reg prometheus.Registerer) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Subsystem: "mcc", Name: "settings_invalid",
		Help: "1 while tandem's settings ConfigMap is refused as invalid (the controller runs without it and holds every disruption)."})
	reg.MustRegister(g)
	return g
}
