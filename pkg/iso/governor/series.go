package governor

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Series is a latency series recorded on a real disk by make bench-io: the
// per-interval deltas of etcd's WAL fsync histogram during one stage, and
// the value of the governed lever at each step. The law's tests replay
// recorded series (testdata/), so a change to the law is judged against
// what etcd really saw, noise and histogram buckets included.
type Series struct {
	// Source says where and when it was recorded, under which law and
	// target, and whether the machine was quiet.
	Source string `json:"source"`
	// Policy and TargetMs are the policy the stage ran under and the
	// governor's target (0 for an ungoverned policy).
	Policy   string  `json:"policy"`
	TargetMs float64 `json:"targetMs,omitempty"`
	// IdleP99Ms is etcd's p99 with nothing staging, measured before.
	IdleP99Ms float64 `json:"idleP99Ms"`
	// IntervalS is the time between two steps, seconds.
	IntervalS float64 `json:"intervalSeconds"`
	// BoundsS are the histogram's bucket bounds, seconds.
	BoundsS []float64    `json:"boundsSeconds"`
	Steps   []SeriesStep `json:"steps"`
}

// SeriesStep is one interval of a Series.
type SeriesStep struct {
	// T is the end of the interval, seconds since the stage began.
	T float64 `json:"t"`
	// Counts holds the fsyncs of the interval per bucket (Histogram.Buckets:
	// the last entry counts those above the last bound).
	Counts []uint64 `json:"counts"`
	// Lever is the governed lever's value in force during the interval (0
	// when nothing is governed).
	Lever float64 `json:"lever,omitempty"`
}

// LoadSeries reads a Series written as JSON.
func LoadSeries(path string) (Series, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Series{}, fmt.Errorf("load series: %w", err)
	}
	var s Series
	if err := json.Unmarshal(b, &s); err != nil {
		return Series{}, fmt.Errorf("load series %s: %w", path, err)
	}
	if s.IntervalS <= 0 || len(s.BoundsS) == 0 {
		return Series{}, fmt.Errorf("load series %s: no interval or no bounds", path)
	}
	for i, st := range s.Steps {
		if len(st.Counts) != len(s.BoundsS)+1 {
			return Series{}, fmt.Errorf("load series %s: step %d has %d counts for %d bounds", path, i, len(st.Counts), len(s.BoundsS))
		}
	}
	return s, nil
}

// Histogram returns step i as a histogram.
func (s Series) Histogram(i int) Histogram {
	h, err := FromBuckets(s.BoundsS, s.Steps[i].Counts)
	if err != nil {
		panic(err) // LoadSeries checked the shape
	}
	return h
}

// Samples returns the steps as the sampler would have handed them to the
// law.
func (s Series) Samples() []Sample {
	out := make([]Sample, len(s.Steps))
	for i := range s.Steps {
		out[i] = SampleOf(s.Histogram(i))
	}
	return out
}

// Total is the histogram of the whole series.
func (s Series) Total() Histogram {
	var t Histogram
	for i := range s.Steps {
		t = t.Add(s.Histogram(i))
	}
	return t
}

// SampleOf is the sample an interval's histogram gives: its p99, valid when
// the interval holds at least one observation.
func SampleOf(h Histogram) Sample {
	q, ok := h.Quantile(0.99)
	return Sample{P99: time.Duration(q * float64(time.Second)), Valid: ok, Hist: h}
}
