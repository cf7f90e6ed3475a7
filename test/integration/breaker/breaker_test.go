//go:build integration

// Package breaker runs the pool's circuit breaker in the world, on both
// sides of its grace: a blip (a node Degraded for a few seconds on a good
// update) must open nothing and unstage nothing, and a bad update (an OS
// image that fails to boot on the tenant workers) must stop the rollout
// after K nodes failed for the grace, and the nodes that had staged the
// bad OS ahead must discard it (rpm-ostree cleanup -p). The harness only
// makes the fault, publishes and watches.
package breaker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/world"
)

// The pool's grace (constants.FailedNodeGraceAnnotation) in each part: long
// enough that a blip the harness ends as soon as the controller has seen it
// stays a blip, short enough that the failure opens the breaker soon.
const (
	blipGrace    = 3 * time.Minute
	failureGrace = 20 * time.Second
)

func TestBreakerStopsABadUpdate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
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

	t.Run("a blip opens nothing and unstages nothing", func(t *testing.T) {
		runBlip(ctx, t, w)
	})
	if t.Failed() {
		return
	}
	t.Run("a registry outage fails every stage and takes no node out", func(t *testing.T) {
		runStageFailure(ctx, t, w)
	})
	if t.Failed() {
		return
	}

	res, err := w.BadUpdate(ctx, world.BadUpdateOptions{MaxFailedNodes: k, FailedNodeGrace: failureGrace.String()})
	if res != nil {
		t.Logf("bad update %s: failed %v (Degraded since %v), granted %v (after halt %v), staged ahead %v, unstaged %v; halted at %s: %s",
			res.Target, res.Failed, res.DegradedSince, res.Granted, res.GrantedAfterHalt, res.StagedAhead, res.Unstaged, res.HaltedSince, res.Halted)
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
	// The grace: the breaker opened no sooner than the grace after the
	// first failed node's Degraded condition turned True (both times are
	// the apiserver's, to the second).
	var first time.Time
	for _, since := range res.DegradedSince {
		if first.IsZero() || since.Before(first) {
			first = since
		}
	}
	switch {
	case first.IsZero():
		t.Errorf("no failed node's MachineConfigNode shows NodeDegraded True: %v", res.DegradedSince)
	case res.HaltedSince.Sub(first) < failureGrace-time.Second:
		t.Errorf("halted at %s, %s after the first node turned Degraded (%s): sooner than the %s grace",
			res.HaltedSince, res.HaltedSince.Sub(first), first, failureGrace)
	}
	if len(res.StagedAhead) == 0 {
		t.Error("no node had staged the bad OS ahead: the unstaging was not exercised")
	}
	for _, n := range res.StagedAhead {
		if !slices.Contains(res.Unstaged, n) {
			t.Errorf("node %s staged the bad OS ahead and was not unstaged with cleanup -p", n)
		}
	}
	fmt.Printf("breaker: k=%d failed=%d granted=%d staged_ahead=%d unstaged=%d granted_after_halt=%d grace_s=%d halted_after_s=%d\n",
		k, len(res.Failed), len(res.Granted), len(res.StagedAhead), len(res.Unstaged), len(res.GrantedAfterHalt),
		int(failureGrace.Seconds()), int(res.HaltedSince.Sub(first).Seconds()))
}

// runBlip rolls a good update out to the tenant workers while one of them
// cannot write the update's file: a directory stands where the file goes,
// so its daemon's WriteFiles fails and it reports Degraded, retrying. Once
// the controller shows the failure as pending, the harness removes the
// directory and the node's next retry succeeds.
func runBlip(ctx context.Context, t *testing.T, w *world.World) {
	node := blipNode(t, w)
	tenant := w.Tenant
	setPoolGrace(ctx, t, tenant, constants.WorkerPool, blipGrace)
	watch := watchPool(ctx, t, tenant, constants.WorkerPool)
	obstacle, err := placeObstacle(w, node)
	if err != nil {
		t.Fatal(err)
	}
	seen := &blipSeen{}
	sum, err := w.Rollout(ctx, world.RolloutOptions{Pools: []string{"tenant/" + constants.WorkerPool}, Timeout: 10 * time.Minute,
		EtcdBaseline: -1, Faults: []world.Fault{blipFault(node, obstacle, seen)}})
	if sum != nil {
		for _, f := range sum.Faults {
			if f.Err != "" {
				t.Errorf("fault %s: %s", f.Name, f.Err)
			}
		}
		for _, inv := range sum.Invariants {
			if inv.Name == "maxUnavailable never exceeded" && !inv.OK {
				t.Errorf("%s: %s", inv.Name, inv.Detail)
			}
		}
	}
	if err != nil {
		t.Fatalf("the rollout with a blip on %s: %v (logs under %s)", node, err, w.Opts.Dir)
	}
	t.Logf("blip on %s: Degraded since %s, pending shown as %q, obstacle removed at %s", node, seen.degradedSince, seen.pending, seen.removedAt)
	halted, withdrawn := watch.results()
	if halted != "" {
		t.Errorf("the blip halted the pool: RolloutHalted True (%s)", halted)
	}
	if n := countPoolEvents(ctx, t, tenant, constants.WorkerPool, "RolloutHalted"); n > 0 {
		t.Errorf("the blip halted the pool: %d RolloutHalted event(s)", n)
	}
	if len(withdrawn) > 0 {
		t.Errorf("the blip unstaged nodes (stageConfig withdrawn before their grant): %v", withdrawn)
	}
	if seen.degradedSince.IsZero() || seen.pending == "" {
		t.Errorf("the blip was not a blip the controller saw: Degraded since %v, pending %q", seen.degradedSince, seen.pending)
	}
	fmt.Printf("breaker-blip: node=%s degraded_s=%d grace_s=%d halted=%v unstaged=%d\n", node,
		int(seen.removedAt.Sub(seen.degradedSince).Seconds()), int(blipGrace.Seconds()), halted != "", len(withdrawn))
}

// runStageFailure: one cause (the registry refuses every pull) fails every
// worker's stage at once. A stage touches neither the running OS nor the
// workloads, so no node may leave service for it, no node may keep a grant
// it cannot stage, and the pool must say why. Judged from the nodes' own
// annotations and spec (the MCO's unavailable count), not from the
// controller's view.
func runStageFailure(ctx context.Context, t *testing.T, w *world.World) {
	res, err := w.StageFailure(ctx, world.StageFailureOptions{})
	if res != nil {
		reason := res.PoolReason
		if len(reason) > 160 {
			reason = "..." + reason[len(reason)-160:]
		}
		fmt.Printf("stage-failure: nodes=%d failed_stages=%d unavailable=%d grants_kept=%d recovered_s=%d reason=%q\n",
			res.Nodes, res.FailedStages, res.MaxUnavailable, len(res.GrantsKept), int(res.Recovered.Seconds()), reason)
	}
	if err != nil {
		t.Fatalf("%v (logs under %s)", err, w.Opts.Dir)
	}
	if res.MaxUnavailable != 0 {
		t.Errorf("%d nodes out of service at once during the outage (%v): a failed stage must leave a node in service", res.MaxUnavailable, res.UnavailableSeen)
	}
	if len(res.GrantsKept) != 0 {
		t.Errorf("nodes kept a grant they cannot stage: %v", res.GrantsKept)
	}
	if !strings.Contains(res.PoolReason, "503") && !strings.Contains(res.PoolReason, "Service Unavailable") {
		t.Errorf("the pool's StagesFailed reason %q does not say the registry refused the pull", res.PoolReason)
	}
}
