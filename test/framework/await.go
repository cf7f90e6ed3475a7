package framework

import (
	"context"
	"fmt"
	"time"
)

// DefaultWait bounds a test's wait for one thing when the test names no
// bound of its own: well inside any test binary's -timeout, so a stuck wait
// fails with what it saw instead of hanging the run.
const DefaultWait = 3 * time.Minute

// Await polls cond every interval until it reports done, at most bound (and
// never past ctx). cond says what it saw; on timeout the error names what
// was awaited, the bound and the last state, so a stuck test shows where it
// stopped. An error from cond ends the wait at once.
func Await(ctx context.Context, what string, bound, interval time.Duration, cond func(ctx context.Context) (done bool, state string, err error)) error {
	if bound <= 0 {
		bound = DefaultWait
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	last := "(nothing observed yet)"
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, state, err := cond(ctx)
		if state != "" {
			last = state
		}
		if err != nil {
			return fmt.Errorf("waiting for %s: %w; last seen: %s", what, err, last)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: gave up after %s (%v); last seen: %s", what, bound, ctx.Err(), last)
		case <-t.C:
		}
	}
}
