package node

import (
	"slices"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A pool a MachineOSConfig selects is on-cluster layered (the MCO's
// IsLayeredPool, release-4.21 db84d8368ef7); the MCO's node controller
// writes no desiredConfig to its nodes before an image is built, and
// tandem builds none: nothing is granted or staged, and the status says why.
func TestPlanRefusesLayeredPool(t *testing.T) {
	layered := Facts{MachineOSConfig: "worker-os"}
	two := pool("worker")
	two.MaxUnavailable = intOrStr("2")
	runPlanCases(t, []planCase{
		{name: "no grant, no stage", pool: two, facts: layered,
			nodes:  []NodeView{doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2)},
			grants: nil, stages: []string{},
			holds:  map[string]HoldReason{"a": HoldOnClusterLayering, "b": HoldOnClusterLayering, "c": HoldOnClusterLayering},
			events: []string{EventOnClusterLayeringRefused}, noEv: []string{EventSetDesiredConfig, EventSetStageConfig, EventDisruptionHeld}},
		{name: "a staged node is not granted either", pool: two, facts: layered,
			nodes:  []NodeView{staged(doneNode("a", oldCfg, 0))},
			grants: nil, stages: []string{}, holds: map[string]HoldReason{"a": HoldOnClusterLayering}},
		{name: "without a MachineOSConfig the same pool rolls out", pool: two,
			nodes:  []NodeView{doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1), doneNode("c", oldCfg, 2)},
			grants: []string{"a", "b"}, noEv: []string{EventOnClusterLayeringRefused}},
	})

	r := Plan(two, []NodeView{staged(doneNode("a", oldCfg, 0)), granted(doneNode("b", oldCfg, 1)), updatedNode("c", 2)}, layered)
	if !slices.Equal(r.Unstage, []string{"a"}) {
		t.Errorf("unstage = %v, want [a] (the granted node finishes, the updated one has no stage)", r.Unstage)
	}
	if holdOf(r, "b") != "" || holdOf(r, "c") != "" {
		t.Errorf("granted or updated nodes held: %+v", r.Holds)
	}
}

func TestLayeredPoolStatus(t *testing.T) {
	p := pool("worker")
	nodes := []NodeView{doneNode("a", oldCfg, 0)}
	r := Plan(p, nodes, Facts{MachineOSConfig: "worker-os"})
	c := FindCondition(r.Status.Conditions, constants.PoolOnClusterLayeringRefusedCondition)
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != LayeringRefusedReason || !strings.Contains(c.Message, "MachineOSConfig worker-os") {
		t.Fatalf("OnClusterLayeringRefused = %+v", c)
	}
	up := FindCondition(r.Status.Conditions, mcfgv1.MachineConfigPoolUpdating)
	if up == nil || up.Status != corev1.ConditionFalse || !strings.Contains(up.Message, "worker-os") || !strings.Contains(up.Message, newCfg) {
		t.Errorf("Updating = %+v, want False naming the MachineOSConfig and the target", up)
	}
	if held := FindCondition(r.Status.Conditions, constants.PoolDisruptionHeldCondition); held == nil || held.Status != corev1.ConditionFalse {
		t.Errorf("DisruptionHeld = %+v: the refusal has a condition of its own", held)
	}

	// The same refusal again: no new event. Another MachineOSConfig: one.
	p.Status = *r.Status
	if r2 := Plan(p, nodes, Facts{MachineOSConfig: "worker-os"}); hasEvent(r2, EventOnClusterLayeringRefused) {
		t.Errorf("the refusal was announced twice: %+v", r2.Events)
	}
	if r2 := Plan(p, nodes, Facts{MachineOSConfig: "other-os"}); !hasEvent(r2, EventOnClusterLayeringRefused) {
		t.Errorf("a new MachineOSConfig was not announced: %+v", r2.Events)
	}
	// Gone: False, announced, and the pool rolls out.
	r3 := Plan(p, nodes, Facts{})
	if c := FindCondition(r3.Status.Conditions, constants.PoolOnClusterLayeringRefusedCondition); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("after the MachineOSConfig went: %+v", c)
	}
	if !hasEvent(r3, EventOnClusterLayeringCleared) || len(r3.Grant) != 1 {
		t.Errorf("after the MachineOSConfig went: events %+v, grants %v", r3.Events, r3.Grant)
	}
	// Paused and layered: paused wins the Updating message, the refusal
	// is still reported.
	p.Paused = true
	r4 := Plan(p, nodes, Facts{MachineOSConfig: "worker-os"})
	if up := FindCondition(r4.Status.Conditions, mcfgv1.MachineConfigPoolUpdating); up == nil || !strings.Contains(up.Message, "paused") {
		t.Errorf("paused and layered: Updating = %+v", up)
	}
	if !conditionTrue(r4.Status.Conditions, constants.PoolOnClusterLayeringRefusedCondition) || len(r4.Unstage) != 0 {
		t.Errorf("paused and layered: %+v, unstage %v", r4.Status.Conditions, r4.Unstage)
	}
}
