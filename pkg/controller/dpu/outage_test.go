package dpu

import (
	"slices"
	"strings"
	"testing"
	"time"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

func TestDecideOutage(t *testing.T) {
	const grace, recovery = 30 * time.Second, 20 * time.Second
	base := func(mods ...func(*OutageInput)) OutageInput {
		in := OutageInput{Node: "dpu-0", Host: "host-0", Ready: true, ReadySince: t0.Add(-time.Hour), Now: t0,
			Grace: grace, Recovery: recovery}
		for _, m := range mods {
			m(&in)
		}
		return in
	}
	down := func(ago time.Duration) func(*OutageInput) {
		return func(in *OutageInput) { in.Ready, in.ReadySince = false, t0.Add(-ago) }
	}
	upFor := func(ago time.Duration) func(*OutageInput) {
		return func(in *OutageInput) { in.Ready, in.ReadySince = true, t0.Add(-ago) }
	}
	tainted := func(in *OutageInput) { in.Taint = hmIn("dpu-dpu-0-outage", dpuv1.ActionTaint, dpuv1.PhaseActive) }
	del := []InfraAction{{Kind: DeleteRequest, Name: "dpu-dpu-0-outage"}}
	absent := func(in *OutageInput) { in.Absent = []string{"ds/agent"} }
	recorded := func(ago time.Duration) func(*OutageInput) {
		return func(in *OutageInput) { in.DownSince = t0.Add(-ago) }
	}
	record := func(at time.Time) InfraAction {
		return InfraAction{Kind: RecordDownSince, From: at.UTC().Format(time.RFC3339)}
	}
	tests := []struct {
		name    string
		in      OutageInput
		create  string // substring of the Taint request's reason; "" when none is created
		want    []InfraAction
		recheck time.Duration
	}{
		{"up: nothing", base(), "", nil, 0},
		{"down, within the grace: look again when it ends", base(down(10 * time.Second)), "", nil, 20 * time.Second},
		{"down past the grace: taint", base(down(31 * time.Second)), "its Node is not Ready", nil, 0},
		{"down during its planned update: no taint", base(down(time.Hour), func(in *OutageInput) { in.Planned = true }), "", nil, 0},
		{"a required DaemonSet pod missing past the grace: taint", base(func(in *OutageInput) {
			in.Missing = map[string]time.Time{"openshift-ovn-kubernetes/ovnkube-node": t0.Add(-time.Minute)}
		}), "DaemonSet openshift-ovn-kubernetes/ovnkube-node has no Ready pod", nil, 0},
		{"tainted and still down: keep", base(down(time.Hour), tainted), "", nil, 0},
		{"tainted, back for less than the recovery: keep (a flap)", base(upFor(5*time.Second), tainted), "", nil, 15 * time.Second},
		{"tainted, back for the recovery: untaint", base(upFor(recovery), tainted), "", del, 0},
		{"tainted, node back but the DaemonSet pod just became Ready: keep", base(upFor(time.Minute), tainted,
			func(in *OutageInput) { in.UpSince = t0.Add(-time.Second) }), "", nil, 19 * time.Second},
		{"unpaired: the taint goes", base(down(time.Hour), tainted, func(in *OutageInput) { in.Host = "" }), "", del, 0},
		// The clock of an outage nothing else times is recorded on the node.
		{"a required pod absent, nothing recorded: record now, look again at the grace", base(absent),
			"", []InfraAction{record(t0)}, grace},
		{"a required pod absent since a recorded start past the grace (a restarted controller): taint", base(absent, recorded(grace+time.Second)),
			"DaemonSet ds/agent has no Ready pod", nil, 0},
		{"a required pod absent since a recorded start within the grace: the rest of it", base(absent, recorded(10*time.Second)),
			"", nil, grace - 10*time.Second},
		{"no Ready condition at all: record now", base(func(in *OutageInput) { in.Ready, in.ReadySince = false, time.Time{} }),
			"", []InfraAction{record(t0)}, grace},
		{"NotReady with its own time: nothing recorded", base(down(10 * time.Second)), "", nil, 20 * time.Second},
		{"the absent pod is back but not Ready: the outage still began at the record", base(recorded(time.Minute), func(in *OutageInput) {
			in.Missing = map[string]time.Time{"ds/agent": t0.Add(-time.Second)}
		}), "is down since " + t0.Add(-time.Minute).UTC().Format(time.RFC3339), nil, 0},
		{"up: the record goes", base(recorded(time.Minute)), "", []InfraAction{{Kind: ClearDownSince}}, 0},
		{"unpaired: the record goes too", base(absent, recorded(time.Minute), tainted, func(in *OutageInput) { in.Host = "" }),
			"", []InfraAction{{Kind: ClearDownSince}, del[0]}, 0},
	}
	for _, tt := range tests {
		got, recheck := DecideOutage(tt.in)
		if tt.create != "" {
			if len(got) != 1 || got[0].Kind != CreateRequest || got[0].Action != dpuv1.ActionTaint || got[0].Name != "dpu-dpu-0-outage" ||
				!strings.Contains(got[0].Reason, tt.create) {
				t.Errorf("%s: got %+v, want a Taint request saying %q", tt.name, got, tt.create)
			}
			continue
		}
		if !slices.Equal(got, tt.want) || recheck != tt.recheck {
			t.Errorf("%s: got %+v recheck %s, want %+v recheck %s", tt.name, got, recheck, tt.want, tt.recheck)
		}
	}
}
