package daemon

import (
	"fmt"

	opv1 "github.com/openshift/api/operator/v1"
)

// ActionKind is one step of the daemon. Each step does one thing; the loop
// performs it and observes again.
type ActionKind string

const (
	// ActWait: nothing to do until something observed changes.
	ActWait ActionKind = "Wait"
	// ActStage pulls Image and stages it finalization-locked.
	ActStage ActionKind = "Stage"
	// ActCleanupStaged discards a staged deployment that is not wanted.
	ActCleanupStaged ActionKind = "CleanupStaged"
	// ActReportStaged sets stagedConfig=Config.
	ActReportStaged ActionKind = "ReportStaged"
	// ActClearStageFailure removes a stage failure the node reports for a
	// config no longer asked for (or staged since).
	ActClearStageFailure ActionKind = "ClearStageFailure"
	// ActReportUnreconcilable sets state=Unreconcilable with Reason.
	ActReportUnreconcilable ActionKind = "ReportUnreconcilable"
	// ActReportDegraded sets state=Degraded with Reason.
	ActReportDegraded ActionKind = "ReportDegraded"
	// ActSetWorking sets state=Working for Config.
	ActSetWorking ActionKind = "SetWorking"
	// ActRequestDrain sets desiredDrain=drain-<Config> (and state=Working
	// with it when Working is set).
	ActRequestDrain ActionKind = "RequestDrain"
	// ActWriteFiles writes Config's files and units (backing up what they
	// replace) and starts the record.
	ActWriteFiles ActionKind = "WriteFiles"
	// ActRollbackFiles restores the backups of the record and deletes it.
	ActRollbackFiles ActionKind = "RollbackFiles"
	// ActApplyKernelArgs sets the kernel arguments on the pending deployment.
	ActApplyKernelArgs ActionKind = "ApplyKernelArgs"
	// ActStopKubelet stops kubelet ahead of the reboot.
	ActStopKubelet ActionKind = "StopKubelet"
	// ActFinalize runs `rpm-ostree finalize-deployment Checksum` (reboots).
	ActFinalize ActionKind = "Finalize"
	// ActReboot reboots the host (no finalization pending).
	ActReboot ActionKind = "Reboot"
	// ActServeRebootRequest starts serving rebootRequest Token: records it,
	// stops kubelet and reboots.
	ActServeRebootRequest ActionKind = "ServeRebootRequest"
	// ActVerify checks, after the reboot, the booted OS and the files.
	ActVerify ActionKind = "Verify"
	// ActRequestUncordon sets desiredDrain=uncordon-<Config>.
	ActRequestUncordon ActionKind = "RequestUncordon"
	// ActSetDone sets currentConfig=Config, state=Done (and lastReboot=Token).
	ActSetDone ActionKind = "SetDone"
	// ActAckReboot sets lastReboot=Token.
	ActAckReboot ActionKind = "AckReboot"
	// ActClearRecord deletes the record and its backups.
	ActClearRecord ActionKind = "ClearRecord"
	// ActPostConfigAction carries out PostActions[Index] of a rebootless
	// update (reload or restart a unit, daemon-reload) and records it done.
	ActPostConfigAction ActionKind = "PostConfigAction"
	// ActAdoptOnDiskConfig records as verified the update to the config the
	// on-disk currentconfig names, once the disk was found to hold it; it
	// then completes like any update (the MCO's "disk currentConfig
	// overrides the node's annotation").
	ActAdoptOnDiskConfig ActionKind = "AdoptOnDiskConfig"
)

// Action is the next step and its arguments.
type Action struct {
	Kind ActionKind
	// Config is the rendered MachineConfig the step is for; From the one the
	// node runs (for file diffs and kernel argument changes).
	Config string
	From   string
	// Image is the OS image to stage; Checksum the deployment to finalize.
	Image    string
	Checksum string
	// KernelArgsAppend and KernelArgsDelete for ActApplyKernelArgs.
	KernelArgsAppend []string
	KernelArgsDelete []string
	// OSChange for ActWriteFiles: the update boots a new OS.
	OSChange bool
	// Reason explains a Wait, an Unreconcilable or a Degraded report.
	Reason string
	// Token is the rebootRequest being served or acknowledged.
	Token string
	// Rebootless for ActWriteFiles: the update is applied without a reboot by
	// PostActions (the node disruption policy actions), one at a time;
	// Index is the one ActPostConfigAction carries out.
	Rebootless  bool
	PostActions []opv1.NodeDisruptionPolicyStatusAction
	Index       int
	// Working for ActRequestDrain: state=Working is set in the same write
	// (tandem's order; the stock MCD writes them one after the other).
	Working bool
	// Packages for ActLayerPackages; ExtensionsImage, for it and ActStage,
	// is the extensions image whose repository rpm-ostree installs from.
	Packages        *PackageChange
	ExtensionsImage string
}

func (a Action) String() string {
	s := string(a.Kind)
	if a.Config != "" {
		s += " " + a.Config
	}
	if a.Image != "" {
		s += " image=" + a.Image
	}
	if a.Checksum != "" {
		s += " checksum=" + a.Checksum
	}
	if a.Token != "" {
		s += " token=" + a.Token
	}
	if a.Working {
		s += " +state=Working"
	}
	if a.Reason != "" {
		s += fmt.Sprintf(" (%s)", a.Reason)
	}
	return s
}
