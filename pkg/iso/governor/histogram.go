package governor

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// WALFsyncMetric is etcd's histogram of WAL fdatasync durations.
const WALFsyncMetric = "etcd_disk_wal_fsync_duration_seconds"

// Histogram is a cumulative Prometheus histogram: Cumulative[i] counts the
// observations <= Bounds[i]; Count includes those above the last bound.
type Histogram struct {
	Bounds     []float64
	Cumulative []uint64
	Count      uint64
	Sum        float64
}

// ParseHistogram reads the Prometheus text exposition in r and returns the
// histogram called name, summed over its label sets.
func ParseHistogram(r io.Reader, name string) (Histogram, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return Histogram{}, fmt.Errorf("parse metrics: %w", err)
	}
	mf, ok := families[name]
	if !ok {
		return Histogram{}, fmt.Errorf("metric %s not exposed", name)
	}
	if mf.GetType() != dto.MetricType_HISTOGRAM {
		return Histogram{}, fmt.Errorf("metric %s is a %s, not a histogram", name, mf.GetType())
	}
	var h Histogram
	for _, m := range mf.GetMetric() {
		if err := h.add(m.GetHistogram()); err != nil {
			return Histogram{}, fmt.Errorf("metric %s: %w", name, err)
		}
	}
	return h, nil
}

func (h *Histogram) add(ph *dto.Histogram) error {
	var bounds []float64
	var cum []uint64
	for _, b := range ph.GetBucket() {
		if math.IsInf(b.GetUpperBound(), +1) {
			continue // the +Inf bucket equals the count
		}
		bounds = append(bounds, b.GetUpperBound())
		cum = append(cum, b.GetCumulativeCount())
	}
	if h.Bounds == nil {
		h.Bounds, h.Cumulative = bounds, cum
	} else {
		if len(bounds) != len(h.Bounds) {
			return fmt.Errorf("series with different buckets")
		}
		for i := range cum {
			h.Cumulative[i] += cum[i]
		}
	}
	h.Count += ph.GetSampleCount()
	h.Sum += ph.GetSampleSum()
	return nil
}

// Sub returns the observations made between an earlier scrape and h. A
// counter reset (the process restarted) yields h itself.
func (h Histogram) Sub(earlier Histogram) Histogram {
	if len(earlier.Bounds) != len(h.Bounds) || earlier.Count > h.Count {
		return h
	}
	d := Histogram{Bounds: h.Bounds, Cumulative: make([]uint64, len(h.Cumulative)),
		Count: h.Count - earlier.Count, Sum: h.Sum - earlier.Sum}
	for i := range h.Cumulative {
		if earlier.Cumulative[i] > h.Cumulative[i] {
			return h
		}
		d.Cumulative[i] = h.Cumulative[i] - earlier.Cumulative[i]
	}
	return d
}

// Quantile estimates the q-quantile the way PromQL's histogram_quantile
// does: find the bucket holding rank q*count and interpolate linearly
// inside it. Observations above the last bound are reported as that bound.
// ok is false when the histogram is empty.
func (h Histogram) Quantile(q float64) (seconds float64, ok bool) {
	if h.Count == 0 || len(h.Bounds) == 0 {
		return 0, false
	}
	rank := q * float64(h.Count)
	i := sort.Search(len(h.Cumulative), func(i int) bool { return float64(h.Cumulative[i]) >= rank })
	if i == len(h.Cumulative) {
		return h.Bounds[len(h.Bounds)-1], true
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = h.Bounds[i-1], float64(h.Cumulative[i-1])
	}
	inBucket := float64(h.Cumulative[i]) - below
	if inBucket == 0 {
		return h.Bounds[i], true
	}
	return lower + (h.Bounds[i]-lower)*(rank-below)/inBucket, true
}

// MaxBound returns the upper bound of the highest non-empty bucket: the
// most a histogram can say about its largest observation. inf is true when
// some observation lies above the last bound.
func (h Histogram) MaxBound() (seconds float64, inf bool, ok bool) {
	if h.Count == 0 || len(h.Bounds) == 0 {
		return 0, false, false
	}
	last := len(h.Cumulative) - 1
	if h.Count > h.Cumulative[last] {
		return h.Bounds[last], true, true
	}
	for i := range h.Cumulative {
		if h.Cumulative[i] == h.Count {
			return h.Bounds[i], false, true
		}
	}
	return h.Bounds[last], false, true
}

