package governor

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// exposition renders etcd's WAL fsync histogram (its real buckets: 1 ms
// doubling 14 times) with the given cumulative counts.
func exposition(cum [14]uint64, count uint64, sum float64) string {
	var b strings.Builder
	b.WriteString("# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.\n")
	b.WriteString("# TYPE etcd_disk_wal_fsync_duration_seconds histogram\n")
	bound := 0.001
	for i := 0; i < 14; i++ {
		fmt.Fprintf(&b, "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"%g\"} %d\n", bound, cum[i])
		bound *= 2
	}
	fmt.Fprintf(&b, "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} %d\n", count)
	fmt.Fprintf(&b, "etcd_disk_wal_fsync_duration_seconds_sum %g\n", sum)
	fmt.Fprintf(&b, "etcd_disk_wal_fsync_duration_seconds_count %d\n", count)
	b.WriteString("# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n")
	return b.String()
}

func TestParseHistogram(t *testing.T) {
	h, err := ParseHistogram(strings.NewReader(exposition([14]uint64{5, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 10}, 10, 0.5)), WALFsyncMetric)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Bounds) != 14 || h.Bounds[0] != 0.001 || math.Abs(h.Bounds[13]-8.192) > 1e-9 {
		t.Fatalf("bounds %v", h.Bounds)
	}
	if h.Count != 10 || h.Cumulative[1] != 8 || h.Sum != 0.5 {
		t.Fatalf("parsed %+v", h)
	}
	if _, err := ParseHistogram(strings.NewReader("etcd_server_has_leader 1\n"), WALFsyncMetric); err == nil {
		t.Fatal("want an error when the metric is absent")
	}
	if _, err := ParseHistogram(strings.NewReader("# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n"), "etcd_server_has_leader"); err == nil {
		t.Fatal("want an error for a gauge")
	}
}

// The p99 of an interval comes from the difference of two cumulative
// scrapes: what happened before the first scrape must not count.
func TestQuantileOfDeltaBetweenScrapes(t *testing.T) {
	// Before: 1000 fsyncs, 10 of them slow (between 256 and 512 ms).
	first := [14]uint64{990, 990, 990, 990, 990, 990, 990, 990, 990, 1000, 1000, 1000, 1000, 1000}
	// Then 200 more, all under 1 ms except 4 in (2,4] ms.
	second := first
	for i := range second {
		second[i] += 196
		if i >= 2 {
			second[i] += 4
		}
	}
	h1, err := ParseHistogram(strings.NewReader(exposition(first, 1000, 3)), WALFsyncMetric)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := ParseHistogram(strings.NewReader(exposition(second, 1200, 3.3)), WALFsyncMetric)
	if err != nil {
		t.Fatal(err)
	}
	d := h2.Sub(h1)
	if d.Count != 200 {
		t.Fatalf("delta count %d, want 200", d.Count)
	}
	// rank 198 of 200: 196 below 1 ms, 4 in (2,4] ms -> 2 + 2*(198-196)/4 = 3 ms.
	q, ok := d.Quantile(0.99)
	if !ok || math.Abs(q-0.003) > 1e-9 {
		t.Fatalf("p99 of the interval = %v (ok=%v), want 3 ms", q, ok)
	}
	max, inf, ok := d.MaxBound()
	if !ok || inf || max != 0.004 {
		t.Fatalf("max bound %v inf=%v, want 4 ms", max, inf)
	}
	// Over the whole history the old stall is still there.
	if all, _, _ := h2.MaxBound(); all != 0.512 {
		t.Fatalf("cumulative max bound %v, want the old stall's 512 ms", all)
	}
}

