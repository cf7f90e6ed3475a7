package daemon

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Next picks the daemon's next step from what it observes. It is a pure
// function: no I/O, no clock, no memory of earlier calls. The loop performs
// the returned action and calls Next again with fresh observations, so after
// a kill -9 or a reboot at any point the same function continues correctly.
//
// Order of precedence:
//  0. a new node's bootstrap: the initial annotations, then the on-disk
//     currentconfig (bootstrap.go);
//  1. an update or reboot recorded on disk (it may have touched the machine);
//  2. a granted config (desiredConfig != currentConfig): stage if needed,
//     then state=Working, drain, write files, reboot;
//  3. a config to stage ahead of the grant (stageConfig != currentConfig);
//  4. idle: undo a leftover drain, drop a stale staged deployment, serve a
//     reboot request, report Done.
//
// Two safety rules hold in every branch:
//   - nothing reboots the node while a staged deployment that was not
//     granted would boot: an unlocked one (a reboot applies it) is discarded
//     first (see safeToReboot);
//   - a node without an update in progress must run currentConfig: the
//     booted OS, the kernel arguments and the files and units are compared
//     with it, as the MCO's validateOnDiskState does, and any drift is
//     reported Degraded instead of starting a config change (see onDiskDrift).
//
// With Order == OrderStock (the stock MCO's order, the benchmark's
// baseline) step 2 drains before it stages and step 3 does not exist.
func Next(o Observed) Action {
	if a, ok := bootstrapStep(o); ok {
		return a
	}
	if a, ok := adoptOnDiskConfig(o); ok {
		return a
	}
	if r := o.Record; r != nil {
		if r.Kind == RecordReboot {
			return nextRebootRecord(o, r)
		}
		return nextUpdateRecord(o, r)
	}
	n := o.Node
	drift := onDiskDrift(o)
	if o.ForceFile {
		drift = "" // the MCO skips the on-disk validation while the force file exists
	}
	switch {
	case n.Desired != "" && n.Desired != n.Current:
		return nextGranted(o, drift)
	case n.Stage != "" && n.Stage != n.Current && !o.stock():
		return nextStageOnly(o, drift)
	default:
		return nextIdle(o, drift)
	}
}

// nextUpdateRecord continues (or rolls back) an update that started writing.
func nextUpdateRecord(o Observed, r *Record) Action {
	if r.Rebootless {
		return nextRebootlessRecord(o, r)
	}
	switch r.Phase {
	case PhaseWriting:
		return rollback("the daemon stopped while writing files")
	case PhaseVerified:
		return nextComplete(o, r)
	}
	st := o.OS.Staged
	stagedOurs := st != nil && st.Checksum == r.TargetChecksum
	if o.BootID != r.BootID {
		// The machine rebooted since the record was written.
		if !r.Phase.AtLeast(PhaseRebooting) {
			// A power loss (or someone else's reboot) before the daemon asked for
			// one: the staged OS, if any, is gone. Restore the files so the node
			// runs the old config consistently, then start again.
			return rollback("the node rebooted before the update asked for a reboot")
		}
		if r.OSChange && o.OS.Booted.Checksum != r.TargetChecksum {
			if rb := o.OS.Rollback; rb != nil && rb.Checksum == r.TargetChecksum {
				// The reboot applied the deployment and the machine came back
				// on the old one: the new OS failed to boot and the bootloader
				// fell back (greenboot). Trying again would reboot forever;
				// report it, as the MCO reports an unexpected booted image.
				return *report(o.Node, constants.MachineConfigDaemonStateDegraded, fmt.Sprintf(
					"unexpected on-disk state validating against %s: booted %s, not the finalized deployment %s (%s): the new OS failed to boot and the node fell back",
					r.Config, short(o.OS.Booted.Checksum), short(r.TargetChecksum), r.TargetImage))
			}
			return rollback(fmt.Sprintf("booted %s instead of the finalized deployment %s", short(o.OS.Booted.Checksum), short(r.TargetChecksum)))
		}
		if lost := lostKernelArgs(o, r); lost != "" {
			// A power loss after the reboot was asked for but before the
			// kernel-argument deployment was finalized boots the old
			// arguments. Roll back and apply them again.
			return rollback(lost)
		}
		if lost := lostLayering(o, r); lost != "" {
			return rollback(lost) // likewise for the kernel type and extensions
		}
		return Action{Kind: ActVerify, Config: r.Config}
	}
	// Same boot: carry on towards the reboot.
	if r.Phase.AtLeast(PhaseRebooting) {
		return rebootStep(o, r, st, stagedOurs)
	}
	if o.Node.Desired != r.Config {
		return rollback(fmt.Sprintf("desiredConfig changed to %q before the reboot", o.Node.Desired))
	}
	if r.OSChange && !stagedOurs {
		return rollback(fmt.Sprintf("the staged deployment %s disappeared before the reboot", short(r.TargetChecksum)))
	}
	if !r.Phase.AtLeast(PhaseKernelArgs) {
		add, del := KernelArgsEdit(o.Configs[r.FromConfig].KernelArgs, o.Configs[r.Config].KernelArgs)
		if len(add)+len(del) > 0 {
			return Action{Kind: ActApplyKernelArgs, Config: r.Config, From: r.FromConfig, KernelArgsAppend: add, KernelArgsDelete: del}
		}
	}
	if !r.Phase.AtLeast(PhaseKubeletStopped) {
		if a, ok := layerStep(o, r); ok {
			return a // kernelType and extensions, onto the locked staged deployment
		}
		return Action{Kind: ActStopKubelet, Config: r.Config}
	}
	return rebootStep(o, r, st, stagedOurs)
}

