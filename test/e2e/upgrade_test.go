//go:build e2e

// Package e2e runs the e2e-upgrade: the whole staged rolling upgrade of a DPU
// cluster pair on this machine (test/world), with a daemon killed and a node
// power-cycled in the middle, and checks every invariant.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/test/world"
)

func TestE2EUpgrade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	w, err := world.Start(ctx, world.Options{
		Dir:        t.TempDir(),
		Workers:    4,
		DPUs:       3,
		ImageBytes: 4 << 20,
		Logf:       t.Logf,
	})
	if err != nil {
		t.Fatalf("starting the world: %v", err)
	}
	defer w.Stop()

	sum, err := w.Rollout(ctx, world.RolloutOptions{
		KillDaemon: "worker-1",
		PowerCycle: "worker-2",
		Table:      os.Stdout,
		TableEvery: 15 * time.Second,
	})
	if sum != nil {
		sum.Print(os.Stdout)
		fmt.Printf("e2e-upgrade: nodes=%d leader_changes=%d max_unavailable_seen=%d invariant_violations=%d duration_s=%.0f\n",
			sum.Nodes, sum.LeaderChanges, sum.MaxUnavailableSeenOverall(), sum.Violations(), sum.Duration.Seconds())
	}
	if err != nil {
		t.Fatalf("rollout: %v (logs under %s)", err, w.Opts.Dir)
	}
	for _, inv := range sum.Invariants {
		if !inv.OK {
			t.Errorf("invariant %q violated: %s", inv.Name, inv.Detail)
		}
	}
}
