package world

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

// etcd's own disk latency histograms, the SLO figures upgrade CI should
// watch (seed #1897): the WAL fdatasync and the backend (bbolt) commit.
const (
	walFsyncMetric      = governor.WALFsyncMetric
	backendCommitMetric = "etcd_disk_backend_commit_duration_seconds"
)

// DefaultEtcdBaseline is how long a rollout samples etcd before it
// publishes the update.
const DefaultEtcdBaseline = 30 * time.Second

// EtcdSLO is the p99 of etcd's WAL fsync and backend commit durations over
// every tenant member, before the rollout (a baseline at rest) and during
// it. It is printed, not judged: on a shared machine the figures move with
// the load of everything else.
type EtcdSLO struct {
	Baseline                             time.Duration
	WALFsyncP99Before, WALFsyncP99During float64 // milliseconds
	CommitP99Before, CommitP99During     float64 // milliseconds
	// Samples counts the observations behind each phase's WAL figure.
	WALSamplesBefore, WALSamplesDuring uint64
	// ScrapeErrors counts failed scrapes (a member down for its reboot).
	ScrapeErrors int
	// Masters are each master's own figures: its member before the
	// rollout and during its own stage (Summary.Print, MasterLines).
	Masters []MasterEtcd
}

// Line is the figure line the e2e-upgrade and make run print.
func (s *EtcdSLO) Line() string {
	return fmt.Sprintf("e2e-etcd: wal_fsync_p99_ms_before=%.2f wal_fsync_p99_ms_during=%.2f commit_p99_ms_before=%.2f commit_p99_ms_during=%.2f",
		s.WALFsyncP99Before, s.WALFsyncP99During, s.CommitP99Before, s.CommitP99During)
}

// etcdSLOSampler scrapes every member's /metrics every interval and adds
// what each member observed since its previous scrape to the current phase.
// Scraping often matters: a member's counters restart with it, so what it
// observed after its last scrape before a reboot is lost; a short interval
// keeps that loss to a few seconds.
type etcdSLOSampler struct {
	urls     []string
	interval time.Duration
	client   http.Client
	cancel   context.CancelFunc
	done     chan struct{}

	mu     sync.Mutex
	last   map[string][2]governor.Histogram // per member: WAL, commit
	phases [2][2]governor.Histogram         // before/during x WAL/commit
	phase  int
	errors int
	// steps keeps, per member, each scrape's WAL delta: what the member
	// observed since its previous scrape, so a figure can be taken over
	// any window (a master's own stage) afterwards.
	steps map[string][]walStep
}

// walStep is what one member's WAL fsync histogram gained between two
// scrapes, the later taken at At.
type walStep struct {
	At    time.Time
	Phase int
	WAL   governor.Histogram
}

func (w *World) startEtcdSLO(ctx context.Context) *etcdSLOSampler {
	s := &etcdSLOSampler{interval: 2 * time.Second, client: http.Client{Timeout: 2 * time.Second},
		last: map[string][2]governor.Histogram{}, done: make(chan struct{})}
	for i := range w.Etcd.Size() {
		s.urls = append(s.urls, w.Etcd.MemberMetricsURL(i)+"/metrics")
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.scrape(ctx) // the starting point of every member
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.scrape(ctx)
			}
		}
	}()
	return s
}

// scrape adds every member's observations since its last scrape.
func (s *etcdSLOSampler) scrape(ctx context.Context) {
	for _, u := range s.urls {
		cur, err := s.fetch(ctx, u)
		s.mu.Lock()
		if err != nil {
			s.errors++
			s.mu.Unlock()
			continue
		}
		if prev, ok := s.last[u]; ok {
			for k := range cur {
				// Sub: a counter reset (the member restarted) counts from zero.
				s.phases[s.phase][k] = s.phases[s.phase][k].Add(cur[k].Sub(prev[k]))
			}
			if s.steps == nil {
				s.steps = map[string][]walStep{}
			}
			s.steps[u] = append(s.steps[u], walStep{At: time.Now(), Phase: s.phase, WAL: cur[0].Sub(prev[0])})
		}
		s.last[u] = cur
		s.mu.Unlock()
	}
}

func (s *etcdSLOSampler) fetch(ctx context.Context, url string) ([2]governor.Histogram, error) {
	var out [2]governor.Histogram
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return out, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return out, err
	}
	for k, name := range []string{walFsyncMetric, backendCommitMetric} {
		if out[k], err = governor.ParseHistogram(bytes.NewReader(body), name); err != nil {
			return out, fmt.Errorf("%s: %w", url, err)
		}
	}
	return out, nil
}

func p99(h governor.Histogram) float64 {
	q, _ := h.Quantile(0.99)
	return q * 1000
}

// memberWAL sums member i's WAL steps of the baseline (before) and those
// whose scrape interval ends within [from, to+interval] (a window of the
// rollout): the scrape after a window's end still holds its last seconds.
func (s *etcdSLOSampler) memberWAL(i int, from, to time.Time) (before, during governor.Histogram) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.steps[s.urls[i]] {
		switch {
		case st.Phase == 0:
			before = before.Add(st.WAL)
		case st.At.After(from) && !st.At.After(to.Add(s.interval)):
			during = during.Add(st.WAL)
		}
	}
	return before, during
}

// startDuring closes the baseline and starts the rollout's phase.
func (s *etcdSLOSampler) startDuring(ctx context.Context) {
	s.scrape(ctx)
	s.mu.Lock()
	s.phase = 1
	s.mu.Unlock()
}

// stop takes a last scrape and returns the figures.
func (s *etcdSLOSampler) stop(ctx context.Context, baseline time.Duration) *EtcdSLO {
	s.cancel()
	<-s.done
	s.scrape(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	return &EtcdSLO{
		Baseline:          baseline,
		WALFsyncP99Before: p99(s.phases[0][0]), WALFsyncP99During: p99(s.phases[1][0]),
		CommitP99Before: p99(s.phases[0][1]), CommitP99During: p99(s.phases[1][1]),
		WALSamplesBefore: s.phases[0][0].Count, WALSamplesDuring: s.phases[1][0].Count,
		ScrapeErrors: s.errors,
	}
}

// etcdBaseline samples etcd at rest for d (DefaultEtcdBaseline when 0)
// before a rollout and returns the sampler, now in its rollout phase; nil
// when d is negative (no figures wanted).
func (w *World) etcdBaseline(ctx context.Context, d time.Duration) (*etcdSLOSampler, time.Duration) {
	if d < 0 || w.Etcd == nil {
		return nil, 0
	}
	if d == 0 {
		d = DefaultEtcdBaseline
	}
	w.Opts.Logf("world: sampling etcd's disk latency at rest for %s before the rollout", d)
	s := w.startEtcdSLO(ctx)
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
	s.startDuring(ctx)
	return s, d
}
