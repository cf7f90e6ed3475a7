package queue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
)

func newQueue() workqueue.TypedRateLimitingInterface[string] {
	// A tiny base delay so a rate-limited retry is ready at once.
	return workqueue.NewTypedRateLimitingQueue(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Microsecond, time.Millisecond))
}

func TestProcessNextRetriesFailureThenForgets(t *testing.T) {
	q := newQueue()
	defer q.ShutDown()
	calls := 0
	w := Workers{Queue: q, KeyName: "node", FailureMessage: "failed", Sync: NoRequeue(func(_ context.Context, key string) error {
		calls++
		if calls == 1 {
			return errors.New("first try fails")
		}
		return nil
	})}
	q.Add("a")
	if !w.ProcessNext(context.Background()) {
		t.Fatal("ProcessNext returned false on a live queue")
	}
	if got := q.NumRequeues("a"); got != 1 {
		t.Fatalf("after a failure NumRequeues = %d, want 1", got)
	}
	// The retry arrives through the rate limiter.
	if !w.ProcessNext(context.Background()) {
		t.Fatal("ProcessNext returned false on a live queue")
	}
	if calls != 2 {
		t.Fatalf("sync called %d times, want 2", calls)
	}
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("after a success NumRequeues = %d, want 0 (forgotten)", got)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("queue holds %d keys after success, want 0", got)
	}
}

func TestProcessNextQuietConflictIsRetried(t *testing.T) {
	q := newQueue()
	defer q.ShutDown()
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "a", errors.New("changed"))
	w := Workers{Queue: q, QuietConflicts: true, Sync: NoRequeue(func(context.Context, string) error { return conflict })}
	q.Add("a")
	w.ProcessNext(context.Background())
	if got := q.NumRequeues("a"); got != 1 {
		t.Fatalf("after a conflict NumRequeues = %d, want 1", got)
	}
}

func TestProcessNextRequeueAfter(t *testing.T) {
	q := newQueue()
	defer q.ShutDown()
	w := Workers{Queue: q, Sync: func(context.Context, string) (time.Duration, error) { return time.Millisecond, nil }}
	q.Add("a")
	q.AddRateLimited("a") // a failure history that success must clear
	w.ProcessNext(context.Background())
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues = %d after success, want 0", got)
	}
	// The key comes back by itself after the delay.
	key, quit := q.Get()
	if quit || key != "a" {
		t.Fatalf("Get = %q, %v; want the requeued key", key, quit)
	}
	q.Done(key)
}

func TestProcessNextStopsOnShutDown(t *testing.T) {
	q := newQueue()
	q.ShutDown()
	w := Workers{Queue: q, Sync: NoRequeue(func(context.Context, string) error { return nil })}
	if w.ProcessNext(context.Background()) {
		t.Fatal("ProcessNext returned true on a shut-down queue")
	}
}

func TestRunSyncsKeysAndStopsWithContext(t *testing.T) {
	q := newQueue()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	seen := map[string]int{}
	done := make(chan struct{})
	var once sync.Once
	w := Workers{Queue: q, KeyName: "key", FailureMessage: "failed", Sync: NoRequeue(func(_ context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		seen[key]++
		if key == "flaky" && seen[key] == 1 {
			return errors.New("first try fails")
		}
		if seen["flaky"] == 2 && seen["steady"] == 1 {
			once.Do(func() { close(done) })
		}
		return nil
	})}
	q.Add("flaky")
	q.Add("steady")
	stopped := make(chan struct{})
	go func() {
		w.Run(ctx, 2)
		close(stopped)
	}()
	<-done
	cancel()
	<-stopped
	q.ShutDown() // as the controllers do on the way out
	mu.Lock()
	defer mu.Unlock()
	if seen["flaky"] != 2 || seen["steady"] != 1 {
		t.Fatalf("syncs = %v, want flaky twice and steady once", seen)
	}
}