// rebootStep finalizes the update's staged deployment when it is still
// locked, and otherwise asks for a plain reboot (which also applies an
// unlocked staged deployment). The update's deployment is the one staged
// for its OS change, or, without an OS change, the one kernel arguments were
// set on (the booted commit). Any other staged deployment would boot an OS
// nobody granted if it is unlocked, and is discarded first.
func rebootStep(o Observed, r *Record, st *Deployment, stagedOurs bool) Action {
	ours := stagedOurs || (!r.OSChange && st != nil && st.Checksum == o.OS.Booted.Checksum)
	switch {
	case st != nil && !ours:
		return Action{Kind: ActCleanupStaged, Config: r.Config,
			Reason: fmt.Sprintf("staged deployment %s (%s) is not this update's", short(st.Checksum), st.Image)}
	case st != nil && st.FinalizationLocked:
		return Action{Kind: ActFinalize, Config: r.Config, Checksum: st.Checksum}
	}
	return Action{Kind: ActReboot, Config: r.Config}
}

// nextComplete finishes a verified update: uncordon handshake, then Done.
func nextComplete(o Observed, r *Record) Action {
	n, x := o.Node, r.Config
	uncordon := constants.UncordonRequest(x)
	switch {
	case n.DesiredDrain != uncordon:
		return Action{Kind: ActRequestUncordon, Config: x}
	case n.LastAppliedDrain != uncordon:
		return wait("waiting for the drain controller to uncordon the node (%s)", uncordon)
	case n.Current != x || n.State != constants.MachineConfigDaemonStateDone || n.Reason != "" ||
		(r.RebootToken != "" && n.LastReboot != r.RebootToken):
		return Action{Kind: ActSetDone, Config: x, Token: r.RebootToken}
	}
	return Action{Kind: ActClearRecord, Config: x}
}

// nextRebootRecord serves a rebootRequest: reboot, then acknowledge it.
func nextRebootRecord(o Observed, r *Record) Action {
	switch {
	case o.BootID == r.BootID:
		if a := safeToReboot(o); a != nil {
			return *a
		}
		return Action{Kind: ActReboot, Token: r.RebootToken}
	case o.Node.LastReboot != r.RebootToken:
		return Action{Kind: ActAckReboot, Token: r.RebootToken}
	}
	return Action{Kind: ActClearRecord, Token: r.RebootToken}
}

