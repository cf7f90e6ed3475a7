package scale

import (
	"math"
	"testing"
)

// A histogram as client_golang exposes it (text format, +Inf explicit):
// 10 samples, 5 <= 0.01, 9 <= 0.05, 1 above 0.1.
const planHistogramText = `# HELP tandem_mcc_plan_duration_seconds x
# TYPE tandem_mcc_plan_duration_seconds histogram
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.01"} 5
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.05"} 9
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="0.1"} 9
tandem_mcc_plan_duration_seconds_bucket{pool="worker",le="+Inf"} 10
tandem_mcc_plan_duration_seconds_sum{pool="worker"} 1.2
tandem_mcc_plan_duration_seconds_count{pool="worker"} 10
tandem_mcc_plan_duration_seconds_bucket{pool="master",le="0.01"} 100
tandem_mcc_plan_duration_seconds_bucket{pool="master",le="0.05"} 100
tandem_mcc_plan_duration_seconds_bucket{pool="master",le="0.1"} 100
tandem_mcc_plan_duration_seconds_bucket{pool="master",le="+Inf"} 100
tandem_mcc_plan_duration_seconds_sum{pool="master"} 0.1
tandem_mcc_plan_duration_seconds_count{pool="master"} 100
`

// The quantiles are PromQL's histogram_quantile, worked by hand: rank
// q*count, linear inside the bucket that reaches it.
func TestHistogramQuantileAsPromQL(t *testing.T) {
	s, err := parseScrape([]byte(planHistogramText))
	if err != nil {
		t.Fatal(err)
	}
	h := s.histogramOf("tandem_mcc_plan_duration_seconds", map[string]string{"pool": "worker"})
	if h.total() != 10 {
		t.Fatalf("count = %v, want 10 (the +Inf bucket counted once)", h.total())
	}
	// rank 5: the first bucket ends exactly there.
	if v, b := h.quantile(0.5); math.Abs(v-0.01) > 1e-12 || b != 0.01 {
		t.Errorf("p50 = %v (bucket %v), want 0.01", v, b)
	}
	// rank 7: 2 of the 4 samples of (0.01, 0.05] -> 0.03.
	if v, b := h.quantile(0.7); math.Abs(v-0.03) > 1e-12 || b != 0.05 {
		t.Errorf("p70 = %v (bucket %v), want 0.03 in the 0.05 bucket", v, b)
	}
	// rank 9.9: in +Inf; PromQL answers the highest finite bound.
	if v, b := h.quantile(0.99); v != 0.1 || !math.IsInf(b, 1) {
		t.Errorf("p99 = %v (bucket %v), want 0.1 and +Inf", v, b)
	}
	// A difference of two scrapes is a histogram of the samples between.
	later := histogram{bounds: h.bounds, counts: []float64{6, 12, 12, 13}}
	d := later.minus(h)
	if d.total() != 3 {
		t.Errorf("difference count = %v, want 3", d.total())
	}
	// cumulative 1, 3, 3, 3: rank 1.5 is half of the 2 samples in (0.01, 0.05].
	if v, _ := d.quantile(0.5); math.Abs(v-0.02) > 1e-12 {
		t.Errorf("difference p50 = %v", v)
	}
}
