//go:build integration

// Package breaker runs a bad update in the world: an OS image that fails to
// boot on the tenant workers. The pool's circuit breaker must stop the
// rollout after K failed nodes, and the nodes that had staged the bad OS
// ahead must discard it (rpm-ostree cleanup -p), without the harness doing
// anything but publishing the update and watching.
package breaker

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/test/world"
)

func TestBreakerStopsABadUpdate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	const k = 1
	w, err := world.Start(ctx, world.Options{
		Dir:                  t.TempDir(),
		Masters:              1,
		Workers:              5,
		DPUs:                 1,
		ImageBytes:           2 << 20,
		WorkerMaxUnavailable: 2,
		Logf:                 t.Logf,
	})
	if err != nil {
		t.Fatalf("starting the world: %v", err)
	}
	defer w.Stop()

	res, err := w.BadUpdate(ctx, world.BadUpdateOptions{MaxFailedNodes: k})
	if res != nil {
		t.Logf("bad update %s: failed %v, granted %v (after halt %v), staged ahead %v, unstaged %v; halted: %s",
			res.Target, res.Failed, res.Granted, res.GrantedAfterHalt, res.StagedAhead, res.Unstaged, res.Halted)
	}
	if err != nil {
		t.Fatalf("%v (logs under %s)", err, w.Opts.Dir)
	}
	// Written from the breaker's contract: at least K nodes failed before
	// it opened, and it opened before more could start: besides the nodes
	// in flight when the K-th failed (at most maxUnavailable at once), no
	// node was granted the bad config, and none after the halt.
	if len(res.Failed) < k {
		t.Errorf("failed nodes %v, want at least %d", res.Failed, k)
	}
	if len(res.Granted) > k-1+res.MaxUnavailable {
		t.Errorf("granted %v: more than K-1+maxUnavailable=%d nodes got the bad update", res.Granted, k-1+res.MaxUnavailable)
	}
	if len(res.GrantedAfterHalt) > 0 {
		t.Errorf("granted after the breaker opened: %v", res.GrantedAfterHalt)
	}
	if res.Halted == "" {
		t.Error("RolloutHalted never became True")
	}
	if len(res.StagedAhead) == 0 {
		t.Error("no node had staged the bad OS ahead: the unstaging was not exercised")
	}
	for _, n := range res.StagedAhead {
		if !slices.Contains(res.Unstaged, n) {
			t.Errorf("node %s staged the bad OS ahead and was not unstaged with cleanup -p", n)
		}
	}
	fmt.Printf("breaker: k=%d failed=%d granted=%d staged_ahead=%d unstaged=%d granted_after_halt=%d\n",
		k, len(res.Failed), len(res.Granted), len(res.StagedAhead), len(res.Unstaged), len(res.GrantedAfterHalt))
}
