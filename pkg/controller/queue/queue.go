// Package queue holds the client-go workqueue worker loop that tandem's
// controllers share: take a key, sync it, and forget it, requeue it after a
// delay or retry it rate-limited.
package queue

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// SyncFunc handles one key. A requeueAfter above zero asks for another look
// after that long even if nothing changes; an error retries the key with the
// queue's rate limiter.
type SyncFunc func(ctx context.Context, key string) (requeueAfter time.Duration, err error)

// NoRequeue adapts a sync that only ever retries on error.
func NoRequeue(sync func(ctx context.Context, key string) error) SyncFunc {
	return func(ctx context.Context, key string) (time.Duration, error) {
		return 0, sync(ctx, key)
	}
}

// Workers is one controller's worker loop.
type Workers struct {
	Queue workqueue.TypedRateLimitingInterface[string]
	Sync  SyncFunc
	// KeyName labels the key in log lines ("node", "pool"); empty leaves
	// the key out (a controller with a single key).
	KeyName string
	// FailureMessage is logged with a failed sync's error.
	FailureMessage string
	// QuietConflicts logs write conflicts at V(2) rather than as errors:
	// they only mean a write raced with the informer cache, and the retry
	// reads it fresh.
	QuietConflicts bool
}

// WaitForCaches waits for the informers' caches; the error names the
// controller (what) and wraps ctx's error.
func WaitForCaches(ctx context.Context, name, what string, synced ...cache.InformerSynced) error {
	if !cache.WaitForNamedCacheSync(name, ctx.Done(), synced...) {
		return fmt.Errorf("%s did not sync: %w", what, ctx.Err())
	}
	return nil
}

// Run starts n workers and returns when ctx ends. The caller shuts the
// queue down, which stops workers blocked on it.
func (w Workers) Run(ctx context.Context, n int) {
	for range n {
		go wait.UntilWithContext(ctx, w.work, time.Second)
	}
	<-ctx.Done()
}

func (w Workers) work(ctx context.Context) {
	for w.ProcessNext(ctx) {
	}
}

// ProcessNext handles the next key; it returns false once the queue is shut
// down.
func (w Workers) ProcessNext(ctx context.Context) bool {
	key, quit := w.Queue.Get()
	if quit {
		return false
	}
	defer w.Queue.Done(key)
	requeue, err := w.Sync(ctx, key)
	switch {
	case err != nil:
		w.logFailure(ctx, key, err)
		w.Queue.AddRateLimited(key)
	case requeue > 0:
		w.Queue.Forget(key)
		w.Queue.AddAfter(key, requeue)
	default:
		w.Queue.Forget(key)
	}
	return true
}

func (w Workers) logFailure(ctx context.Context, key string, err error) {
	logger := klog.FromContext(ctx)
	if w.KeyName != "" {
		logger = logger.WithValues(w.KeyName, key)
	}
	if w.QuietConflicts && apierrors.IsConflict(err) {
		logger.V(2).Info("Write conflict; will retry", "err", err.Error())
		return
	}
	logger.Error(err, w.FailureMessage)
}

// New returns a rate-limited queue with client-go's default controller rate
// limiter, named name in the workqueue metrics.
func New(name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// Serve is a controller's Run: it names the controller in ctx's logger,
// waits for the caches (what names them in the error), runs n workers until
// ctx ends and shuts the queue down.
func (w Workers) Serve(ctx context.Context, controller, what string, n int, synced ...cache.InformerSynced) error {
	defer w.Queue.ShutDown()
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("controller", controller))
	if err := WaitForCaches(ctx, controller, what, synced...); err != nil {
		return err
	}
	w.Run(ctx, n)
	return nil
}
