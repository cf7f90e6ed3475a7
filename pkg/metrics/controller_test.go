package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestControllerMetricsRegisterAndExpose(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewController(reg)
	m.Grants.WithLabelValues("master").Add(3)
	m.NodesByPhase.WithLabelValues("master", "Updated").Set(2)
	m.PoolUpdateDuration.WithLabelValues("master").Observe(95)
	want := `
# HELP tandem_mcc_grants_total desiredConfig grants (permissions to disrupt a node), per pool.
# TYPE tandem_mcc_grants_total counter
tandem_mcc_grants_total{pool="master"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tandem_mcc_grants_total"); err != nil {
		t.Error(err)
	}
	if got := testutil.ToFloat64(m.NodesByPhase.WithLabelValues("master", "Updated")); got != 2 {
		t.Errorf("nodes by phase = %v", got)
	}
	// A second set on another registry must not collide (no global state).
	NewController(prometheus.NewRegistry())
}

func TestBuildInfoNamesThePayloadVersion(t *testing.T) {
	reg := prometheus.NewRegistry()
	RegisterBuildInfo(reg, "machine-config-daemon", "4.21.3")
	fams, err := reg.Gather()
	if err != nil || len(fams) != 1 {
		t.Fatalf("gather = %v, %v", fams, err)
	}
	got := map[string]string{}
	for _, l := range fams[0].Metric[0].GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	if got["component"] != "machine-config-daemon" || got["payload_version"] != "4.21.3" || got["hash"] == "" {
		t.Fatalf("labels = %v", got)
	}
}
