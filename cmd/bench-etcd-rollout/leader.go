package main

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaderWatch polls every member's status and counts leader changes: a
// change is a newly observed leader (by the highest raft term answering)
// different from the last one seen. Leaderless gaps are not changes.
type leaderWatch struct {
	cli  *clientv3.Client
	urls []string

	mu      sync.Mutex
	last    uint64
	changes int
}

func newLeaderWatch(cli *clientv3.Client, urls []string) *leaderWatch {
	return &leaderWatch{cli: cli, urls: urls}
}

func (w *leaderWatch) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.observe(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (w *leaderWatch) observe(ctx context.Context) {
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		term   uint64
		leader uint64
	)
	for _, u := range w.urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			st, err := w.cli.Status(sctx, u)
			if err != nil || st.Leader == 0 {
				return
			}
			mu.Lock()
			if st.RaftTerm >= term {
				term, leader = st.RaftTerm, st.Leader
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if leader == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last != 0 && leader != w.last {
		w.changes++
	}
	w.last = leader
}

// take returns the changes counted since the last take.
func (w *leaderWatch) take() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.changes
	w.changes = 0
	return n
}
