package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestDaemonMetricsRegisterAndObserve(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewDaemon(reg)
	now := time.Unix(1000, 0)
	ObserveSince(m.DrainDuration, now.Add(-3*time.Second), now)
	ObserveSince(m.DrainDuration, time.Time{}, now) // skipped
	m.Failures.WithLabelValues("Stage").Inc()
	m.StageBytes.Add(4096)
	if got := testutil.CollectAndCount(m.DrainDuration); got != 1 {
		t.Fatalf("drain histogram series = %d", got)
	}
	if got := testutil.ToFloat64(m.Failures.WithLabelValues("Stage")); got != 1 {
		t.Fatalf("failures = %v", got)
	}
	if got := testutil.ToFloat64(m.StageBytes); got != 4096 {
		t.Fatalf("stage bytes = %v", got)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "tandem_daemon_drain_duration_seconds" {
			if c := mf.GetMetric()[0].GetHistogram().GetSampleCount(); c != 1 {
				t.Fatalf("drain samples = %d", c)
			}
			return
		}
	}
	t.Fatal("drain histogram not gathered")
}
