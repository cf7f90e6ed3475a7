package world

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

var fakeBounds = []string{"0.001", "0.002", "0.004", "0.008", "0.016", "0.032"}

// fakeMember serves etcd's two disk histograms, cumulative as etcd keeps
// them.
type fakeMember struct {
	mu  sync.Mutex
	cum [2][]int // WAL, commit: count <= fakeBounds[i]
	n   [2]int
}

func newFakeMember() *fakeMember {
	return &fakeMember{cum: [2][]int{make([]int, len(fakeBounds)), make([]int, len(fakeBounds))}}
}

func (f *fakeMember) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, name := range []string{walFsyncMetric, backendCommitMetric} {
		fmt.Fprintf(w, "# TYPE %s histogram\n", name)
		for i, le := range fakeBounds {
			fmt.Fprintf(w, "%s_bucket{le=%q} %d\n", name, le, f.cum[k][i])
		}
		fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum 0\n%s_count %d\n", name, f.n[k], name, name, f.n[k])
	}
}

// observe records n observations of histogram k in the bucket ending at le.
func (f *fakeMember) observe(k, n int, le string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range fakeBounds {
		if b >= le {
			f.cum[k][i] += n
		}
	}
	f.n[k] += n
}

// restart zeroes the counters, as a restarted etcd does.
func (f *fakeMember) restart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cum = [2][]int{make([]int, len(fakeBounds)), make([]int, len(fakeBounds))}
	f.n = [2]int{}
}

// The p99 of each phase is that of what the members observed in it, added
// over members, and a member that restarts (its counters back to zero) is
// counted from zero, not subtracted. The oracle is histogram_quantile's
// interpolation done by hand: n observations all in (lo, hi] give
// lo + 0.99*(hi-lo).
func TestEtcdSLOPhases(t *testing.T) {
	a, b := newFakeMember(), newFakeMember()
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	// History from before the sampler started does not count.
	a.observe(0, 100, "0.032")
	b.observe(0, 50, "0.032")
	s := &etcdSLOSampler{urls: []string{sa.URL, sb.URL}, last: map[string][2]governor.Histogram{}, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	close(s.done)
	s.scrape(ctx)
	// Before: 100 fast fsyncs (<= 1 ms), commits in (2, 4] ms.
	a.observe(0, 100, "0.001")
	a.observe(1, 100, "0.004")
	s.startDuring(ctx)
	// During: member a slow, fsyncs in (8, 16] ms; member b restarts and
	// observes 10 from zero, as slow.
	a.observe(0, 100, "0.016")
	a.observe(1, 100, "0.032")
	b.restart()
	b.observe(0, 10, "0.016")
	b.observe(1, 10, "0.032")
	got := s.stop(context.Background(), 0)
	if got.WALSamplesBefore != 100 || got.WALSamplesDuring != 110 {
		t.Fatalf("samples before %d during %d, want 100 and 110", got.WALSamplesBefore, got.WALSamplesDuring)
	}
	approx := func(name string, v, want float64) {
		if v < want-0.01 || v > want+0.01 {
			t.Errorf("%s = %.3f ms, want %.3f", name, v, want)
		}
	}
	approx("wal before", got.WALFsyncP99Before, 0.99)   // (0, 1]
	approx("commit before", got.CommitP99Before, 3.98)  // (2, 4]
	approx("wal during", got.WALFsyncP99During, 15.92)  // (8, 16]
	approx("commit during", got.CommitP99During, 31.84) // (16, 32]
	if !strings.HasPrefix(got.Line(), "e2e-etcd: wal_fsync_p99_ms_before=0.99 wal_fsync_p99_ms_during=15.92 commit_p99_ms_before=3.98 commit_p99_ms_during=31.84") {
		t.Errorf("line %q", got.Line())
	}
}
