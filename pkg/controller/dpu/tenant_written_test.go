package dpu

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// A decision reads a request as this controller last wrote it until the
// informer shows that write: never an older status.
func TestWrittenStatusesHideOlderVersions(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	req := func(rv string, phase dpuv1.HostMaintenancePhase) *dpuv1.HostMaintenance {
		return &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: "reboot-w2", UID: "u1", ResourceVersion: rv},
			Status: dpuv1.HostMaintenanceStatus{Phase: phase}}
	}
	w := newWrittenStatuses(time.Minute)
	phase := func(step string, cached *dpuv1.HostMaintenance, at time.Time, want dpuv1.HostMaintenancePhase) {
		t.Helper()
		if got := w.current(cached, at).Status.Phase; got != want {
			t.Fatalf("%s: read %s, want %s", step, got, want)
		}
	}
	phase("nothing written", req("5", dpuv1.PhaseRebooting), now, dpuv1.PhaseRebooting)
	w.wrote(req("7", dpuv1.PhaseCompleted), now)
	phase("the informer lags", req("5", dpuv1.PhaseRebooting), now, dpuv1.PhaseCompleted)
	w.delivered(req("6", dpuv1.PhaseRebooting))
	phase("an older event arrives", req("6", dpuv1.PhaseRebooting), now, dpuv1.PhaseCompleted)
	w.delivered(req("7", dpuv1.PhaseCompleted))
	phase("the write's event", req("7", dpuv1.PhaseCompleted), now, dpuv1.PhaseCompleted)
	// Forgotten: a later change by someone else shows as it is.
	phase("a later version", req("8", dpuv1.PhaseRejected), now, dpuv1.PhaseRejected)

	w.wrote(req("9", dpuv1.PhaseCompleted), now)
	phase("ttl not over", req("8", dpuv1.PhaseRejected), now.Add(30*time.Second), dpuv1.PhaseCompleted)
	phase("ttl over (a relist skipped the write's event)", req("10", dpuv1.PhaseRejected), now.Add(2*time.Minute), dpuv1.PhaseRejected)

	w.wrote(req("11", dpuv1.PhaseCompleted), now)
	w.deleted(cache.DeletedFinalStateUnknown{Key: "reboot-w2", Obj: req("11", dpuv1.PhaseCompleted)})
	phase("deleted", req("5", dpuv1.PhaseRebooting), now, dpuv1.PhaseRebooting)
}
