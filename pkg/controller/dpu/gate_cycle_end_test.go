package dpu

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// TestGateVerdictHoldsWhileTheCycleEnds was found by the node planner's
// property test (pkg/controller/node, seed 708 of 1000): the pool's target
// moved on while a DPU's maintenance cycle was ending (host Reboot
// Completed, Drain still Drained). The gate granted the new update on the
// old cycle's Drain, the cycle then closed and released the host, and the
// DPU rebooted again with its host schedulable.
func TestGateVerdictHoldsWhileTheCycleEnds(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	drain := &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: DrainRequestName("dpu-0")},
		Spec:   dpuv1.HostMaintenanceSpec{NodeName: "host-0", Action: dpuv1.ActionDrain},
		Status: dpuv1.HostMaintenanceStatus{Phase: dpuv1.PhaseDrained}}
	reboot := &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: RebootRequestName("dpu-0")},
		Spec:   dpuv1.HostMaintenanceSpec{NodeName: "host-0", Action: dpuv1.ActionReboot},
		Status: dpuv1.HostMaintenanceStatus{Phase: dpuv1.PhaseCompleted}}
	in := GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Now: now}

	in.Requests = []*dpuv1.HostMaintenance{drain}
	if ok, why, _ := GateVerdict(in); !ok {
		t.Fatalf("a Drained cycle must allow the grant: %s", why)
	}
	in.Requests = []*dpuv1.HostMaintenance{drain, reboot}
	ok, why, _ := GateVerdict(in)
	if ok {
		t.Fatal("granted on the Drain of a cycle whose host Reboot is Completed")
	}
	if !strings.Contains(why, "ending") || !strings.Contains(why, reboot.Name) {
		t.Errorf("reason %q does not say the cycle is ending", why)
	}
	// Another node's Reboot request for the same host does not hold this one.
	other := reboot.DeepCopy()
	other.Name = RebootRequestName("dpu-9")
	in.Requests = []*dpuv1.HostMaintenance{drain, other}
	if ok, why, _ := GateVerdict(in); !ok {
		t.Errorf("another node's Reboot request held the grant: %s", why)
	}
}

// TestDecideInfraAdoptsTheDrainOfAGrantedNode was found by the node
// planner's property test (seed 386): a cycle closed, its Reboot request
// was deleted but not yet its Drain, and the gate granted the node's next
// update on that Drain. With no cycle open, DecideInfra deleted the Drain as
// a leftover and the host was released while the node rebooted.
func TestDecideInfraAdoptsTheDrainOfAGrantedNode(t *testing.T) {
	drain := &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: DrainRequestName("dpu-0")},
		Spec:   dpuv1.HostMaintenanceSpec{NodeName: "host-0", Action: dpuv1.ActionDrain},
		Status: dpuv1.HostMaintenanceStatus{Phase: dpuv1.PhaseDrained}}
	pair := &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: PairRequestName("dpu-0")},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: "host-0", Action: dpuv1.ActionPair}}
	s := InfraSnapshot{
		Pool: InfraPool{Name: "dpu-worker", Target: "rendered-dpu-worker-5"},
		Node: node.NodeView{Name: "dpu-0", Current: "rendered-dpu-worker-3", Desired: "rendered-dpu-worker-5",
			State: constants.MachineConfigDaemonStateWorking, Ready: true},
		Host: "host-0", Drain: drain, Pair: pair, RebootHost: true, Ahead: true,
	}
	acts := DecideInfra(s)
	for _, a := range acts {
		if a.Kind == DeleteRequest && a.Name == drain.Name {
			t.Fatalf("deleted the Drain that holds the host of a granted node: %+v", acts)
		}
	}
	if len(acts) != 1 || acts[0].Kind != OpenCycle || acts[0].From != "rendered-dpu-worker-3" {
		t.Errorf("actions %+v, want one OpenCycle from rendered-dpu-worker-3", acts)
	}
}
