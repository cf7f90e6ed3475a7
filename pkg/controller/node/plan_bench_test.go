package node_test

import (
	"fmt"
	"testing"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/scale/planfixture"
)

// BenchmarkPlan times one Plan of a pool mid-rollout (planfixture.Pool) at
// the sizes of issue 14. `make bench-scale` reports the same as ratios
// (the slope) within one run; this is for profiling:
// go test -run XXX -bench Plan -cpuprofile cpu.out ./pkg/controller/node
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{500, 5000, 20000} {
		pool, nodes, facts := planfixture.Pool(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = node.Plan(pool, nodes, facts)
			}
		})
	}
}

// TestPlanFixtureIsMidRollout keeps the benchmark honest: the fixture's
// plan must grant and stage (else the benchmark times an idle pool).
func TestPlanFixtureIsMidRollout(t *testing.T) {
	pool, nodes, facts := planfixture.Pool(1000)
	r := node.Plan(pool, nodes, facts)
	// maxUnavailable 20% of 1000 = 200; 100 working use half of it, and
	// the other half goes to the 100 staged nodes (staged first).
	if len(r.Grant) != 100 {
		t.Errorf("grants = %d, want 100", len(r.Grant))
	}
	for _, g := range r.Grant {
		var i int
		if _, err := fmt.Sscanf(g.Node, "worker-%d", &i); err != nil || i < 200 || i >= 300 {
			t.Errorf("granted %s, want only the staged nodes worker-00200..worker-00299", g.Node)
			break
		}
	}
	// The 600 pending nodes are allowed to stage.
	if len(r.Stage) != 600 {
		t.Errorf("stages = %d, want 600", len(r.Stage))
	}
	if r.Status == nil || r.Status.UpdatedMachineCount != 100 || r.Status.MachineCount != 1000 {
		t.Errorf("status = %+v", r.Status)
	}
}