func TestQuantileEdgeCases(t *testing.T) {
	empty := Histogram{Bounds: []float64{0.001, 0.002}, Cumulative: []uint64{0, 0}}
	if _, ok := empty.Quantile(0.99); ok {
		t.Fatal("empty histogram must not yield a quantile")
	}
	above := Histogram{Bounds: []float64{0.001, 0.002}, Cumulative: []uint64{1, 1}, Count: 10}
	if q, ok := above.Quantile(0.99); !ok || q != 0.002 {
		t.Fatalf("observations above the last bound: got %v, want the last bound", q)
	}
	if m, inf, _ := above.MaxBound(); !inf || m != 0.002 {
		t.Fatalf("max bound %v inf=%v, want last bound and inf", m, inf)
	}
	// A restart (counts went down) yields the new histogram as the delta.
	later := Histogram{Bounds: []float64{0.001, 0.002}, Cumulative: []uint64{3, 3}, Count: 3}
	if d := later.Sub(above); d.Count != 3 {
		t.Fatalf("after a counter reset the delta should be the new histogram, got count %d", d.Count)
	}
}

func TestEtcdSamplerOverHTTP(t *testing.T) {
	pages := []string{
		exposition([14]uint64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100}, 100, 0.05),
		// 100 more: 50 under 1 ms, 50 in (16,32] ms: p99 near 32 ms.
		exposition([14]uint64{150, 150, 150, 150, 150, 200, 200, 200, 200, 200, 200, 200, 200, 200}, 200, 1.5),
	}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, pages[min(n, len(pages)-1)])
		n++
	}))
	defer srv.Close()
	s := &EtcdSampler{Scraper: MetricsScraper{URL: srv.URL}}
	x, err := s.Sample(context.Background())
	if err != nil || x.Valid {
		t.Fatalf("first sample primes: %+v %v", x, err)
	}
	x, err = s.Sample(context.Background())
	if err != nil || !x.Valid {
		t.Fatalf("second sample: %+v %v", x, err)
	}
	// rank 99: 50 below 16 ms, 50 in (16,32]: 16 + 16*49/50 = 31.68 ms.
	if want := time.Duration(31.68 * float64(time.Millisecond)); x.P99 < want-time.Microsecond || x.P99 > want+time.Microsecond {
		t.Fatalf("p99 %v, want %v", x.P99, want)
	}
}

// Buckets and FromBuckets are inverses; Add sums; CountAbove is exact at a
// bound and linear inside a bucket, as Quantile assumes.
func TestHistogramArithmetic(t *testing.T) {
	h := fsyncs(map[float64]uint64{1: 90, 4: 8, 16: 2})
	b := h.Buckets()
	if len(b) != 15 || b[0] != 90 || b[2] != 8 || b[4] != 2 || b[14] != 0 {
		t.Fatalf("buckets %v", b)
	}
	back, err := FromBuckets(h.Bounds, b)
	if err != nil || back.Count != 100 || back.Cumulative[13] != 100 {
		t.Fatalf("round trip %+v %v", back, err)
	}
	if _, err := FromBuckets(h.Bounds, b[:14]); err == nil {
		t.Fatal("want an error for counts without the overflow bucket")
	}
	if _, err := FromBuckets([]float64{0.002, 0.001}, []uint64{1, 1, 1}); err == nil {
		t.Fatal("want an error for decreasing bounds")
	}
	sum := h.Add(fsyncs(map[float64]uint64{1: 10, 0: 1}))
	if sum.Count != 111 || sum.Buckets()[0] != 100 || sum.Buckets()[14] != 1 {
		t.Fatalf("sum %v", sum.Buckets())
	}
	if z := (Histogram{}).Add(h); z.Count != 100 || &z.Cumulative[0] == &h.Cumulative[0] {
		t.Fatal("adding to a zero histogram must copy")
	}
	cases := []struct {
		seconds, want float64
	}{
		{0.002, 10},  // a bound: the 8 in (2,4] and the 2 in (8,16]
		{0.003, 6},   // half of (2,4] is above 3 ms
		{0.016, 0},   // the last non-empty bound
		{0.0005, 55}, // half of the first bucket's 90, and the 10 above
		{20, 0},      // beyond the last bound: only the overflow bucket
	}
	for _, c := range cases {
		if got := h.CountAbove(c.seconds); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CountAbove(%v) = %v, want %v", c.seconds, got, c.want)
		}
	}
	if got := sum.CountAbove(20); got != 1 {
		t.Errorf("overflow: %v", got)
	}
}
