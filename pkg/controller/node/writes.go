package node

import (
	"context"
	"sync"
	"time"
)

// ConcurrentWriter is a NodeWriter that may be called from several
// goroutines at once, up to Concurrency calls in flight. A NodeWriter that
// is not one gets its writes one at a time, in order.
type ConcurrentWriter interface {
	NodeWriter
	Concurrency() int
}

// assignmentWrite is one annotation a plan sets.
type assignmentWrite struct {
	a   Assignment
	key string
}

// writeAssignments makes a plan's writes, each expected before it is made
// (writeExpected), in order or with the writer's concurrency. After the
// first failure no further write starts; it returns that failure once the
// writes in flight have answered.
func writeAssignments(ctx context.Context, adm *Admission, w NodeWriter, writes []assignmentWrite, now time.Time) error {
	workers := 1
	if cw, ok := w.(ConcurrentWriter); ok {
		workers = max(cw.Concurrency(), 1)
	}
	if workers == 1 || len(writes) < 2 {
		for _, x := range writes {
			if err := writeExpected(ctx, adm, w, x.a.Node, x.key, x.a.Config, now); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return first != nil }
	next := make(chan assignmentWrite)
	for range min(workers, len(writes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range next {
				if err := writeExpected(ctx, adm, w, x.a.Node, x.key, x.a.Config, now); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, x := range writes {
		if failed() {
			break
		}
		next <- x
	}
	close(next)
	wg.Wait()
	return first
}
