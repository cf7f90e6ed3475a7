// Package planfixture builds one pool of the planner mid-rollout, at any
// size, for the planner benchmarks (the Go benchmark in pkg/controller/node
// and the planner slope of `make bench-scale`). Both time node.Plan on the
// same input, so their figures compare.
package planfixture

import (
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// Old and New are the rendered configs the fixture's pool rolls from and to.
const (
	Old = "rendered-worker-old"
	New = "rendered-worker-new"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Pool returns a pool of n nodes mid-rollout and the facts of one plan:
//   - 10% updated (done at New),
//   - 10% granted and working on New (cordoned: they count against
//     maxUnavailable),
//   - 10% staged (stageConfig and stagedConfig New),
//   - 10% staging (stageConfig New),
//   - the rest pending (running Old, nothing set).
//
// maxUnavailable is 20%, so half of it is free and the plan grants 10% of the
// pool: the part of Plan that grows with the grants (applying them to the
// node list, holding the rest) is exercised at every size. Nodes spread over
// three zones and their ages differ, as in a real pool, so the MCO's
// zone-then-age order has work to do. A DisruptionGate that never vetoes
// stands for the DPU and maintenance gates production runs.
func Pool(n int) (node.PoolView, []node.NodeView, node.Facts) {
	mu := intstr.FromString("20%")
	pool := node.PoolView{Name: constants.WorkerPool, Target: New, MaxUnavailable: &mu,
		Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: New}}}
	nodes := make([]node.NodeView, n)
	for i := range nodes {
		v := node.NodeView{
			Name: fmt.Sprintf("worker-%05d", i),
			// Nodes were added over time, not in name order.
			Created: epoch.Add(time.Duration((i*7919)%n) * time.Minute),
			Zone:    fmt.Sprintf("zone-%c", 'a'+i%3), HasZone: true,
			Current: Old, Desired: Old, State: constants.MachineConfigDaemonStateDone,
			Ready: true,
		}
		switch decile := i * 10 / n; decile {
		case 0: // updated
			v.Current, v.Desired, v.Stage, v.Staged = New, New, New, New
		case 1: // granted, working
			v.Desired, v.Stage, v.Staged = New, New, New
			v.State, v.Unschedulable = constants.MachineConfigDaemonStateWorking, true
		case 2: // staged
			v.Stage, v.Staged = New, New
		case 3: // staging
			v.Stage = New
		}
		v.Labels = map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: "", constants.ZoneLabel: v.Zone}
		nodes[i] = v
	}
	return pool, nodes, node.Facts{Now: epoch.Add(time.Hour), Gates: []node.DisruptionGate{passGate{}}}
}

// passGate is a gate that lets every node through, after a map lookup like
// the DPU gates' per-node checks.
type passGate struct{}

var noneHeld = map[string]bool{}

func (passGate) Name() string { return "bench" }

func (passGate) MayDisrupt(_ node.PoolView, n node.NodeView) (bool, string) {
	if noneHeld[n.Name] {
		return false, "held"
	}
	return true, ""
}
