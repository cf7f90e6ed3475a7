//go:build e2e

// Package e2e runs the e2e-upgrade: the whole staged rolling upgrade of a DPU
// cluster pair on this machine (test/world), with a daemon killed and a node
// power-cycled in the middle, and checks every invariant. Then, in the same
// world, one more rollout per fault (issue 16): kill -9 of the tenant
// controller, a kube-apiserver restart, a worker NotReady for 30 s and
// SIGKILL of an etcd follower, each judged by every invariant on its own.
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
	ctx, cancel := context.WithTimeout(context.Background(), 35*time.Minute)
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
		if sum.EtcdSLO != nil {
			fmt.Println(sum.EtcdSLO.Line())
			for _, l := range sum.EtcdSLO.MasterLines() {
				fmt.Println(l)
			}
		}
	}
	if err != nil {
		t.Fatalf("rollout: %v (logs under %s)", err, w.Opts.Dir)
	}
	failed(t, sum)

	// One more rollout per fault, in the same world: each starts from a
	// cluster at rest on the previous rollout's image.
	faults := []world.Fault{
		world.FaultKillController("tenant"),
		world.FaultRestartAPIServer("tenant"),
		world.FaultNodeNotReady(30 * time.Second),
		world.FaultKillEtcdFollower(),
	}
	for i, f := range faults {
		version := 3 + i
		sum, err := w.Rollout(ctx, world.RolloutOptions{
			Version:      version,
			Faults:       []world.Fault{f},
			EtcdBaseline: -1,
			Table:        os.Stdout,
			TableEvery:   30 * time.Second,
		})
		if sum != nil {
			sum.Print(os.Stdout)
			made := 0
			for _, r := range sum.Faults {
				if r.Err == "" {
					made++
				}
			}
			fmt.Printf("e2e-fault: fault=%s version=%d faults_made=%d leader_changes=%d max_unavailable_seen=%d invariant_violations=%d duration_s=%.0f\n",
				f.ID, version, made, sum.LeaderChanges, sum.MaxUnavailableSeenOverall(), sum.Violations(), sum.Duration.Seconds())
		}
		if err != nil {
			t.Fatalf("rollout with fault %q: %v (logs under %s)", f.Name, err, w.Opts.Dir)
		}
		failed(t, sum)
	}
}

func failed(t *testing.T, sum *world.Summary) {
	t.Helper()
	for _, inv := range sum.Invariants {
		if !inv.OK {
			t.Errorf("invariant %q violated: %s", inv.Name, inv.Detail)
		}
	}
}
