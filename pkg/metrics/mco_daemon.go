package metrics

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// MCODaemon holds the stock machine-config-daemon's series, with the MCO's
// names, label names and value conventions, so the MCO's alerts
// (MCDRebootError, MCDPivotError, KubeletHealthState, MissingMachineConfig)
// and dashboards read tandem's daemon as they read the MCO's. Read from
// openshift/machine-config-operator release-4.20 (commit afed0993),
// pkg/daemon/metrics.go, and where the MCO sets them: update.go (reboot and
// pivot errors), writer.go (state), daemon.go (update state, host OS,
// kubelet health, missing MachineConfig).
type MCODaemon struct {
	// HostOS is mcd_host_os_and_version{os,version}: 1 for the booted OS
	// (os is os-release ID upper-cased, as the MCO's ToPrometheusLabel).
	HostOS *prometheus.GaugeVec
	// PivotErrors is mcd_pivot_errors_total: a gauge despite its name (as in
	// the MCO), counting failed OS updates, set back to 0 by a good one.
	PivotErrors prometheus.Gauge
	// State is mcd_state{state,reason}: one series, the current state, whose
	// value is the time it was entered (the MCO's UpdateStateMetric).
	State *prometheus.GaugeVec
	// KubeletState is mcd_kubelet_state: consecutive failed kubelet health checks.
	KubeletState prometheus.Gauge
	// RebootsFailed is mcd_reboots_failed_total: reboots that could not be asked for.
	RebootsFailed prometheus.Counter
	// UpdateState is mcd_update_state{config,err}: the last completed update
	// (err="") or the last update error (config=""), valued by its time.
	UpdateState *prometheus.GaugeVec
	// MissingMC is mcd_missing_mc{mc}: times a MachineConfig the node names
	// was not found. (The MCO defines it but, at release-4.20, never
	// registers it, so its MissingMachineConfig alert cannot fire there.)
	MissingMC *prometheus.GaugeVec
}

func newMCODaemon() MCODaemon {
	return MCODaemon{
		HostOS: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcd_host_os_and_version",
			Help: "os that MCD is running on and version if RHCOS"}, []string{"os", "version"}),
		PivotErrors: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcd_pivot_errors_total",
			Help: "Total number of errors encountered during pivot."}),
		State: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcd_state",
			Help: "state of daemon on specified node"}, []string{"state", "reason"}),
		KubeletState: prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcd_kubelet_state",
			Help: "state of kubelet health monitor"}),
		RebootsFailed: prometheus.NewCounter(prometheus.CounterOpts{Name: "mcd_reboots_failed_total",
			Help: "Total number of reboots that failed."}),
		UpdateState: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcd_update_state",
			Help: "completed update config or error"}, []string{"config", "err"}),
		MissingMC: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mcd_missing_mc",
			Help: "total number of times a MC was reported missing"}, []string{"mc"}),
	}
}

func (m MCODaemon) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.HostOS, m.PivotErrors, m.State, m.KubeletState, m.RebootsFailed, m.UpdateState, m.MissingMC}
}

// setOnly keeps one series in v, valued now: the MCO's UpdateStateMetric
// (OCPBUGS-1662: a state logger must not keep the states it left).
func setOnly(v *prometheus.GaugeVec, labels ...string) {
	v.Reset()
	v.WithLabelValues(labels...).SetToCurrentTime()
}

// maxReasonLabel bounds a reason used as a label value, as the MCO
// truncates the degraded reason.
const maxReasonLabel = 256

func truncate(s string) string {
	if len(s) > maxReasonLabel {
		return s[:maxReasonLabel]
	}
	return s
}

// StepFailed records a failed daemon step of the given action kind.
func (d *Daemon) StepFailed(kind string, err error) {
	d.Failures.WithLabelValues(kind).Inc()
	switch kind {
	case "Finalize", "Reboot", "ServeRebootRequest":
		d.MCO.RebootsFailed.Inc()
	}
	if kind == "Stage" || kind == "Finalize" {
		// The MCO's "pivot": moving the node to the new OS.
		d.MCO.PivotErrors.Inc()
	}
	if err != nil {
		setOnly(d.MCO.UpdateState, "", truncate(err.Error()))
	}
}

// StateReported records the daemon state annotation just written.
func (d *Daemon) StateReported(state, reason string) {
	setOnly(d.MCO.State, state, truncate(reason))
}

// UpdateCompleted records a finished update to config.
func (d *Daemon) UpdateCompleted(config string) {
	setOnly(d.MCO.UpdateState, config, "")
}

// StageStarted marks a stage in progress (for the StageStuck alert).
func (d *Daemon) StageStarted() { d.StageInProgress.SetToCurrentTime() }

// StageEnded marks the end of a stage; a good one clears the pivot errors,
// as the MCO's updateOS does after a successful pivot.
func (d *Daemon) StageEnded(ok bool) {
	d.StageInProgress.Set(0)
	if ok {
		d.MCO.PivotErrors.Set(0)
	}
}

// ConfigMissing records a MachineConfig named by the node that the
// apiserver does not have.
func (d *Daemon) ConfigMissing(name string) { d.MCO.MissingMC.WithLabelValues(name).Inc() }

// SetHostOS sets mcd_host_os_and_version from root's os-release
// (/etc/os-release, else /usr/lib/os-release), as the MCO reads it.
func (d *Daemon) SetHostOS(root string) {
	id, version := readOSRelease(root)
	if id == "" {
		d.MCO.HostOS.WithLabelValues("unsupported", "").Set(1)
		return
	}
	d.MCO.HostOS.WithLabelValues(strings.ToUpper(id), version).Set(1)
}

func readOSRelease(root string) (id, version string) {
	for _, p := range []string{"etc/os-release", "usr/lib/os-release"} {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), "=")
			if !ok {
				continue
			}
			v = strings.Trim(v, `"'`)
			switch k {
			case "ID":
				id = v
			case "VERSION_ID":
				version = v
			}
		}
		return id, version
	}
	return "", ""
}
