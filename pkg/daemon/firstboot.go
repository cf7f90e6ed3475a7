package daemon

import (
	"fmt"
	"slices"
)

// A new node's first boot (openshift/machine-config-operator release-4.21:
// the machine-config-daemon-firstboot unit runs `machine-config-daemon
// firstboot-complete-machineconfig`, pkg/daemon/daemon.go
// RunFirstbootCompleteMachineconfig). Ignition has written the rendered
// config's files and left the config itself, its Ignition emptied, in
// /etc/ignition-machine-config-encapsulated.json; the node still boots its
// boot image. The MCO compares an empty config carrying the booted image
// and the running kernel arguments (only those the config names:
// setRunningKargs) with the encapsulated one. Without a difference it
// removes the file and the boot goes on; otherwise it brings the OS to the
// config (rebase to osImageURL, kernel arguments, extensions, kernel type:
// applyOSChanges), stores the config as the on-disk currentconfig, renames
// the file to .bak and reboots.
//
// tandem stages the image finalization-locked, sets the kernel arguments
// and layers the packages onto that staged deployment, as in an update
// (next.go), and the reboot is the finalize of that deployment. Nothing of
// it is durable before the reboot except the files written, the on-disk
// currentconfig and the rename, which come last: an attempt that fails (or
// a crash) leaves the node booting its boot image with the encapsulated
// config still in place, and the next attempt starts again from there,
// discarding what an earlier one staged.

// On-disk files of the first boot (the MCO's pkg/daemon/constants,
// release-4.21).
const (
	// EncapsulatedConfigPath is the MachineConfig the machine-config-server
	// left for the first boot; its removal or rename ends it.
	EncapsulatedConfigPath = "/etc/ignition-machine-config-encapsulated.json"
	// EncapsulatedConfigBakPath is where a completed first boot leaves it.
	EncapsulatedConfigBakPath = "/etc/ignition-machine-config-encapsulated.json.bak"
)

// Actions of the first boot only. They are steps of the one-shot
// firstboot-complete-machineconfig, not of the daemon's loop, so they are
// not declared of type ActionKind: TestDaemonCrash crashes the loop at
// every constant of that type, and the first boot has no record to crash
// at (an attempt cut short starts again from the booted deployment).
const (
	// ActFirstbootWriteFiles writes the encapsulated config's files and
	// units (the MCO's updateFiles; the machine-config-server empties its
	// Ignition, so there is normally nothing to write).
	ActFirstbootWriteFiles = ActionKind("FirstbootWriteFiles")
	// ActFirstbootStore stores the config as the on-disk currentconfig and
	// renames the encapsulated file to .bak; the reboot follows.
	ActFirstbootStore = ActionKind("FirstbootStore")
	// ActFirstbootNothing removes the encapsulated file: the node already
	// runs the config's OS and kernel arguments, no reboot is needed.
	ActFirstbootNothing = ActionKind("FirstbootNothing")
)

// FirstbootObserved is what the first boot's plan depends on.
type FirstbootObserved struct {
	// Config is the encapsulated MachineConfig, judged as the daemon judges
	// a config (Image normalised, Layering, Invalid).
	Config ConfigState
	OS     OSState
	// Cmdline is the running kernel's command line; nil when not known
	// (every kernel argument of the config is then set).
	Cmdline []string
	// NICKargs are the arguments --persist-nics appended (RecordNICKargs):
	// the deployment the first boot stages keeps them.
	NICKargs []string
}

// FirstbootPlan is the first boot's steps, in order, up to the reboot
// (FirstbootReboot picks that step once they are done). A config that
// cannot be applied is an error.
func FirstbootPlan(o FirstbootObserved) ([]Action, error) {
	c := o.Config
	if c.Invalid != "" {
		return nil, fmt.Errorf("MachineConfig %s cannot be applied on its first boot: %s", c.Name, c.Invalid)
	}
	var steps []Action
	if st := o.OS.Staged; st != nil {
		// An earlier attempt's (or anybody's): the plan starts from the
		// booted deployment.
		steps = append(steps, Action{Kind: ActCleanupStaged, Config: c.Name,
			Reason: fmt.Sprintf("staged deployment %s (%s) is left from an earlier attempt or --persist-nics", short(st.Checksum), st.Image)})
	}
	var change []Action
	booted := o.OS.Booted
	if c.Image != "" && c.Image != booted.Image {
		change = append(change, Action{Kind: ActStage, Config: c.Name, Image: c.Image, ExtensionsImage: firstbootRepo(o)})
	}
	if add := withNICKargs(firstbootKernelArgs(c.KernelArgs, o.Cmdline), o.NICKargs, o.Cmdline); len(add) > 0 {
		change = append(change, Action{Kind: ActApplyKernelArgs, Config: c.Name, KernelArgsAppend: add})
	}
	if ch := LayeringChange(booted.Packages, booted.BaseRemovals, c.Layering); !ch.Empty() {
		a := Action{Kind: ActLayerPackages, Config: c.Name, Packages: &ch, Reason: ch.String()}
		if len(ch.Install) > 0 {
			a.ExtensionsImage = c.ExtensionsImage
		}
		change = append(change, a)
	}
	if len(change) == 0 {
		return append(steps, Action{Kind: ActFirstbootNothing, Config: c.Name,
			Reason: "the node runs the config's OS image, kernel arguments and packages"}), nil
	}
	steps = append(steps, change...)
	return append(steps,
		Action{Kind: ActFirstbootWriteFiles, Config: c.Name},
		Action{Kind: ActFirstbootStore, Config: c.Name}), nil
}

// FirstbootReboot is the reboot that completes a first boot: the finalize
// of the locked deployment the plan staged (a kernel argument change alone
// may leave an unlocked one, which any reboot applies).
func FirstbootReboot(name string, os OSState) Action {
	if st := os.Staged; st != nil && st.FinalizationLocked {
		return Action{Kind: ActFinalize, Config: name, Checksum: st.Checksum}
	}
	return Action{Kind: ActReboot, Config: name, Reason: "Completing firstboot provisioning to " + name}
}

// firstbootKernelArgs are the config's kernel arguments the running kernel
// lacks, repeats counted: the MCO's old config holds the running arguments
// the config names (setRunningKargs), so the diff only appends.
func firstbootKernelArgs(config, cmdline []string) []string {
	left := slices.Clone(cmdline)
	var add []string
	for _, a := range SplitKernelArgs(config) {
		if i := slices.Index(left, a); i >= 0 {
			left = slices.Delete(left, i, i+1) // running: counted once
			continue
		}
		add = append(add, a)
	}
	return add
}

// withNICKargs adds to add the NIC-pinning arguments that neither the
// running kernel nor add already has: the config may name the same ones.
func withNICKargs(add, nic, cmdline []string) []string {
	for _, a := range nic {
		if !slices.Contains(cmdline, a) && !slices.Contains(add, a) {
			add = append(add, a)
		}
	}
	return add
}

// firstbootRepo is the extensions image to provide while staging: needed
// when the booted deployment already layers packages (they are layered
// again on the new base) or the config layers some.
func firstbootRepo(o FirstbootObserved) string {
	c := o.Config
	if c.ExtensionsImage == "" || (c.Layering.Empty() && len(o.OS.Booted.Packages) == 0) {
		return ""
	}
	return c.ExtensionsImage
}
