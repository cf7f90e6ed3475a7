package world

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// A master's figure is its own member's: at rest from the baseline, during
// from the scrapes that end within its stage window (or one interval
// after); the nodes listed are those whose windows overlap its own; the
// window comes from the Staged condition: it ends at the transition and
// began to write Took-Prepared before.
func TestMastersEtcd(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	staged := func(endS int, msg string) []metav1.Condition {
		return []metav1.Condition{
			{Type: "UpdatePrepared", Status: metav1.ConditionTrue},
			{Type: "ImagePulledFromRegistry", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(at(endS)), Message: msg},
		}
	}
	win, ok := stageWindowOf(staged(40, "Staged i for c, finalization-locked as ab (9 bytes written in 25s; I/O policy adaptive, governor target 2ms (2x idle 1ms); writing began after 5s)"), at(0))
	if !ok || !win.From.Equal(at(20)) || !win.To.Equal(at(40)) || win.IO != "adaptive, governor target 2ms (2x idle 1ms)" {
		t.Fatalf("window %+v %v", win, ok)
	}
	if _, ok := stageWindowOf(staged(40, "Staged ... (9 bytes written in 25s)"), at(41)); ok {
		t.Fatal("a stage from before the rollout counted")
	}
	windows := map[string]stageWindow{
		"master-0": win,
		"worker-0": {From: at(35), To: at(50)}, // overlaps master-0's end
		"worker-1": {From: at(41), To: at(60)}, // after it
		"worker-2": {From: at(39), To: at(50)}, // began as it ended: the lock passed on
	}
	fast := fsyncHist(t, 100, 0) // 100 under 1 ms
	slow := fsyncHist(t, 0, 100) // 100 in (8, 16] ms
	steps := map[int][]walStep{
		0: {{At: at(-2), Phase: 0, WAL: fast}, {At: at(22), Phase: 1, WAL: slow}, {At: at(41), Phase: 1, WAL: slow}, {At: at(44), Phase: 1, WAL: fast}},
		1: {{At: at(-2), Phase: 0, WAL: fast}},
	}
	wal := func(i int, from, to time.Time) (before, during governor.Histogram) {
		for _, st := range steps[i] {
			if st.Phase == 0 {
				before = before.Add(st.WAL)
			} else if st.At.After(from) && !st.At.After(to.Add(2*time.Second)) {
				during = during.Add(st.WAL)
			}
		}
		return before, during
	}
	got := mastersEtcd([]string{"master-0", "master-1"}, windows, wal)
	m0, m1 := got[0], got[1]
	// During: the scrapes at 22 s and 41 s (within 2 s of the end), not 44 s.
	if m0.FsyncsDuring != 200 || m0.WALP99During < 15.9 || m0.WALP99During > 16 || m0.WALP99Before > 1 {
		t.Errorf("master-0 %+v", m0)
	}
	if m0.Stage != 20*time.Second || !slices.Equal(m0.Staging, []string{"master-0", "worker-0"}) {
		t.Errorf("master-0 stage %v staging %v", m0.Stage, m0.Staging)
	}
	if m1.Stage != 0 || m1.Staging != nil || m1.WALP99Before > 1 {
		t.Errorf("master-1 (no stage seen) %+v", m1)
	}
	s := &EtcdSLO{Masters: got}
	if l := s.MasterLines(); len(l) != 2 || !strings.HasPrefix(l[0], "e2e-etcd-master: master=master-0 member=master-0 wal_fsync_p99_ms_before=0.99 wal_fsync_p99_ms_during_stage=15.92 fsyncs_during_stage=200 stage_s=20.0 staging=master-0,worker-0 io=") {
		t.Errorf("lines %q", l)
	}
}

// fsyncHist is a WAL delta on fakeBounds: fast under 1 ms, slow in (8,16] ms.
func fsyncHist(t *testing.T, fast, slow uint64) governor.Histogram {
	t.Helper()
	bounds := []float64{0.001, 0.002, 0.004, 0.008, 0.016, 0.032}
	h, err := governor.FromBuckets(bounds, []uint64{fast, 0, 0, 0, slow, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
