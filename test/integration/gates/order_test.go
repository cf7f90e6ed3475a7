//go:build integration

package gates

import (
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// TestUpdateOrderGuidesGrants sets the admin's update-order through the
// API as an admin would (`oc annotate`) and reads the grants the controller
// writes. The expected order is written from the proposals the annotation
// follows, not from the planner: on a node (MCO PR #2162) "Setting it to 0
// will entirely skip that node for updates. Otherwise, higher values are
// preferred."; on a pool (MCO PR #6407) NewestFirst "only reverses age
// order within a zone". One node at a time (maxUnavailable 1); the test
// plays each granted node's daemon by reporting it Done on cfgB.
func TestUpdateOrderGuidesGrants(t *testing.T) {
	order := constants.UpdateOrderAnnotation
	// w1 is the oldest, w4 the newest.
	w := newPoolWorld(t, "order", []string{"w1", "w2", "w3", "w4"},
		map[string]map[string]string{"w1": {order: "0"}, "w2": {order: "5"}}, 1,
		map[string]string{order: "Sideways"})
	w.start()
	done := func(name string) {
		t.Helper()
		w.patch(name, map[string]any{constants.CurrentConfigAnnotation: cfgB, constants.StateAnnotation: constants.MachineConfigDaemonStateDone})
	}
	staged := func(desired map[string]string) map[string][2]string {
		out := map[string][2]string{}
		for n, d := range desired {
			out[n] = [2]string{cfgB, d}
		}
		return out
	}

	// A pool order that does not parse holds every grant; staging goes on.
	w.state("unreadable pool order", string(node.HoldInvalidUpdateOrder), "Sideways",
		staged(map[string]string{"w1": cfgA, "w2": cfgA, "w3": cfgA, "w4": cfgA}))
	w.patch("", map[string]any{order: "NewestFirst"})
	// The highest order goes first, whatever its age; w1 (0) is kept out.
	w.state("highest order first", string(node.HoldUpdateOrder), "kept out of updates",
		staged(map[string]string{"w1": cfgA, "w2": cfgB, "w3": cfgA, "w4": cfgA}))
	done("w2")
	// Equal orders (both unannotated): the newest first.
	w.state("newest first", string(node.HoldUpdateOrder), "kept out of updates",
		staged(map[string]string{"w1": cfgA, "w3": cfgA, "w4": cfgB}))
	done("w4")
	w.state("then the older", string(node.HoldUpdateOrder), "kept out of updates",
		staged(map[string]string{"w1": cfgA, "w3": cfgB}))
	done("w3")
	// A node value that does not parse holds the pool too.
	w.patch("w1", map[string]any{order: "first"})
	w.state("unreadable node order", string(node.HoldInvalidUpdateOrder), `"first"`,
		staged(map[string]string{"w1": cfgA}))
	// The admin lets w1 update: the last hold clears.
	w.patch("w1", map[string]any{order: nil})
	w.state("kept-out node released", "", "", staged(map[string]string{"w1": cfgB}))
}
