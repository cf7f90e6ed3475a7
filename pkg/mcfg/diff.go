package mcfg

import (
	"reflect"
	"slices"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// Diff is what changes between the config a node runs and the one it moves
// to, as the MCO's daemon sees it (machineConfigDiff, CalculateConfigFileDiffs
// and GetChangedConfigUnitsByType in openshift/machine-config-operator
// pkg/daemon/update.go and pkg/controller/common/helpers.go, release-4.20 at
// afed09939d80). The daemon picks the cheapest action from it.
type Diff struct {
	OSUpdate   bool `json:"osUpdate,omitempty"`
	KernelArgs bool `json:"kernelArgs,omitempty"`
	FIPS       bool `json:"fips,omitempty"`
	KernelType bool `json:"kernelType,omitempty"`
	Extensions bool `json:"extensions,omitempty"`
	// Passwd: the Ignition passwd section changed (SSH keys, password hash).
	Passwd bool `json:"passwd,omitempty"`
	// Files are the paths of files added, removed or changed in any field;
	// Units the names of units added, removed or changed. Both sorted.
	Files []string `json:"files,omitempty"`
	Units []string `json:"units,omitempty"`
	// RegistriesConfSafe is set when /etc/containers/registries.conf is among
	// Files and its change is one the MCO applies without a drain
	// (RegistriesChangeSafe).
	RegistriesConfSafe bool `json:"registriesConfSafe,omitempty"`
}

// RegistriesConfPath is the container registries configuration whose
// changes the MCO treats specially (crio reload, drain only when unsafe).
const RegistriesConfPath = "/etc/containers/registries.conf"

// Empty tells whether nothing the daemon applies differs: the two configs
// are equivalent for the node even if their names differ.
func (d Diff) Empty() bool {
	return !d.OSUpdate && !d.KernelArgs && !d.FIPS && !d.KernelType && !d.Extensions &&
		!d.Passwd && len(d.Files) == 0 && len(d.Units) == 0
}

// DiffConfigs compares two MachineConfigs and their parsed Ignition configs.
// osImage values are compared as given (the caller normalises them).
func DiffConfigs(oldMC, newMC *mcfgv1.MachineConfig, oldIgn, newIgn *ign3types.Config) Diff {
	o, n := oldMC.Spec, newMC.Spec
	d := Diff{
		OSUpdate: o.OSImageURL != n.OSImageURL,
		// Both nil and empty lists mean "none" (the MCO's kargsEmpty).
		KernelArgs: !(len(o.KernelArguments) == 0 && len(n.KernelArguments) == 0) && !reflect.DeepEqual(o.KernelArguments, n.KernelArguments),
		FIPS:       o.FIPS != n.FIPS,
		KernelType: canonicalKernelType(o.KernelType) != canonicalKernelType(n.KernelType),
		Extensions: !(len(o.Extensions) == 0 && len(n.Extensions) == 0) && !reflect.DeepEqual(o.Extensions, n.Extensions),
		Passwd:     !reflect.DeepEqual(oldIgn.Passwd, newIgn.Passwd),
		Files:      changedFiles(oldIgn, newIgn),
		Units:      changedUnits(oldIgn, newIgn),
	}
	if slices.Contains(d.Files, RegistriesConfPath) {
		d.RegistriesConfSafe = RegistriesChangeSafe(oldIgn, newIgn) == nil
	}
	return d
}

// canonicalKernelType maps "" to "default" (helpers.CanonicalizeKernelType).
func canonicalKernelType(kt string) string {
	if kt == "" {
		return KernelTypeDefault
	}
	return kt
}

func changedFiles(oldIgn, newIgn *ign3types.Config) []string {
	had := map[string]ign3types.File{}
	for _, f := range oldIgn.Storage.Files {
		had[f.Path] = f
	}
	var out []string
	has := map[string]bool{}
	for _, f := range newIgn.Storage.Files {
		has[f.Path] = true
		if old, ok := had[f.Path]; !ok || !reflect.DeepEqual(old, f) {
			out = append(out, f.Path)
		}
	}
	for p := range had {
		if !has[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func changedUnits(oldIgn, newIgn *ign3types.Config) []string {
	had := map[string]ign3types.Unit{}
	for _, u := range oldIgn.Systemd.Units {
		had[u.Name] = u
	}
	var out []string
	has := map[string]bool{}
	for _, u := range newIgn.Systemd.Units {
		has[u.Name] = true
		if old, ok := had[u.Name]; !ok || !reflect.DeepEqual(old, u) {
			out = append(out, u.Name)
		}
	}
	for name := range had {
		if !has[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