// MetricsScraper fetches one histogram from a /metrics URL.
type MetricsScraper struct {
	URL    string
	Metric string
	Client *http.Client
}

// Scrape returns the histogram as it is now.
func (s MetricsScraper) Scrape(ctx context.Context) (Histogram, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return Histogram{}, fmt.Errorf("scrape %s: %w", s.URL, err)
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return Histogram{}, fmt.Errorf("scrape %s: %w", s.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Histogram{}, fmt.Errorf("scrape %s: status %s", s.URL, resp.Status)
	}
	name := s.Metric
	if name == "" {
		name = WALFsyncMetric
	}
	h, err := ParseHistogram(resp.Body, name)
	if err != nil {
		return Histogram{}, fmt.Errorf("scrape %s: %w", s.URL, err)
	}
	return h, nil
}

// EtcdSampler turns successive scrapes of etcd's WAL fsync histogram into
// per-interval p99 samples.
type EtcdSampler struct {
	Scraper MetricsScraper
	last    *Histogram
}

// Sample scrapes and returns the p99 of the fsyncs since the previous call.
// The first call only primes the sampler and returns an invalid sample.
func (e *EtcdSampler) Sample(ctx context.Context) (Sample, error) {
	h, err := e.Scraper.Scrape(ctx)
	if err != nil {
		return Sample{}, err
	}
	prev := e.last
	e.last = &h
	if prev == nil {
		return Sample{}, nil
	}
	return SampleOf(h.Sub(*prev)), nil
}

// Add returns h plus o, both with the same buckets; a zero histogram (no
// buckets) adds nothing. Histograms with other buckets are a scrape of
// something else: h is returned unchanged.
func (h Histogram) Add(o Histogram) Histogram {
	if len(o.Bounds) == 0 {
		return h
	}
	if len(h.Bounds) == 0 {
		return o.clone()
	}
	if len(o.Bounds) != len(h.Bounds) {
		return h
	}
	out := Histogram{Bounds: h.Bounds, Cumulative: make([]uint64, len(h.Cumulative)), Count: h.Count + o.Count, Sum: h.Sum + o.Sum}
	for i := range h.Cumulative {
		out.Cumulative[i] = h.Cumulative[i] + o.Cumulative[i]
	}
	return out
}

func (h Histogram) clone() Histogram {
	h.Cumulative = append([]uint64(nil), h.Cumulative...)
	return h
}

// Buckets returns the count of each bucket (not cumulative), with one more
// entry at the end: the observations above the last bound.
func (h Histogram) Buckets() []uint64 {
	out := make([]uint64, len(h.Cumulative)+1)
	prev := uint64(0)
	for i, c := range h.Cumulative {
		out[i] = c - prev
		prev = c
	}
	out[len(h.Cumulative)] = h.Count - prev
	return out
}

// FromBuckets builds a histogram from its bounds (seconds) and the count of
// each bucket as Buckets returns them (one more than the bounds).
func FromBuckets(bounds []float64, counts []uint64) (Histogram, error) {
	if len(counts) != len(bounds)+1 {
		return Histogram{}, fmt.Errorf("histogram: %d counts for %d bounds, want one more than the bounds", len(counts), len(bounds))
	}
	h := Histogram{Bounds: bounds, Cumulative: make([]uint64, len(bounds))}
	for i := range bounds {
		if i > 0 && bounds[i] <= bounds[i-1] {
			return Histogram{}, fmt.Errorf("histogram: bounds not increasing at %d (%v after %v)", i, bounds[i], bounds[i-1])
		}
		h.Count += counts[i]
		h.Cumulative[i] = h.Count
	}
	h.Count += counts[len(bounds)]
	return h, nil
}

// CountAbove estimates how many observations took longer than seconds: exact
// when seconds is a bucket bound, interpolated linearly inside a bucket (the
// assumption Quantile makes too), and everything above the last bound counts.
func (h Histogram) CountAbove(seconds float64) float64 {
	if h.Count == 0 || len(h.Bounds) == 0 {
		return 0
	}
	i := sort.SearchFloat64s(h.Bounds, seconds) // first bound >= seconds
	if i == len(h.Bounds) {
		return float64(h.Count - h.Cumulative[len(h.Cumulative)-1])
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = h.Bounds[i-1], float64(h.Cumulative[i-1])
	}
	inBucket := float64(h.Cumulative[i]) - below
	atOrUnder := below + inBucket*(seconds-lower)/(h.Bounds[i]-lower)
	return float64(h.Count) - atOrUnder
}
