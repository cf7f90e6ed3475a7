package mcnstatus

import (
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

const done = constants.MachineConfigDaemonStateDone

func cond(t mcfgv1.StateProgress, s metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: reason, Message: reason + " message"}
}

// full is a status with every condition, as a previous write left it.
func full(updated, degraded metav1.ConditionStatus, desired string) mcfgv1.MachineConfigNodeStatus {
	st := Next(mcfgv1.MachineConfigNodeStatus{}, 0, Node{}, nil, metav1.NewTime(time.Unix(100, 0)))
	meta.SetStatusCondition(&st.Conditions, cond(mcfgv1.MachineConfigNodeUpdated, updated, "Updated"))
	meta.SetStatusCondition(&st.Conditions, cond(mcfgv1.MachineConfigNodeNodeDegraded, degraded, "Degraded"))
	st.ConfigVersion = &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{Current: "a", Desired: desired}
	return st
}

func status(st mcfgv1.MachineConfigNodeStatus, t mcfgv1.StateProgress) metav1.ConditionStatus {
	c := meta.FindStatusCondition(st.Conditions, string(t))
	if c == nil {
		return "absent"
	}
	return c.Status
}

// TestNext: the readers' invariants (package comment) in each case: every
// type present, Updated true exactly for a Done node on its desired config
// without NodeDegraded, configVersion from the same node.
func TestNext(t *testing.T) {
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	cases := []struct {
		name        string
		prev        mcfgv1.MachineConfigNodeStatus
		node        Node
		queued      []metav1.Condition
		wantUpdated metav1.ConditionStatus
		wantDesired string
	}{
		{"the operator's MachineConfigNode without conditions, node settled", mcfgv1.MachineConfigNodeStatus{},
			Node{"a", "a", done}, nil, T, "a"},
		{"fresh node without a desired config", mcfgv1.MachineConfigNodeStatus{},
			Node{}, nil, F, NotYetSet},
		{"Done: the daemon's Updated=True is kept", full(F, F, "a"), Node{"b", "b", done},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdated, T, "Updated")}, T, "b"},
		{"queued Updated=True but desiredConfig moved on before the write", full(T, F, "a"), Node{"a", "b", done},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdated, T, "Updated")}, F, "b"},
		{"degraded on the desired config: not updated", full(T, F, "b"), Node{"a", "b", constants.MachineConfigDaemonStateDegraded},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeNodeDegraded, T, "Degraded")}, F, "b"},
		{"NodeDegraded=True on a node the annotations call Done: not updated", full(T, F, "a"), Node{"a", "a", done},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeNodeDegraded, T, "Degraded")}, F, "a"},
		{"staging ahead on a settled node: still updated", full(T, F, "a"), Node{"a", "a", done},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeImagePulledFromRegistry, U, "Staging")}, T, "a"},
		{"working: Updated=False", full(T, F, "a"), Node{"a", "b", constants.MachineConfigDaemonStateWorking},
			[]metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdatePrepared, T, "UpdatePrepared"), cond(mcfgv1.MachineConfigNodeUpdated, F, "Updated")}, F, "b"},
	}
	now := metav1.NewTime(time.Unix(200, 0))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Next(tc.prev, 3, tc.node, tc.queued, now)
			for _, ty := range Types {
				if meta.FindStatusCondition(got.Conditions, string(ty)) == nil {
					t.Errorf("condition %s missing", ty)
				}
			}
			if s := status(got, mcfgv1.MachineConfigNodeUpdated); s != tc.wantUpdated {
				t.Errorf("Updated = %s, want %s (%+v)", s, tc.wantUpdated, got.Conditions)
			}
			if got.ConfigVersion == nil || got.ConfigVersion.Desired != tc.wantDesired || (tc.node.Current != "" && got.ConfigVersion.Current != tc.node.Current) {
				t.Errorf("configVersion = %+v, want desired %s current %s", got.ConfigVersion, tc.wantDesired, tc.node.Current)
			}
			if got.ObservedGeneration != 3 {
				t.Errorf("observedGeneration = %d", got.ObservedGeneration)
			}
			for _, q := range tc.queued {
				if q.Type == string(mcfgv1.MachineConfigNodeUpdated) {
					continue
				}
				if s := status(got, mcfgv1.StateProgress(q.Type)); s != q.Status && !(IsProgress(q.Type) && tc.wantUpdated == T) {
					t.Errorf("queued %s=%s not applied: %s", q.Type, q.Status, s)
				}
			}
		})
	}
}

// TestNextResetsProgressOnUpdated: the progress conditions of a finished
// update turn False when Updated turns True (once), the others stay.
func TestNextResetsProgressOnUpdated(t *testing.T) {
	t0, t1, t2 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0)), metav1.NewTime(time.Unix(300, 0))
	st := full(metav1.ConditionFalse, metav1.ConditionFalse, "b")
	st = Next(st, 0, Node{"a", "b", constants.MachineConfigDaemonStateWorking}, []metav1.Condition{
		cond(mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionTrue, "Rebooted"),
		cond(mcfgv1.MachineConfigNodeImagePulledFromRegistry, metav1.ConditionTrue, "Staged"),
	}, t0)
	st = Next(st, 0, Node{"b", "b", done}, nil, t1)
	if s := status(st, mcfgv1.MachineConfigNodeUpdateRebooted); s != metav1.ConditionFalse {
		t.Errorf("Rebooted = %s after Updated, want False", s)
	}
	if s := status(st, mcfgv1.MachineConfigNodeImagePulledFromRegistry); s != metav1.ConditionTrue {
		t.Errorf("ImagePulledFromRegistry = %s, want it kept", s)
	}
	again := Next(st, 0, Node{"b", "b", done}, nil, t2)
	c := meta.FindStatusCondition(again.Conditions, string(mcfgv1.MachineConfigNodeUpdated))
	if !c.LastTransitionTime.Equal(&t1) {
		t.Errorf("a write that changes nothing moved Updated's transition time to %v", c.LastTransitionTime)
	}
}
