package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tandem-mco/tandem/pkg/version"
)

// RegisterBuildInfo adds tandem_build_info{component, version, hash,
// payload_version} = 1: which build runs, with the version hash the
// operator compares and the release version it was started for
// (--payload-version). A dashboard tells from it which nodes still run the
// previous release's daemon during an upgrade.
func RegisterBuildInfo(reg prometheus.Registerer, component, payloadVersion string) {
	info := version.Get()
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tandem_build_info",
		Help: "1 for the running build: its component, version, MCO version hash and release (payload) version.",
	}, []string{"component", "version", "hash", "payload_version"})
	reg.MustRegister(g)
	g.WithLabelValues(component, info.Version, info.MCOHash(), payloadVersion).Set(1)
}
