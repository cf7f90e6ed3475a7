package daemon

import (
	"fmt"
	"regexp"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/daemon/mcnstatus"
)

// AllConditionTypes are the MachineConfigNode conditions the daemon keeps,
// as the MCO does; every MachineConfigNode has all of them (mcnstatus).
// ImagePulledFromRegistry carries the stage progress.
var AllConditionTypes = mcnstatus.Types

// IsProgressCondition tells whether t is reset to False when Updated turns
// True.
func IsProgressCondition(t string) bool { return mcnstatus.IsProgress(t) }

func cond(t mcfgv1.StateProgress, s metav1.ConditionStatus, reason, format string, args ...any) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// ConditionsBefore returns the MachineConfigNode conditions to set when the
// daemon starts action a (the "in progress" view).
func ConditionsBefore(a Action) []metav1.Condition {
	switch a.Kind {
	case ActStage:
		return []metav1.Condition{cond(mcfgv1.MachineConfigNodeImagePulledFromRegistry, metav1.ConditionUnknown, "Staging",
			"Staging %s for %s, finalization-locked", a.Image, a.Config)}
	case ActWriteFiles:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, string(mcfgv1.MachineConfigNodeUpdateFilesAndOS),
				"Updating the files and OS on disk as a part of the in progress phase"),
			cond(mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionUnknown, "UpdateExecutedAppliedFilesAndOS",
				"Applying files of %s; OS will %sneed an update", a.Config, map[bool]string{true: "", false: "not "}[a.OSChange]),
		}
	case ActFinalize, ActReboot, ActServeRebootRequest:
		what := "to finalize " + a.Config
		if a.Kind == ActServeRebootRequest {
			what = "for reboot request " + a.Token
		}
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionUnknown, string(mcfgv1.MachineConfigNodeUpdateRebooted), "Rebooting %s", what),
			cond(mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionUnknown, "UpdatePostActionCompleteRebootedNode", "Rebooting %s", what),
		}
	}
	return nil
}

