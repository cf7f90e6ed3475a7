package daemon

import (
	"path/filepath"
	"slices"
	"strings"

	opv1 "github.com/openshift/api/operator/v1"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// Disruption is what a config change costs the node: a reboot, or a list of
// post-write actions and whether the node is drained for them.
type Disruption struct {
	// Reboot: the change is applied by the staged, granted, finalized reboot.
	Reboot bool
	// Actions are carried out in order after the files are written when
	// Reboot is false; a lone None action means nothing to do.
	Actions []opv1.NodeDisruptionPolicyStatusAction
	// Drain: the node is drained before the files are written.
	Drain bool
	// Why says in a few words what decided (for logs and conditions).
	Why string
}

// PlanDisruption picks the cheapest way to apply diff with the MCO's rules
// (calculatePostConfigChangeNodeDisruptionAction,
// calculatePostConfigChangeNodeDisruptionActionFromMCDiffs and
// isDrainRequiredForNodeDisruptionActions in openshift/machine-config-operator
// pkg/daemon/update.go and drain.go, release-4.20 at afed09939d80):
//   - the force file, an OS, kernel argument, FIPS, kernel type or extensions
//     change: Reboot;
//   - no file, unit or passwd change: None (no drain);
//   - every changed file takes the policy of its longest matching path (the
//     path itself or a parent directory), every changed unit the policy of
//     its name, a passwd change the SSH key policy; one file or unit without
//     a policy, or any Reboot action: Reboot;
//   - None actions are dropped when other actions remain;
//   - Drain or Reboot drain the node; Special (registries.conf) drains only
//     when the registries change is not safe.
func PlanDisruption(d mcfg.Diff, policies opv1.NodeDisruptionPolicyClusterStatus, force bool) Disruption {
	reboot := func(why string) Disruption {
		return Disruption{Reboot: true, Drain: true, Actions: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.RebootStatusAction}}, Why: why}
	}
	switch {
	case force:
		return reboot("the force file is present")
	case d.OSUpdate:
		return reboot("the OS image changes")
	case d.KernelArgs:
		return reboot("kernel arguments change")
	case d.FIPS:
		return reboot("FIPS changes")
	case d.KernelType:
		return reboot("the kernel type changes")
	case d.Extensions:
		return reboot("extensions change")
	case len(d.Files) == 0 && len(d.Units) == 0 && !d.Passwd:
		return Disruption{Actions: none(), Why: "no file, unit or SSH key changes"}
	}
	var actions []opv1.NodeDisruptionPolicyStatusAction
	for _, p := range d.Files {
		a, ok := filePolicy(p, policies.Files)
		if !ok {
			return reboot("no disruption policy for file " + p)
		}
		actions = append(actions, a...)
	}
	for _, u := range d.Units {
		i := slices.IndexFunc(policies.Units, func(p opv1.NodeDisruptionPolicyStatusUnit) bool { return string(p.Name) == u })
		if i < 0 {
			return reboot("no disruption policy for unit " + u)
		}
		actions = append(actions, policies.Units[i].Actions...)
	}
	if d.Passwd {
		actions = append(actions, policies.SSHKey.Actions...)
	}
	if hasAction(actions, opv1.RebootStatusAction) {
		return reboot("a disruption policy asks for a reboot")
	}
	if hasAction(actions, opv1.DrainStatusAction, opv1.ReloadStatusAction, opv1.RestartStatusAction, opv1.DaemonReloadStatusAction, opv1.SpecialStatusAction) {
		actions = slices.DeleteFunc(actions, func(a opv1.NodeDisruptionPolicyStatusAction) bool { return a.Type == opv1.NoneStatusAction })
	} else {
		actions = none()
	}
	drain := hasAction(actions, opv1.DrainStatusAction) ||
		(hasAction(actions, opv1.SpecialStatusAction) && !d.RegistriesConfSafe)
	return Disruption{Actions: actions, Drain: drain, Why: "disruption policies: " + describeActions(actions)}
}

// filePolicy returns the actions of the longest policy path equal to p or a
// parent directory of p (FindClosestFilePolicyPathMatch).
func filePolicy(p string, policies []opv1.NodeDisruptionPolicyStatusFile) ([]opv1.NodeDisruptionPolicyStatusAction, bool) {
	best, found := -1, false
	var out []opv1.NodeDisruptionPolicyStatusAction
	for _, f := range policies {
		dir := filepath.Clean(f.Path) + string(filepath.Separator)
		if p == f.Path || strings.HasPrefix(filepath.Clean(p), dir) {
			if len(f.Path) > best {
				best, found, out = len(f.Path), true, f.Actions
			}
		}
	}
	return out, found
}

func hasAction(actions []opv1.NodeDisruptionPolicyStatusAction, types ...opv1.NodeDisruptionPolicyStatusActionType) bool {
	return slices.ContainsFunc(actions, func(a opv1.NodeDisruptionPolicyStatusAction) bool { return slices.Contains(types, a.Type) })
}

// describeActions renders actions as "Reload crio.service, DaemonReload".
func describeActions(actions []opv1.NodeDisruptionPolicyStatusAction) string {
	var parts []string
	for _, a := range actions {
		parts = append(parts, describeAction(a))
	}
	return strings.Join(parts, ", ")
}

func describeAction(a opv1.NodeDisruptionPolicyStatusAction) string {
	switch {
	case a.Type == opv1.ReloadStatusAction && a.Reload != nil:
		return "Reload " + string(a.Reload.ServiceName)
	case a.Type == opv1.RestartStatusAction && a.Restart != nil:
		return "Restart " + string(a.Restart.ServiceName)
	case a.Type == opv1.SpecialStatusAction:
		return "Special (reload " + CRIOServiceName + ")"
	}
	return string(a.Type)
}
