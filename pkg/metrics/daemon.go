package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DaemonNamespace prefixes the machine-config-daemon's metrics.
const DaemonNamespace = "tandem_daemon"

// Daemon holds the machine-config-daemon's metrics.
type Daemon struct {
	// StageDuration: time to pull and stage an OS image (finalization-locked).
	StageDuration prometheus.Histogram
	// StageBytes: bytes written to the sysroot by staging.
	StageBytes prometheus.Counter
	// GrantWait: from stagedConfig reported to desiredConfig seen.
	GrantWait prometheus.Histogram
	// DrainDuration: from desiredDrain=drain-<config> to lastAppliedDrain matching.
	DrainDuration prometheus.Histogram
	// DisruptionWindow: from the drain request (cordon) to the uncordon.
	DisruptionWindow prometheus.Histogram
	// Reboots by cause: "update" (finalize or reboot for a config) or "request".
	Reboots *prometheus.CounterVec
	// Failures of actions, by reason (the action kind that failed, or
	// "unreconcilable"/"degraded" for reports).
	Failures *prometheus.CounterVec
	// Actions performed, by kind.
	Actions *prometheus.CounterVec
	// StageInProgress is the start time of the stage running now (0: none),
	// so a stage that hangs shows (the StageStuck alert).
	StageInProgress prometheus.Gauge
	// WaitingSince is the Unix time the daemon found nothing to do but
	// wait (for a grant, the drain controller, or nothing: the node runs its
	// config); 0 while it acts. A daemon that never gets here is stuck.
	WaitingSince prometheus.Gauge
	// StageFailingSince is the Unix time the failing background stage
	// first failed; 0 while none fails. The node stays in service.
	StageFailingSince prometheus.Gauge
	// MCO holds the stock daemon's mcd_* series.
	MCO MCODaemon
}

// NewDaemon creates the daemon's metrics and registers them with reg (nil: not registered).
func NewDaemon(reg prometheus.Registerer) *Daemon {
	long := prometheus.ExponentialBuckets(0.5, 2, 14) // 0.5 s .. ~68 min
	m := &Daemon{
		StageDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: DaemonNamespace, Name: "stage_duration_seconds",
			Help: "Time to pull and stage an OS image, finalization-locked.", Buckets: long,
		}),
		StageBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: DaemonNamespace, Name: "stage_bytes_total",
			Help: "Bytes written to the sysroot while staging OS images.",
		}),
		GrantWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: DaemonNamespace, Name: "grant_wait_seconds",
			Help: "Time from stagedConfig reported to desiredConfig granted.", Buckets: long,
		}),
		DrainDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: DaemonNamespace, Name: "drain_duration_seconds",
			Help: "Time from the drain request to the drain controller's acknowledgement.", Buckets: long,
		}),
		DisruptionWindow: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: DaemonNamespace, Name: "disruption_window_seconds",
			Help: "Time the node was unavailable: from the drain request (cordon) to the uncordon.", Buckets: long,
		}),
		Reboots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: DaemonNamespace, Name: "reboots_total",
			Help: "Reboots asked for by the daemon, by cause.",
		}, []string{"cause"}),
		Failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: DaemonNamespace, Name: "failures_total",
			Help: "Failed daemon steps and reported failures, by reason.",
		}, []string{"reason"}),
		Actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: DaemonNamespace, Name: "actions_total",
			Help: "Steps performed by the daemon, by kind.",
		}, []string{"action"}),
		StageInProgress: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: DaemonNamespace, Name: "stage_started_timestamp_seconds",
			Help: "Unix time the stage running now started; 0 while no stage runs.",
		}),
		WaitingSince: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: DaemonNamespace, Name: "waiting_since_timestamp_seconds",
			Help: "Unix time since which the daemon has had nothing to do but wait; 0 while it acts.",
		}),
		StageFailingSince: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: DaemonNamespace, Name: "stage_failing_since_timestamp_seconds",
			Help: "Unix time the background stage that keeps failing first failed; 0 while none fails (the node stays in service).",
		}),
		MCO: newMCODaemon(),
	}
	if reg != nil {
		reg.MustRegister(m.StageDuration, m.StageBytes, m.GrantWait, m.DrainDuration,
			m.DisruptionWindow, m.Reboots, m.Failures, m.Actions, m.StageInProgress, m.WaitingSince, m.StageFailingSince)
		reg.MustRegister(m.MCO.collectors()...)
	}
	return m
}

// ObserveSince records the time since start in h; a zero start is skipped
// (the start was not recorded, e.g. it predates this daemon version).
func ObserveSince(h prometheus.Observer, start, now time.Time) {
	if start.IsZero() || now.Before(start) {
		return
	}
	h.Observe(now.Sub(start).Seconds())
}