// nextGranted moves the node to desiredConfig.
func nextGranted(o Observed, drift string) Action {
	n := o.Node
	x := n.Desired
	c, bad := usableConfig(o, x)
	if bad != nil {
		return *bad
	}
	if drift != "" {
		// The MCO does not update a node whose disk does not match its
		// currentConfig: the new config's diff would be taken against a
		// state the node is not in.
		return *report(n, constants.MachineConfigDaemonStateDegraded, drift)
	}
	osChange := needsOS(o, c)
	if a := staleStageFailure(n, x, false); a != nil {
		return *a
	}
	if !o.stock() {
		// tandem: the OS is ready before anything disrupts the node.
		if a := stageStep(o, c, osChange, false); a != nil {
			return *a
		}
		if n.Staged != x {
			return Action{Kind: ActReportStaged, Config: x}
		}
		if a := staleStageFailure(n, x, true); a != nil {
			return *a
		}
	}
	if a, ok := rebootlessStep(o, x, osChange); ok {
		return a
	}
	switch {
	case n.State != constants.MachineConfigDaemonStateWorking && n.DesiredDrain != constants.DrainRequest(x) && !o.stock():
		// One write for both: a write per node fewer in a rollout.
		return Action{Kind: ActRequestDrain, Config: x, From: n.Current, Working: true}
	case n.State != constants.MachineConfigDaemonStateWorking:
		return Action{Kind: ActSetWorking, Config: x, From: n.Current}
	case n.DesiredDrain != constants.DrainRequest(x):
		return Action{Kind: ActRequestDrain, Config: x}
	case n.LastAppliedDrain != constants.DrainRequest(x):
		return wait("waiting for the drain controller to drain the node (%s)", constants.DrainRequest(x))
	}
	if o.stock() {
		// Stock MCO: the pull happens on the drained node.
		if a := stageStep(o, c, osChange, false); a != nil {
			return *a
		}
	}
	a := Action{Kind: ActWriteFiles, Config: x, From: n.Current, OSChange: osChange, Image: c.Image}
	if osChange {
		a.Checksum = o.OS.Staged.Checksum
	}
	if pendingReboot(n) {
		// One reboot serves both the update and the reboot request.
		a.Token = n.RebootRequest
	}
	return a
}

// nextStageOnly stages stageConfig's OS ahead of the grant; no disruption.
func nextStageOnly(o Observed, drift string) Action {
	n := o.Node
	if a := undoLeftoverDrain(n); a != nil {
		return *a
	}
	if pendingReboot(n) {
		if a := safeToReboot(o); a != nil {
			return *a
		}
		return Action{Kind: ActServeRebootRequest, Token: n.RebootRequest}
	}
	x := n.Stage
	c, bad := usableConfig(o, x)
	if bad != nil {
		return *bad
	}
	if drift != "" {
		return *report(n, constants.MachineConfigDaemonStateDegraded, drift)
	}
	if a := staleStageFailure(n, x, false); a != nil {
		return *a
	}
	if a := stageStep(o, c, needsOS(o, c), true); a != nil {
		return *a
	}
	if n.Staged != x {
		return Action{Kind: ActReportStaged, Config: x}
	}
	if a := staleStageFailure(n, x, true); a != nil {
		return *a
	}
	if a := reportDone(n); a != nil {
		return *a
	}
	return wait("%s is staged; waiting for desiredConfig", x)
}

// nextIdle keeps a node that runs its desired config tidy. A staged
// deployment no config asks for goes before a reboot request is served: an
// unlocked one would boot with it.
func nextIdle(o Observed, drift string) Action {
	n := o.Node
	if a := undoLeftoverDrain(n); a != nil {
		return *a
	}
	if o.OS.Staged != nil {
		return Action{Kind: ActCleanupStaged, Reason: "no config asks for the staged deployment"}
	}
	if pendingReboot(n) {
		return Action{Kind: ActServeRebootRequest, Token: n.RebootRequest}
	}
	if drift != "" {
		return *report(n, constants.MachineConfigDaemonStateDegraded, drift)
	}
	if a := staleStageFailure(n, "", false); a != nil {
		return *a
	}
	if a := reportDone(n); a != nil {
		return *a
	}
	return wait("node runs %s", n.Current)
}

// usableConfig returns the named config, or the report to make when it
// cannot be used.
func usableConfig(o Observed, name string) (ConfigState, *Action) {
	c, ok := o.Configs[name]
	if !ok || !c.Found {
		return c, report(o.Node, constants.MachineConfigDaemonStateDegraded,
			fmt.Sprintf("MachineConfig %q named by the node's annotations does not exist", name))
	}
	if c.Invalid != "" {
		if o.OS.Staged != nil {
			// Nothing may stay staged for a config that will not be applied.
			return c, &Action{Kind: ActCleanupStaged, Config: name, Reason: "config cannot be applied"}
		}
		return c, report(o.Node, constants.MachineConfigDaemonStateUnreconcilable,
			fmt.Sprintf("MachineConfig %s cannot be applied: %s", name, c.Invalid))
	}
	return c, nil
}