// ConditionsAfter returns the MachineConfigNode conditions to set after
// action a succeeded; detail adds what the action learned (stage size...).
func ConditionsAfter(a Action, detail string) []metav1.Condition {
	switch a.Kind {
	case ActStage:
		return []metav1.Condition{cond(mcfgv1.MachineConfigNodeImagePulledFromRegistry, metav1.ConditionTrue, "Staged",
			"Staged %s for %s, finalization-locked%s", a.Image, a.Config, detail)}
	case ActCleanupStaged:
		return []metav1.Condition{cond(mcfgv1.MachineConfigNodeImagePulledFromRegistry, metav1.ConditionFalse, "StagedDeploymentDiscarded",
			"Discarded the staged deployment: %s", a.Reason)}
	case ActReportUnreconcilable:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdatePrepared, metav1.ConditionUnknown, string(mcfgv1.MachineConfigNodeUpdatePrepared),
				"Update Failed compatibility validation: %s", a.Reason),
			cond(mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionTrue, "Unreconcilable", "%s", a.Reason),
		}
	case ActReportDegraded:
		return []metav1.Condition{cond(mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionTrue, "Degraded", "%s", a.Reason)}
	case ActSetWorking:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdatePrepared, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdatePrepared),
				"Update Compatible: %s to %s; OS staged ahead of the disruption. Drain Required: true", orNone(a.From), a.Config),
			cond(mcfgv1.MachineConfigNodeUpdated, metav1.ConditionFalse, string(mcfgv1.MachineConfigNodeUpdated), "Updating to %s", a.Config),
			cond(mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionFalse, "NodeNotDegraded", "Updating to %s", a.Config),
		}
	case ActRequestDrain:
		var working []metav1.Condition
		if a.Working {
			working = ConditionsAfter(Action{Kind: ActSetWorking, Config: a.Config, From: a.From}, detail)
		}
		return append(working,
			cond(mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, string(mcfgv1.MachineConfigNodeUpdateDrained), "Draining node"),
			cond(mcfgv1.MachineConfigNodeUpdateCordoned, metav1.ConditionUnknown, "UpdateExecutedCordoned", "Cordon requested (%s)", a.Config),
			cond(mcfgv1.MachineConfigNodeUpdateDrained, metav1.ConditionUnknown, "UpdateExecutedDrained", "Drain requested (drain-%s)", a.Config),
		)
	case ActWriteFiles:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateCordoned, metav1.ConditionTrue, "UpdateExecutedCordoned", "Cordoned node"),
			cond(mcfgv1.MachineConfigNodeUpdateDrained, metav1.ConditionTrue, "UpdateExecutedDrained", "Drained node"),
			cond(mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdateExecuted),
				"Files and units of %s written, %s", a.Config, map[bool]string{false: "OS staged; reboot pending", true: "no reboot needed (" + a.Reason + ")"}[a.Rebootless]),
			cond(mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionTrue, "UpdateExecutedAppliedFilesAndOS",
				"Applied files and units of %s%s", a.Config, detail),
		}
	case ActRollbackFiles:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, "RolledBack", "Update restarts: %s", a.Reason),
			cond(mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionFalse, "RolledBack",
				"Restored the files from before the update: %s", a.Reason),
		}
	case ActVerify:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdatePostActionComplete),
				"Rebooted into %s%s", a.Config, detail),
			cond(mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionTrue, "UpdatePostActionCompleteRebootedNode", "Node rebooted; booted OS and files verified"),
		}
	case ActRequestUncordon:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateComplete, metav1.ConditionUnknown, string(mcfgv1.MachineConfigNodeUpdateUncordoned), "Uncordoning node"),
			cond(mcfgv1.MachineConfigNodeUpdateUncordoned, metav1.ConditionUnknown, "UpdateCompleteUncordoned", "Uncordon requested (uncordon-%s)", a.Config),
		}
	case ActSetDone, ActLoadInitialAnnotations:
		// A new node's initial annotations say it runs the config it was
		// installed with, as SetDone does after an update.
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateUncordoned, metav1.ConditionTrue, "UpdateCompleteUncordoned", "Node uncordoned"),
			cond(mcfgv1.MachineConfigNodeUpdateComplete, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdateComplete), "Node runs %s", a.Config),
			cond(mcfgv1.MachineConfigNodeResumed, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeResumed), "Node resumed normal operation"),
			cond(mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionFalse, "NodeNotDegraded", "Node runs %s", a.Config),
			cond(mcfgv1.MachineConfigNodeUpdated, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdated),
				"Node Machine Config updated to %s", a.Config),
		}
	case ActAdoptOnDiskConfig:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionTrue, string(mcfgv1.MachineConfigNodeUpdatePostActionComplete),
				"The disk holds %s (the on-disk currentconfig); completing the update to it", a.Config),
		}
	case ActAckReboot:
		return []metav1.Condition{
			cond(mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionTrue, "UpdatePostActionCompleteRebootedNode", "Rebooted for request %s", a.Token),
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// StagedDetail is the tail of the Staged condition's message: the staged
// checksum, the bytes and the time the stage took, and the I/O policy it
// ran under (with the governor's target) and when it began to write, so an
// SRE reading the MachineConfigNode (and the test world's report) can line
// a stage up with etcd's latency.
func StagedDetail(res StageResult, took time.Duration) string {
	io := ""
	if res.IO != "" {
		io = fmt.Sprintf("; I/O policy %s; writing began after %s", res.IO, res.Prepared.Round(time.Millisecond))
	}
	return fmt.Sprintf(" as %s (%d bytes written in %s%s)", short(res.Checksum), res.BytesWritten, took.Round(time.Millisecond), io)
}

// StagedInfo is what a Staged condition's message says (StagedDetail).
type StagedInfo struct {
	// Took is the whole stage, Prepared the part before it wrote.
	Took, Prepared time.Duration
	// IO is the policy with the governor's target, as StageResult.IO.
	IO string
}

// stagedRE matches StagedDetail's text.
var stagedRE = regexp.MustCompile(`bytes written in (\S+?)(?:; I/O policy (.*); writing began after (\S+))?\)$`)

// ParseStaged reads a Staged condition's message; ok is false when it is
// not one (another condition, or a daemon before the I/O detail).
func ParseStaged(message string) (StagedInfo, bool) {
	m := stagedRE.FindStringSubmatch(message)
	if m == nil {
		return StagedInfo{}, false
	}
	var info StagedInfo
	var err error
	if info.Took, err = time.ParseDuration(m[1]); err != nil {
		return StagedInfo{}, false
	}
	if m[3] != "" {
		if info.Prepared, err = time.ParseDuration(m[3]); err != nil {
			return StagedInfo{}, false
		}
		info.IO = m[2]
	}
	return info, true
}
