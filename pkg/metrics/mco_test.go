package metrics

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMCODaemonSeries: the stock series move the way the MCO's code moves
// them (release-4.20 pkg/daemon): reboot failures count up, pivot errors
// count failed OS updates and reset on a good one, mcd_state keeps only the
// current state, mcd_update_state the last outcome.
func TestMCODaemonSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewDaemon(reg)
	m.StepFailed("Finalize", errors.New("finalize-deployment: exit 1"))
	m.StepFailed("Reboot", errors.New("systemctl reboot: exit 1"))
	m.StepFailed("WriteFiles", errors.New("disk full"))
	if got := testutil.ToFloat64(m.MCO.RebootsFailed); got != 2 {
		t.Errorf("mcd_reboots_failed_total = %v, want 2", got)
	}
	m.StepFailed("Stage", errors.New("pull failed"))
	if got := testutil.ToFloat64(m.MCO.PivotErrors); got != 2 { // Finalize + Stage
		t.Errorf("mcd_pivot_errors_total = %v, want 2", got)
	}
	m.StageStarted()
	if testutil.ToFloat64(m.StageInProgress) == 0 {
		t.Error("stage in progress not marked")
	}
	m.StageEnded(true)
	if testutil.ToFloat64(m.MCO.PivotErrors) != 0 || testutil.ToFloat64(m.StageInProgress) != 0 {
		t.Error("a good stage must reset pivot errors and the in-progress mark")
	}
	m.StateReported("Working", "")
	m.StateReported("Degraded", "boom")
	if n := testutil.CollectAndCount(m.MCO.State); n != 1 {
		t.Errorf("mcd_state has %d series, want only the current one", n)
	}
	if v := testutil.ToFloat64(m.MCO.State.WithLabelValues("Degraded", "boom")); v == 0 {
		t.Error("mcd_state{Degraded} not set to its time")
	}
	m.UpdateCompleted("rendered-worker-1")
	if n := testutil.CollectAndCount(m.MCO.UpdateState); n != 1 {
		t.Errorf("mcd_update_state has %d series, want 1", n)
	}
	m.ConfigMissing("rendered-worker-x")
	m.ConfigMissing("rendered-worker-x")
	if v := testutil.ToFloat64(m.MCO.MissingMC.WithLabelValues("rendered-worker-x")); v != 2 {
		t.Errorf("mcd_missing_mc = %v, want 2", v)
	}
}

func TestHostOSFromOSRelease(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "usr/lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "usr/lib/os-release"), []byte("NAME=\"Red Hat Enterprise Linux CoreOS\"\nID=\"rhcos\"\nVERSION_ID=\"4.20\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewDaemon(nil)
	m.SetHostOS(root)
	if v := testutil.ToFloat64(m.MCO.HostOS.WithLabelValues("RHCOS", "4.20")); v != 1 {
		t.Errorf("mcd_host_os_and_version{RHCOS,4.20} = %v", v)
	}
	empty := NewDaemon(nil)
	empty.SetHostOS(t.TempDir())
	if v := testutil.ToFloat64(empty.MCO.HostOS.WithLabelValues("unsupported", "")); v != 1 {
		t.Errorf("no os-release: unsupported = %v", v)
	}
}
