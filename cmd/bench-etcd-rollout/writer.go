package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// writer puts at a steady rate (open loop: a slow put does not delay the
// next one), each with its own timeout, and records every put's latency and
// outcome until take.
type writer struct {
	cli     *clientv3.Client
	rate    int
	timeout time.Duration

	mu        sync.Mutex
	latencies []time.Duration
	failed    int
	errs      map[string]int // failed puts by error
	dropped   int            // writes etcd dropped unapplied, retried
	inflight  sync.WaitGroup
}

func (w *writer) run(ctx context.Context) {
	t := time.NewTicker(time.Second / time.Duration(w.rate))
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			w.inflight.Wait()
			return
		case <-t.C:
		}
		w.inflight.Add(1)
		go func(i int) {
			defer w.inflight.Done()
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
			defer cancel()
			start := time.Now()
			_, err := w.cli.Put(pctx, fmt.Sprintf("bench/key-%d", i%1000), fmt.Sprintf("value-%d", i))
			d := time.Since(start)
			w.mu.Lock()
			defer w.mu.Unlock()
			w.latencies = append(w.latencies, d)
			if err != nil {
				w.failed++
				if w.errs == nil {
					w.errs = map[string]int{}
				}
				w.errs[err.Error()]++
			}
		}(i)
	}
}

// retried counts a write retried by pkg/etcd's RetryUnapplied.
func (w *writer) retried(string, error) {
	w.mu.Lock()
	w.dropped++
	w.mu.Unlock()
}

// take returns what was recorded since the last take: the latencies, the
// failed puts, the dropped-and-retried ones and the failures' errors.
func (w *writer) take() (latencies []time.Duration, failed, retried int, errs map[string]int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	latencies, failed, retried, errs = w.latencies, w.failed, w.dropped, w.errs
	w.latencies, w.failed, w.dropped, w.errs = nil, 0, 0, nil
	return latencies, failed, retried, errs
}
