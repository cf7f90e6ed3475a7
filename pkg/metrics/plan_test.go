package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestPlanMetricsRegisterAndExpose(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewPlan(reg)
	m.Duration.WithLabelValues("worker").Observe(0.042)
	want := `
# HELP tandem_mcc_plan_duration_seconds Time to decide one pool's plan: list its nodes from the cache, build their views and plan, per pool.
# TYPE tandem_mcc_plan_duration_seconds histogram
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.0005"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.001"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.0025"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.005"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.01"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.02"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.03"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.04"} 0
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.05"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.075"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.1"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.25"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.5"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="1"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="2.5"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="5"} 1
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="+Inf"} 1
tandem_mcc_plan_duration_seconds_sum{pool="worker"} 0.042
tandem_mcc_plan_duration_seconds_count{pool="worker"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tandem_mcc_plan_duration_seconds"); err != nil {
		t.Error(err)
	}
	// A second set on another registry must not collide (no global state).
	NewPlan(prometheus.NewRegistry())
}
