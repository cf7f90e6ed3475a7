package daemon

import (
	"reflect"
	"testing"

	opv1 "github.com/openshift/api/operator/v1"
)

// The node events of each step, against the MCO daemon's own (reasons,
// types, messages and namespaces read from pkg/daemon/update.go, drain.go,
// daemon.go and pkg/controller/common/helpers.go NamespacedEventRecorder at
// release-4.21 db84d836). Written out here, not derived from events.go.
func TestNodeEventsAreTheMCOs(t *testing.T) {
	const mco, def = "openshift-machine-config-operator", "default"
	ev := func(ns, typ, reason, msg string) NodeEvent { return NodeEvent{ns, typ, reason, msg} }
	post := func(p opv1.NodeDisruptionPolicyStatusAction) Action {
		return Action{Kind: ActPostConfigAction, PostActions: []opv1.NodeDisruptionPolicyStatusAction{p}}
	}
	for _, tc := range []struct {
		name          string
		a             Action
		before, after []NodeEvent
	}{
		{"stage", Action{Kind: ActStage, Image: "quay.io/os@sha256:1"},
			[]NodeEvent{ev(mco, "Normal", "InClusterUpgrade", "Updating from oscontainer quay.io/os@sha256:1"), ev(mco, "Normal", "OSUpdateStarted", "Upgrading OS")},
			[]NodeEvent{ev(def, "Normal", "OSUpdateStaged", "Changes to OS staged")}},
		{"drain", Action{Kind: ActRequestDrain, Config: "rendered-worker-2"},
			[]NodeEvent{ev(mco, "Normal", "Cordon", "Cordoned node to apply update"), ev(mco, "Normal", "Drain", "Draining node to update config.")}, nil},
		{"reboot", Action{Kind: ActReboot, Config: "rendered-worker-2"},
			[]NodeEvent{ev(mco, "Normal", "Reboot", "Node will reboot into config rendered-worker-2")}, nil},
		{"finalize", Action{Kind: ActFinalize, Config: "rendered-worker-2", Checksum: "abc"},
			[]NodeEvent{ev(mco, "Normal", "Reboot", "Node will reboot into config rendered-worker-2")}, nil},
		{"uncordon", Action{Kind: ActRequestUncordon, Config: "rendered-worker-2"}, nil,
			[]NodeEvent{ev(mco, "Normal", "Uncordon", "Update completed for config rendered-worker-2 and node has been uncordoned")}},
		{"done", Action{Kind: ActSetDone, Config: "rendered-worker-2"},
			[]NodeEvent{ev(mco, "Normal", "NodeDone", "Setting node worker-0, currentConfig rendered-worker-2 to Done")}, nil},
		{"none", post(opv1.NodeDisruptionPolicyStatusAction{Type: opv1.NoneStatusAction}), nil,
			[]NodeEvent{ev(mco, "Normal", "SkipReboot", "Config changes do not require reboot.")}},
		{"reload", post(opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: "crio.service"}}), nil,
			[]NodeEvent{ev(mco, "Normal", "ServiceReload", "Config changes do not require reboot. Service crio.service was reloaded.")}},
		{"restart", post(opv1.NodeDisruptionPolicyStatusAction{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: "chronyd.service"}}), nil,
			[]NodeEvent{ev(mco, "Normal", "ServiceRestart", "Config changes do not require reboot. Service chronyd.service was restarted.")}},
		{"degraded", Action{Kind: ActReportDegraded, Reason: "writing files: disk full"}, nil,
			[]NodeEvent{ev(mco, "Warning", "FailedToReconcile", "writing files: disk full")}},
		{"write files", Action{Kind: ActWriteFiles, Config: "rendered-worker-2"}, nil, nil},
		{"wait", Action{Kind: ActWait, Reason: "no grant"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EventsBefore(tc.a, "worker-0"); !reflect.DeepEqual(got, tc.before) {
				t.Errorf("before: %+v, want %+v", got, tc.before)
			}
			if got := EventsAfter(tc.a); !reflect.DeepEqual(got, tc.after) {
				t.Errorf("after: %+v, want %+v", got, tc.after)
			}
		})
	}
}
