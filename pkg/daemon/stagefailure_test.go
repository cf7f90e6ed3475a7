package daemon

import (
	"reflect"
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A stage failure is retried while its config is still asked for, and
// cleared when it is not (or the OS got staged), so the controller never
// holds a node back for a failure that no longer holds.
func TestNextWithStageFailure(t *testing.T) {
	failing := func(cfg string) func(*NodeState) { return func(n *NodeState) { n.StageFailure = cfg } }
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		{"stage ahead: a failing stage is retried", world(node(func(n *NodeState) { n.Stage = "b"; failing("b")(n) })),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"stage ahead: a failure of another config is cleared first", world(node(func(n *NodeState) { n.Stage = "b"; failing("old")(n) })),
			Action{Kind: ActClearStageFailure, Config: "old", Reason: "the node stages b now"}},
		{"stage ahead: staged and reported, the failure is cleared", world(stagedB(true), node(func(n *NodeState) { n.Stage, n.Staged = "b", "b"; failing("b")(n) })),
			Action{Kind: ActClearStageFailure, Config: "b", Reason: "b is staged"}},
		{"stage ahead: staged, not reported: ReportStaged clears it in one patch", world(stagedB(true), node(func(n *NodeState) { n.Stage = "b"; failing("b")(n) })),
			Action{Kind: ActReportStaged, Config: "b"}},
		{"granted: a failing stage is retried before any disruption", world(node(func(n *NodeState) { n.Desired, n.Stage = "b", "b"; failing("b")(n) })),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"idle: a failure left after the config was withdrawn is cleared", world(node(failing("b"))),
			Action{Kind: ActClearStageFailure, Config: "b", Reason: "the node stages nothing"}},
		{"idle: an unreadable annotation is cleared", world(node(failing("(unreadable)"))),
			Action{Kind: ActClearStageFailure, Config: "(unreadable)", Reason: "the node stages nothing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Next(tc.obs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// Only a stage that touched nothing is harmless: once the node is Working
// or drained for the update (or runs the stock order, which pulls on the
// drained node), a failed pull is a failed update, Degraded as the MCO
// reports it.
func TestStageFailureHarmless(t *testing.T) {
	tests := []struct {
		name string
		obs  Observed
		want bool
	}{
		{"staging ahead of the grant", world(node(func(n *NodeState) { n.Stage = "b" })), true},
		{"granted, not started", world(node(func(n *NodeState) { n.Desired, n.Stage = "b", "b" })), true},
		{"granted, Working", world(node(func(n *NodeState) { n.Desired, n.State = "b", working })), false},
		{"granted, drain asked", world(node(func(n *NodeState) { n.Desired, n.DesiredDrain = "b", constants.DrainRequest("b") })), false},
		{"an update record exists", world(node(func(n *NodeState) { n.Stage = "b" }), record(recB)), false},
		{"stock order", world(node(func(n *NodeState) { n.Desired = "b" }), func(o *Observed) { o.Order = OrderStock }), false},
		{"Degraded for another reason, staging ahead", world(node(func(n *NodeState) { n.Stage, n.State = "b", constants.MachineConfigDaemonStateDegraded })), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StageFailureHarmless(tc.obs); got != tc.want {
				t.Errorf("StageFailureHarmless = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStageFailureAnnotationRoundTrip(t *testing.T) {
	f := constants.StageFailure{Config: "b", Reason: "503", Attempts: 2}
	got, ok, err := constants.ParseStageFailure(f.Encode())
	if err != nil || !ok || got.Config != "b" || got.Attempts != 2 || got.Reason != "503" {
		t.Fatalf("round trip: %+v %v %v", got, ok, err)
	}
	if _, _, err := constants.ParseStageFailure("{not json"); err == nil {
		t.Fatal("a malformed value parsed")
	}
	if _, _, err := constants.ParseStageFailure(`{"reason":"x"}`); err == nil {
		t.Fatal("a value naming no config parsed")
	}
	if stageFailureConfig("{not json") != "(unreadable)" {
		t.Fatal("a malformed value does not read as unreadable")
	}
}
