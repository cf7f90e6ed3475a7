package main

import (
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

// recorder keeps every put's result so a phase's figures are those of the
// puts issued within it.
type recorder struct {
	mu  sync.Mutex
	all []putResult
}

func (r *recorder) consume(ch <-chan putResult) {
	for x := range ch {
		r.mu.Lock()
		r.all = append(r.all, x)
		r.mu.Unlock()
	}
}

// window returns the latencies (ms) of the puts issued in [from, to), and
// how many failed.
func (r *recorder) window(from, to time.Time) (lat []float64, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.all {
		if x.at.Before(from) || !x.at.Before(to) {
			continue
		}
		if x.err != nil {
			failed++
			continue
		}
		lat = append(lat, ms(x.latency))
	}
	return lat, failed
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile is the nearest-rank percentile of exact samples.
func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// fsyncFigures turns the delta of etcd's WAL fsync histogram over a phase
// into p99 (interpolated inside its bucket, as histogram_quantile does)
// and max (the upper bound of the highest non-empty bucket: all a
// histogram knows of its largest observation).
func fsyncFigures(d governor.Histogram) (p99, maxMs float64, count uint64, buckets map[string]uint64) {
	q, _ := d.Quantile(0.99)
	m, _, _ := d.MaxBound()
	buckets = map[string]uint64{}
	prev := uint64(0)
	for i, b := range d.Bounds {
		if n := d.Cumulative[i] - prev; n > 0 {
			buckets[formatBound(b)] = n
		}
		prev = d.Cumulative[i]
	}
	if over := d.Count - prev; over > 0 {
		buckets["+Inf"] = over
	}
	return q * 1000, m * 1000, d.Count, buckets
}

func formatBound(s float64) string {
	return "le_" + strconv.FormatFloat(s*1000, 'g', -1, 64) + "ms"
}