// stageStep returns the staging step still needed for c, or nil when the OS
// is ready (staged, or no OS change). requireLock rejects a staged deployment
// that a reboot would apply: before the grant only a locked one is safe.
func stageStep(o Observed, c ConfigState, osChange, requireLock bool) *Action {
	st := o.OS.Staged
	if !osChange {
		if st != nil {
			return &Action{Kind: ActCleanupStaged, Config: c.Name, Reason: "the config needs no OS change"}
		}
		return nil
	}
	switch {
	case st == nil:
		return &Action{Kind: ActStage, Config: c.Name, Image: c.Image, ExtensionsImage: stageRepo(o, c)}
	case st.Image != c.Image:
		return &Action{Kind: ActCleanupStaged, Config: c.Name, Reason: fmt.Sprintf("staged image %s is not %s", st.Image, c.Image)}
	case requireLock && !st.FinalizationLocked:
		return &Action{Kind: ActCleanupStaged, Config: c.Name, Reason: "staged deployment is not finalization-locked"}
	}
	return nil
}

// needsOS tells whether c boots another OS image than the booted one.
func needsOS(o Observed, c ConfigState) bool {
	return c.Image != "" && c.Image != o.OS.Booted.Image
}

// undoLeftoverDrain asks to uncordon a node drained for an update that is
// no longer wanted (the grant was withdrawn and the files rolled back).
func undoLeftoverDrain(n NodeState) *Action {
	if strings.HasPrefix(n.DesiredDrain, constants.DrainerStateDrain+"-") {
		return &Action{Kind: ActRequestUncordon, Config: n.Current}
	}
	if n.DesiredDrain != "" && n.LastAppliedDrain != n.DesiredDrain {
		a := wait("waiting for the drain controller (%s)", n.DesiredDrain)
		return &a
	}
	return nil
}

// reportDone returns SetDone when the node runs currentConfig but does not
// say so (a cleared failure, a fresh node).
func reportDone(n NodeState) *Action {
	if n.Current == "" || (n.State == constants.MachineConfigDaemonStateDone && n.Reason == "") {
		return nil
	}
	return &Action{Kind: ActSetDone, Config: n.Current}
}

// report returns the Degraded/Unreconcilable report, or a Wait when the node
// already shows it.
func report(n NodeState, state, reason string) *Action {
	if n.State == state && n.Reason == reason {
		a := wait("%s: %s", state, reason)
		return &a
	}
	kind := ActReportDegraded
	if state == constants.MachineConfigDaemonStateUnreconcilable {
		kind = ActReportUnreconcilable
	}
	return &Action{Kind: kind, Reason: reason}
}

// safeToReboot returns the step that must come before a reboot that no
// update asked for (a rebootRequest): an unlocked staged deployment would
// boot with it, and nobody granted it. A locked one is discarded by the
// reboot itself (ostree-finalize-staged skips a locked deployment).
func safeToReboot(o Observed) *Action {
	if st := o.OS.Staged; st != nil && !st.FinalizationLocked {
		return &Action{Kind: ActCleanupStaged,
			Reason: fmt.Sprintf("unlocked staged deployment %s (%s) would boot with the requested reboot", short(st.Checksum), st.Image)}
	}
	return nil
}

func pendingReboot(n NodeState) bool {
	return n.RebootRequest != "" && n.RebootRequest != n.LastReboot
}

func rollback(reason string) Action {
	return Action{Kind: ActRollbackFiles, Reason: reason}
}

func wait(format string, args ...any) Action {
	return Action{Kind: ActWait, Reason: fmt.Sprintf(format, args...)}
}

func short(checksum string) string {
	if len(checksum) > 12 {
		return checksum[:12]
	}
	return checksum
}

// KernelArgsEdit is how the MCO changes kernel arguments from one config's
// to another's (openshift/machine-config-operator release-4.21
// pkg/daemon/update.go generateKargs, called when the two lists differ):
// every argument of the old config deleted if present, every argument of
// the new one appended, repeated ones included ("we first delete all kernel
// arguments which have been applied by MCO previously and append all of
// the kernel arguments present in the new rendered MachineConfig"). Both
// are split into single arguments (parseKernelArguments). rpm-ostree
// appends before it deletes, each delete taking the first match, so the
// node ends with the new config's arguments in its order after the base
// ones. Nothing when the lists are the same.
func KernelArgsEdit(from, to []string) (add, del []string) {
	f, t := SplitKernelArgs(from), SplitKernelArgs(to)
	if slices.Equal(f, t) {
		return nil, nil
	}
	return t, f
}
