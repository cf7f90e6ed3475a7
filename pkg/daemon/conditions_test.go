package daemon

import (
	"regexp"
	"testing"
	"time"

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

// The Staged message says what the stage wrote, under which I/O policy and
// governor target, and when it began to write; ParseStaged reads it back,
// and a message of a daemon without the I/O detail still gives the time.
func TestStagedDetailRoundTrip(t *testing.T) {
	res := StageResult{Checksum: "0123456789abcdef", BytesWritten: 4096, IO: "adaptive, governor target 2ms (2x idle 1.01ms)", Prepared: 5200 * time.Millisecond}
	msg := ConditionsAfter(Action{Kind: ActStage, Image: "img@sha256:aa", Config: "rendered-master-1"}, StagedDetail(res, 21300*time.Millisecond))[0].Message
	want := "Staged img@sha256:aa for rendered-master-1, finalization-locked as 0123456789ab (4096 bytes written in 21.3s; I/O policy adaptive, governor target 2ms (2x idle 1.01ms); writing began after 5.2s)"
	if msg != want {
		t.Fatalf("message\n%s\nwant\n%s", msg, want)
	}
	info, ok := ParseStaged(msg)
	if !ok || info.Took != 21300*time.Millisecond || info.Prepared != 5200*time.Millisecond || info.IO != res.IO {
		t.Fatalf("parsed %+v %v", info, ok)
	}
	// The governor's outcome has semicolons of its own.
	res.IO = "adaptive, governor target 7.06ms (2x idle 3.53ms), target missed (1.7% of 11715 fsyncs over it; 23 windows over it at the lever's floor)"
	info, ok = ParseStaged(StagedDetail(res, time.Minute))
	if !ok || info.IO != res.IO || info.Took != time.Minute {
		t.Fatalf("parsed %+v %v, want the I/O with the governor's outcome", info, ok)
	}
	old, ok := ParseStaged("Staged img for c, finalization-locked as 0123 (10 bytes written in 3s)")
	if !ok || old.Took != 3*time.Second || old.IO != "" {
		t.Fatalf("older message: %+v %v", old, ok)
	}
	if _, ok := ParseStaged("Staging img for c, finalization-locked"); ok {
		t.Fatal("a Staging message parsed as Staged")
	}
}
