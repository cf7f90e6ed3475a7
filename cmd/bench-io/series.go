package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

// seriesRecorder scrapes etcd's WAL fsync histogram every interval during a
// stage, whatever the policy, and keeps each interval's delta with the
// governed lever's value then in force: the series the law's tests replay
// (governor.Series). It runs beside the governor and does not steer.
type seriesRecorder struct {
	scraper  governor.MetricsScraper
	interval time.Duration
	start    time.Time
	stop     context.CancelFunc
	done     chan struct{}

	mu     sync.Mutex
	lever  float64
	last   governor.Histogram
	bounds []float64
	steps  []governor.SeriesStep
	errs   int
}

// startSeries takes the first scrape now (the stage's start) and records
// until finish.
func startSeries(ctx context.Context, scraper governor.MetricsScraper, interval time.Duration) (*seriesRecorder, error) {
	h, err := scraper.Scrape(ctx)
	if err != nil {
		return nil, err
	}
	r := &seriesRecorder{scraper: scraper, interval: interval, start: time.Now(), last: h, bounds: h.Bounds, done: make(chan struct{})}
	ctx, r.stop = context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		_ = wait.PollUntilContextCancel(ctx, interval, false, func(ctx context.Context) (bool, error) {
			r.take(ctx)
			return false, nil
		})
	}()
	return r, nil
}

// setLever notes the lever's value from now on (the governor's steps).
func (r *seriesRecorder) setLever(v float64) {
	r.mu.Lock()
	r.lever = v
	r.mu.Unlock()
}

func (r *seriesRecorder) take(ctx context.Context) {
	h, err := r.scraper.Scrape(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errs++
		return
	}
	d := h.Sub(r.last)
	r.last = h
	r.steps = append(r.steps, governor.SeriesStep{T: time.Since(r.start).Seconds(), Counts: d.Buckets(), Lever: r.lever})
}

// finish takes a last scrape (the stage's end) and returns the series.
func (r *seriesRecorder) finish(ctx context.Context) governor.Series {
	r.stop()
	<-r.done
	r.take(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return governor.Series{IntervalS: r.interval.Seconds(), BoundsS: r.bounds, Steps: r.steps}
}

// writeSeries writes one trial's series as a standalone file (the shape
// governor.LoadSeries reads), for the law's testdata.
func writeSeries(dir string, t trial, s governor.Series) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("round%d-%s.json", t.Round, t.Arm)), append(b, '\n'), 0o644)
}
