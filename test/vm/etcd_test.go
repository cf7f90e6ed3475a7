//go:build vm

package vm_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcdLoad writes to the guest's etcd through the hostfwd port, so its WAL
// fsyncs compete with the stage on the node's disk, and reads its fsync
// histogram for the test's own judgement.
type etcdLoad struct {
	addr string
	cli  *clientv3.Client
	puts atomic.Int64
}

func newEtcdLoad(ctx context.Context, addr string) (*etcdLoad, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://" + addr}, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	e := &etcdLoad{addr: addr, cli: cli}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := cli.Put(pctx, "/tandem-vm/ready", "1")
		cancel()
		if err == nil {
			return e, nil
		}
		if time.Now().After(deadline) {
			cli.Close()
			return nil, fmt.Errorf("the guest's etcd never took a write within 5m: %w", err)
		}
		time.Sleep(2 * time.Second)
	}
}

// run puts small keys, one at a time, until ctx ends (every put is a WAL
// fsync).
func (e *etcdLoad) run(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		val := strings.Repeat("x", 512)
		for i := 0; ctx.Err() == nil; i++ {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if _, err := e.cli.Put(pctx, fmt.Sprintf("/tandem-vm/load/%d", i%1000), val); err == nil {
				e.puts.Add(1)
			}
			cancel()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return done
}

func (e *etcdLoad) close() { e.cli.Close() }

// fsyncHist is etcd_disk_wal_fsync_duration_seconds: cumulative counts per
// upper bound, and the total.
type fsyncHist struct {
	buckets map[float64]uint64
	count   uint64
}

// fsyncs reads etcd's WAL fsync histogram from its /metrics (Prometheus
// text format).
func (e *etcdLoad) fsyncs(ctx context.Context) (fsyncHist, error) {
	h := fsyncHist{buckets: map[float64]uint64{}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+e.addr+"/metrics", nil)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	const name = "etcd_disk_wal_fsync_duration_seconds"
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, name+"_bucket{"):
			le := l[strings.Index(l, `le="`)+4:]
			le = le[:strings.Index(le, `"`)]
			f := strings.Fields(l)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			bound := math.Inf(1)
			if le != "+Inf" {
				bound, _ = strconv.ParseFloat(le, 64)
			}
			h.buckets[bound] = uint64(v)
		case strings.HasPrefix(l, name+"_count"):
			f := strings.Fields(l)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			h.count = uint64(v)
		}
	}
	if h.count == 0 && len(h.buckets) == 0 {
		return h, fmt.Errorf("no %s in etcd's metrics", name)
	}
	return h, sc.Err()
}

// slowerThan counts the fsyncs since earlier that took longer than bound
// (which must be one of etcd's bucket bounds), and all fsyncs since.
func (h fsyncHist) slowerThan(earlier fsyncHist, bound time.Duration) (slow, total uint64) {
	total = h.count - earlier.count
	within := h.buckets[bound.Seconds()] - earlier.buckets[bound.Seconds()]
	return total - within, total
}
