package dpu

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

const (
	infraA = "rendered-dpu-worker-a"
	infraB = "rendered-dpu-worker-b"
)

func infraSnap(mods ...func(*InfraSnapshot)) InfraSnapshot {
	s := InfraSnapshot{
		Pool: InfraPool{Name: "dpu-worker", Target: infraB},
		Node: node.NodeView{Name: "dpu-0", Current: infraA, Desired: infraA,
			State: constants.MachineConfigDaemonStateDone, Ready: true},
		Host:       "host-0",
		RebootHost: true,
		Ahead:      true,
		Pair:       hmIn("dpu-dpu-0-pair", dpuv1.ActionPair, dpuv1.PhaseActive),
	}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func hmIn(name string, action dpuv1.HostMaintenanceAction, phase dpuv1.HostMaintenancePhase) *dpuv1.HostMaintenance {
	return &dpuv1.HostMaintenance{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       dpuv1.HostMaintenanceSpec{NodeName: "host-0", Action: action},
		Status:     dpuv1.HostMaintenanceStatus{Phase: phase, Message: "because"},
	}
}

func cycleFrom(cfg string) func(*InfraSnapshot) {
	return func(s *InfraSnapshot) { s.HasCycle, s.CycleFrom = true, cfg }
}

func withDrain(p dpuv1.HostMaintenancePhase) func(*InfraSnapshot) {
	return func(s *InfraSnapshot) { s.Drain = hmIn("dpu-dpu-0-drain", dpuv1.ActionDrain, p) }
}

func withReboot(p dpuv1.HostMaintenancePhase) func(*InfraSnapshot) {
	return func(s *InfraSnapshot) { s.Reboot = hmIn("dpu-dpu-0-reboot", dpuv1.ActionReboot, p) }
}

func rebootedTo(cfg string) func(*InfraSnapshot) {
	return func(s *InfraSnapshot) { s.Node.Current, s.Node.Desired = cfg, cfg }
}

func TestDecideInfra(t *testing.T) {
	open := InfraAction{Kind: OpenCycle, From: infraA}
	createDrain := InfraAction{Kind: CreateRequest, Name: "dpu-dpu-0-drain", Action: dpuv1.ActionDrain}
	createReboot := InfraAction{Kind: CreateRequest, Name: "dpu-dpu-0-reboot", Action: dpuv1.ActionReboot}
	delDrain := InfraAction{Kind: DeleteRequest, Name: "dpu-dpu-0-drain"}
	delReboot := InfraAction{Kind: DeleteRequest, Name: "dpu-dpu-0-reboot"}
	closeCycle := InfraAction{Kind: CloseCycle}
	tests := []struct {
		name string
		s    InfraSnapshot
		want []InfraAction
	}{
		{"up to date: nothing", infraSnap(func(s *InfraSnapshot) { s.Pool.Target = infraA }), nil},
		{"needs the target: open the cycle and ask for the drain ahead", infraSnap(), []InfraAction{open, createDrain}},
		{"on demand, not wanted yet: wait", infraSnap(func(s *InfraSnapshot) { s.Ahead = false }), nil},
		{"on demand, wanted by the planner", infraSnap(func(s *InfraSnapshot) { s.Ahead, s.Wanted = false, true }), []InfraAction{open, createDrain}},
		{"on demand, the host's own update is pending: ask now, one drain for both", infraSnap(func(s *InfraSnapshot) {
			s.Ahead = false
			s.Pair.Status.PendingUpdate = "rendered-worker-b"
		}), []InfraAction{open, createDrain}},
		{"paired without a Pair request: create it", infraSnap(func(s *InfraSnapshot) { s.Pool.Target, s.Pair = infraA, nil }),
			[]InfraAction{{Kind: CreateRequest, Name: "dpu-dpu-0-pair", Action: dpuv1.ActionPair,
				Reason: "host host-0 has DPU dpu-0; its updates are coordinated with the DPU's"}}},
		{"pairing moved to another host: the old Pair goes", infraSnap(func(s *InfraSnapshot) { s.Pool.Target, s.Host = infraA, "host-9" }),
			[]InfraAction{{Kind: DeleteRequest, Name: "dpu-dpu-0-pair"}}},
		{"unpaired: the Pair goes", infraSnap(func(s *InfraSnapshot) { s.Pool.Target, s.Host = infraA, "" }),
			[]InfraAction{{Kind: DeleteRequest, Name: "dpu-dpu-0-pair"}}},
		{"paused pool: no new cycle", infraSnap(func(s *InfraSnapshot) { s.Pool.Paused = true }), nil},
		{"drain request left from a crash is reused", infraSnap(withDrain(dpuv1.PhasePending)), []InfraAction{open}},
		{"cycle open, host draining: nothing", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDraining)), nil},
		{"cycle open, drain request deleted by someone: ask again", infraSnap(cycleFrom(infraA),
			func(s *InfraSnapshot) { s.Node.Desired = infraB }), []InfraAction{createDrain}},
		{"granted, still on the old config: keep holding", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained),
			func(s *InfraSnapshot) {
				s.Node.Desired, s.Node.State = infraB, constants.MachineConfigDaemonStateWorking
			}), nil},
		{"rebooted but not Ready yet: wait", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained), rebootedTo(infraB),
			func(s *InfraSnapshot) { s.Node.Ready = false }), nil},
		{"rebooted, Ready on the new config: ask for the host reboot", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained),
			rebootedTo(infraB)), []InfraAction{createReboot}},
		{"host rebooting: wait", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained), withReboot(dpuv1.PhaseRebooting),
			rebootedTo(infraB)), nil},
		{"host reboot completed: close, then delete both", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained),
			withReboot(dpuv1.PhaseCompleted), rebootedTo(infraB)), []InfraAction{closeCycle, delReboot, delDrain}},
		{"host reboots disabled: close and release after the infra reboot", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained),
			rebootedTo(infraB), func(s *InfraSnapshot) { s.RebootHost = false }), []InfraAction{closeCycle, delDrain}},
		{"update withdrawn before the grant: close and release", infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained),
			func(s *InfraSnapshot) { s.Pool.Target = infraA }), []InfraAction{closeCycle, delDrain}},
		{"requests left after a closed cycle are deleted, never re-asked", infraSnap(rebootedTo(infraB), withDrain(dpuv1.PhaseDrained),
			withReboot(dpuv1.PhaseCompleted)), []InfraAction{delReboot, delDrain}},
		{"a closed cycle's reboot request goes before a new cycle opens", infraSnap(withReboot(dpuv1.PhaseCompleted)),
			[]InfraAction{delReboot, open, createDrain}},
		{"unpaired: nothing", infraSnap(func(s *InfraSnapshot) { s.Host, s.Pair = "", nil }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DecideInfra(tt.s)
			for i := range got {
				got[i].Warning = ""
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDecideInfraWarnsOnRejectedReboot(t *testing.T) {
	got := DecideInfra(infraSnap(cycleFrom(infraA), withDrain(dpuv1.PhaseDrained), withReboot(dpuv1.PhaseRejected), rebootedTo(infraB)))
	if len(got) != 3 || got[0].Kind != CloseCycle || !strings.Contains(got[0].Warning, "rejected the reboot of host host-0") {
		t.Errorf("got %+v", got)
	}
}

func TestGateVerdict(t *testing.T) {
	drained := hmIn("dpu-dpu-0-drain", dpuv1.ActionDrain, dpuv1.PhaseDrained)
	pending := hmIn("dpu-dpu-0-drain", dpuv1.ActionDrain, dpuv1.PhasePending)
	theirs := hmIn("coordinator-host-0", dpuv1.ActionDrain, dpuv1.PhaseDrained)
	reboot := hmIn("dpu-dpu-0-reboot", dpuv1.ActionReboot, dpuv1.PhaseDrained)
	deleting := hmIn("dpu-dpu-0-drain", dpuv1.ActionDrain, dpuv1.PhaseDrained)
	now := metav1.NewTime(t0)
	deleting.DeletionTimestamp = &now
	rejected := hmIn("dpu-dpu-0-drain", dpuv1.ActionDrain, dpuv1.PhaseRejected)
	tests := []struct {
		name    string
		in      GateInput
		ok      bool
		reason  string
		overdue bool
	}{
		{"unpaired", GateInput{Mode: ModeLeader, Node: "dpu-0"}, true, "", false},
		{"own drain drained", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Requests: []*dpuv1.HostMaintenance{drained}}, true, "", false},
		{"no request yet", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0"}, false, "asking the tenant cluster to drain host host-0", false},
		{"pending", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Requests: []*dpuv1.HostMaintenance{pending}},
			false, "HostMaintenance dpu-dpu-0-drain is Pending", false},
		{"leader ignores someone else's drain", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0",
			Requests: []*dpuv1.HostMaintenance{theirs}}, false, "asking the tenant cluster", false},
		{"external accepts the coordinator's drain", GateInput{Mode: ModeExternal, Node: "dpu-0", Host: "host-0",
			Requests: []*dpuv1.HostMaintenance{theirs}}, true, "", false},
		{"a reboot request's drained state does not count", GateInput{Mode: ModeExternal, Node: "dpu-0", Host: "host-0",
			Requests: []*dpuv1.HostMaintenance{reboot}}, false, "external coordinator", false},
		{"a request being deleted does not count", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0",
			Requests: []*dpuv1.HostMaintenance{deleting}}, false, "asking", false},
		{"rejected", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Requests: []*dpuv1.HostMaintenance{rejected}},
			false, "rejected the drain of host host-0", false},
		{"overdue", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Requests: []*dpuv1.HostMaintenance{pending},
			WaitingSince: t0.Add(-2 * time.Hour), Now: t0, Threshold: time.Hour},
			false, "tenant host host-0 has held this update back for more than 1h0m0s", true},
		{"not overdue yet", GateInput{Mode: ModeLeader, Node: "dpu-0", Host: "host-0", Requests: []*dpuv1.HostMaintenance{pending},
			WaitingSince: t0.Add(-30 * time.Minute), Now: t0, Threshold: time.Hour}, false, "is Pending", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, reason, overdue := GateVerdict(tt.in)
			if ok != tt.ok || overdue != tt.overdue || !strings.Contains(reason, tt.reason) {
				t.Errorf("got (%v, %q, %v), want (%v, ~%q, %v)", ok, reason, overdue, tt.ok, tt.reason, tt.overdue)
			}
		})
	}
}

func TestRequestNames(t *testing.T) {
	long := strings.Repeat("a", 250)
	for _, n := range []string{"dpu-0", "bf2-worker-advnetlab13.example.com", long, long + "b"} {
		for _, name := range []string{DrainRequestName(n), RebootRequestName(n)} {
			if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
				t.Errorf("%q: %v", name, errs)
			}
		}
	}
	if DrainRequestName(long) == DrainRequestName(long+"b") {
		t.Error("long names collide")
	}
	if DrainRequestName("dpu-0") != "dpu-dpu-0-drain" {
		t.Errorf("short name %q", DrainRequestName("dpu-0"))
	}
}
