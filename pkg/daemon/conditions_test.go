package daemon

import (
	"regexp"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// reasonRE is metav1.Condition's validation of Reason.
var reasonRE = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

func TestConditionsAreValidAndKnown(t *testing.T) {
	known := map[string]bool{}
	for _, c := range AllConditionTypes {
		known[string(c)] = true
	}
	kinds := []ActionKind{ActWait, ActStage, ActCleanupStaged, ActReportStaged, ActReportUnreconcilable, ActReportDegraded,
		ActSetWorking, ActRequestDrain, ActWriteFiles, ActRollbackFiles, ActApplyKernelArgs, ActStopKubelet, ActFinalize,
		ActReboot, ActServeRebootRequest, ActVerify, ActRequestUncordon, ActSetDone, ActAckReboot, ActClearRecord}
	for _, k := range kinds {
		a := Action{Kind: k, Config: "rendered-x", Image: "r/os@sha256:1", Reason: "why", Token: "t"}
		for _, c := range append(ConditionsBefore(a), ConditionsAfter(a, "")...) {
			if !known[c.Type] {
				t.Errorf("%s: unknown condition type %s", k, c.Type)
			}
			if !reasonRE.MatchString(c.Reason) {
				t.Errorf("%s: condition %s has invalid reason %q", k, c.Type, c.Reason)
			}
			if c.Message == "" {
				t.Errorf("%s: condition %s has no message", k, c.Type)
			}
		}
	}
}

func TestConditionsFollowTheMCO(t *testing.T) {
	find := func(cs []metav1.Condition, t mcfgv1.StateProgress) *metav1.Condition {
		for i := range cs {
			if cs[i].Type == string(t) {
				return &cs[i]
			}
		}
		return nil
	}
	done := ConditionsAfter(Action{Kind: ActSetDone, Config: "c"}, "")
	if c := find(done, mcfgv1.MachineConfigNodeUpdated); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("SetDone does not set Updated=True: %+v", done)
	}
	bad := ConditionsAfter(Action{Kind: ActReportUnreconcilable, Reason: "storage.disks"}, "")
	if c := find(bad, mcfgv1.MachineConfigNodeNodeDegraded); c == nil || c.Status != metav1.ConditionTrue || c.Message != "storage.disks" {
		t.Errorf("Unreconcilable does not set NodeDegraded with the reason: %+v", bad)
	}
	if !IsProgressCondition(string(mcfgv1.MachineConfigNodeUpdateDrained)) || IsProgressCondition(string(mcfgv1.MachineConfigNodeUpdated)) {
		t.Error("progress conditions misclassified")
	}
}
