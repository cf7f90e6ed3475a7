package node

import (
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// TestPlacesUsed is the MCO's getAllCandidateMachines count, read from
// openshift/machine-config-operator pkg/controller/node/node_controller.go:
// len(getUnavailableMachines) plus the nodes whose desiredConfig is the
// target and whose daemon is failing (isNodeMCDFailing), subtracted apart.
func TestPlacesUsed(t *testing.T) {
	failingOnTarget := with(doneNode("f", oldCfg, 0), func(n *NodeView) {
		n.Desired, n.State = newCfg, constants.MachineConfigDaemonStateDegraded
	})
	tests := []struct {
		name string
		n    NodeView
		want int
	}{
		{"done, schedulable", doneNode("a", oldCfg, 0), 0},
		{"not ready", with(doneNode("a", oldCfg, 0), func(n *NodeView) { n.Ready = false }), 1},
		{"cordoned", with(doneNode("a", oldCfg, 0), func(n *NodeView) { n.Unschedulable = true }), 1},
		{"granted, working", granted(doneNode("a", oldCfg, 0)), 1},
		{"failing on the target", failingOnTarget, 1},
		{"failing on another config", with(failingOnTarget, func(n *NodeView) { n.Desired = "rendered-worker-other" }), 0},
		{"failing on the target and cordoned: counted twice, as the MCO does",
			with(failingOnTarget, func(n *NodeView) { n.Unschedulable = true }), 2},
		{"updated", updatedNode("a", 0), 0},
	}
	for _, tt := range tests {
		if got := PlacesUsed(newCfg, tt.n); got != tt.want {
			t.Errorf("%s: %d places, want %d", tt.name, got, tt.want)
		}
	}
	all := []NodeView{}
	sum := 0
	for _, tt := range tests {
		all = append(all, tt.n)
		sum += tt.want
	}
	if got := PlacesUsed(newCfg, all...); got != sum {
		t.Errorf("pool: %d places, want %d", got, sum)
	}
}
