package daemon

import (
	"fmt"
	"slices"
	"strings"
)

// The on-disk validation follows the MCO's pkg/daemon (daemon.go,
// validateOnDiskStateImpl and validateKernelArguments; on_disk_validation.go,
// validateOnDiskState; read at openshift/machine-config-operator commit
// 7ff337a4ffac, master of 2026-08-20). At every start (checkStateOnFirstRun)
// the MCD checks, against currentConfig:
//   - the booted OS image is the config's osImageURL ("expected target
//     osImageURL %q, have %q");
//   - every kernel argument of the config is on the booted kernel's command
//     line ("missing expected kernel arguments: %v"; each entry is split on
//     spaces, presence is what counts);
//   - the config's files and units are on disk as the config says;
//
// and marks the node Degraded with "unexpected on-disk state validating
// against <config>: <what>" when one does not hold.

// OnDiskCheck is the observer's comparison of the files and units on disk
// with a config (the part of the validation that needs the disk).
type OnDiskCheck struct {
	// Config is the config the disk was compared with; "" when no
	// comparison was made (an update is in progress, no currentConfig).
	Config string
	// Drift says what differs; "" when the disk matches.
	Drift string
}

// onDiskDrift is the MCO's on-disk validation for a node without an update
// in progress. It returns the Degraded reason, "" when the node runs its
// currentConfig or the config is not known.
func onDiskDrift(o Observed) string {
	cur := o.Node.Current
	c, ok := o.Configs[cur]
	if cur == "" || !ok || !c.Found {
		return ""
	}
	var problems []string
	if c.Image != "" && c.Image != o.OS.Booted.Image {
		problems = append(problems, fmt.Sprintf("expected target osImageURL %q, have %q", c.Image, o.OS.Booted.Image))
	}
	if o.Cmdline != nil {
		if missing := missingKernelArgs(c.KernelArgs, o.Cmdline); len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("missing expected kernel arguments: %v", missing))
		}
	}
	if o.OnDisk.Config == cur && o.OnDisk.Drift != "" {
		problems = append(problems, o.OnDisk.Drift)
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("unexpected on-disk state validating against %s: %s", cur, strings.Join(problems, "; "))
}

// SplitKernelArgs splits MachineConfig kernel argument entries (an entry may
// hold several arguments separated by spaces, as the MCO's
// parseKernelArguments allows) into single arguments. Double quotes group,
// as on a kernel command line.
func SplitKernelArgs(entries []string) []string {
	var out []string
	for _, e := range entries {
		out = append(out, splitCmdline(e)...)
	}
	return out
}

// ParseCmdline splits a kernel command line (/proc/cmdline) into arguments.
func ParseCmdline(s string) []string {
	args := splitCmdline(s)
	if args == nil {
		return []string{}
	}
	return args
}

func splitCmdline(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			have = true
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// missingKernelArgs lists the config's kernel arguments the command line
// lacks (the MCO's presence rule).
func missingKernelArgs(config, cmdline []string) []string {
	var missing []string
	for _, a := range SplitKernelArgs(config) {
		if !slices.Contains(cmdline, a) {
			missing = append(missing, a)
		}
	}
	return missing
}

// lostKernelArgs tells, after the reboot of an update, whether the booted
// kernel runs without the update's kernel argument change: counting
// arguments, not only looking for them, so a repeated one (hugepages=16
// for each page size) that went missing shows. The expected count of each
// argument of either config is what rpm-ostree makes of the update's edit
// (KernelArgsEdit) from the command line the update started from (the
// record keeps it); without that, every argument of the new config must be
// there at least as often as the config has it. "" when the change took,
// or when the command line is not known.
func lostKernelArgs(o Observed, r *Record) string {
	if o.Cmdline == nil {
		return ""
	}
	add, del := KernelArgsEdit(o.Configs[r.FromConfig].KernelArgs, o.Configs[r.Config].KernelArgs)
	if len(add)+len(del) == 0 {
		return ""
	}
	var missing, kept []string
	for _, a := range dedup(append(slices.Clone(add), del...)) {
		got := count(o.Cmdline, a)
		want := count(add, a) // no record of the boot: at least the config's
		if r.BootKernelArgs != nil {
			want = editedCount(count(r.BootKernelArgs, a), count(add, a), count(del, a))
		} else if got > want {
			continue
		}
		for ; got < want; got++ {
			missing = append(missing, a)
		}
		for ; got > want; got-- {
			kept = append(kept, a)
		}
	}
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("missing %v", missing))
	}
	if len(kept) > 0 {
		problems = append(problems, fmt.Sprintf("still has %v", kept))
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("the node booted without the kernel arguments of %s (%s)", r.Config, strings.Join(problems, ", "))
}

// editedCount is how many times an argument is on the command line after
// `rpm-ostree kargs` with appended --append and deleted --delete-if-present
// of it, when it was there before times (rpm-ostree v2024.1 on,
// kernel_arg_apply_patching: the appends first, then each delete, when the
// argument was among those the edit started from, removes one).
func editedCount(before, appended, deleted int) int {
	n := before + appended
	if before > 0 {
		n -= min(deleted, n)
	}
	return n
}

func count(s []string, x string) int {
	n := 0
	for _, v := range s {
		if v == x {
			n++
		}
	}
	return n
}

func dedup(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
