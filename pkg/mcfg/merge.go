package mcfg

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Defaults are the values a rendered config gets when no MachineConfig sets
// them. The MCO takes them from the ControllerConfig (the release payload's
// OS image and extensions image).
type Defaults struct {
	OSImageURL                     string
	BaseOSExtensionsContainerImage string
}

// Merge is MergeWithDefaults without defaults.
func Merge(configs []*mcfgv1.MachineConfig) (*mcfgv1.MachineConfig, error) {
	return MergeWithDefaults(configs, Defaults{})
}

// MergeWithDefaults merges a pool's MachineConfigs into one, with the MCO's
// semantics:
//   - order: configs labelled for the worker role first, then all others, each
//     group by name (so a custom pool's configs override the worker ones);
//   - Ignition configs merged in that order with Ignition's merge rules (a
//     later config's file, unit or user replaces an earlier one of the same key);
//   - files without an explicit overwrite get overwrite=true, because the
//     daemon always overwrites and new nodes must end up the same;
//   - osImageURL and baseOSExtensionsContainerImage: the last non-empty value
//     wins, else the default;
//   - kernelArguments and extensions: appended in order (duplicates kept:
//     arguments such as hugepagesz= may legitimately repeat); Ignition
//     kernelArguments.shouldExist are appended after them and then dropped
//     from the Ignition config;
//   - fips: true if any config sets it;
//   - kernelType: the last non-default value (realtime or 64k-pages) wins,
//     else "default"; the kernel-devel extension needs the default kernel.
//
// The result has only a spec; the caller names it (RenderedName). Every input
// is validated first and the first invalid one is reported as *InvalidConfigError.
// configs is not modified.
func MergeWithDefaults(configs []*mcfgv1.MachineConfig, d Defaults) (*mcfgv1.MachineConfig, error) {
	if len(configs) == 0 {
		return nil, fmt.Errorf("no MachineConfigs to merge")
	}
	ordered := SortForMerge(configs)

	out := NewIgnConfig()
	var ignKargs []string
	for _, mc := range ordered {
		if err := Validate(mc); err != nil {
			return nil, err
		}
		cfg, err := Parse(mc)
		if err != nil {
			return nil, err
		}
		for _, a := range cfg.KernelArguments.ShouldExist {
			ignKargs = append(ignKargs, string(a))
		}
		// Kernel arguments travel in the MachineConfig's kernelArguments, as
		// in the MCO; keeping them in Ignition too would apply them twice.
		cfg.KernelArguments.ShouldExist = nil
		out = ign3.Merge(out, *cfg)
	}
	for i := range out.Storage.Files {
		f := &out.Storage.Files[i]
		// Ignition forbids overwrite=true without a contents source.
		if f.Overwrite == nil && f.Contents.Source != nil {
			f.Overwrite = ptr.To(true)
		}
	}
	if err := ValidateIgnition(&out); err != nil {
		return nil, fmt.Errorf("merged Ignition config: %w", err)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding merged Ignition config: %w", err)
	}

	spec := mcfgv1.MachineConfigSpec{
		OSImageURL:                     d.OSImageURL,
		BaseOSExtensionsContainerImage: d.BaseOSExtensionsContainerImage,
		Config:                         runtime.RawExtension{Raw: raw},
		KernelArguments:                []string{},
		Extensions:                     []string{},
		KernelType:                     KernelTypeDefault,
	}
	for _, mc := range ordered {
		s := mc.Spec
		if s.OSImageURL != "" {
			spec.OSImageURL = s.OSImageURL
		}
		if s.BaseOSExtensionsContainerImage != "" {
			spec.BaseOSExtensionsContainerImage = s.BaseOSExtensionsContainerImage
		}
		spec.KernelArguments = append(spec.KernelArguments, s.KernelArguments...)
		spec.Extensions = append(spec.Extensions, s.Extensions...)
		spec.FIPS = spec.FIPS || s.FIPS
		if s.KernelType == KernelTypeRealtime || s.KernelType == KernelType64kPages {
			spec.KernelType = s.KernelType
		}
	}
	for _, a := range ignKargs {
		if !slices.Contains(spec.KernelArguments, a) {
			spec.KernelArguments = append(spec.KernelArguments, a)
		}
	}
	if spec.KernelType != KernelTypeDefault && slices.Contains(spec.Extensions, "kernel-devel") {
		return nil, fmt.Errorf("installing the kernel-devel extension is not supported with kernelType %s", spec.KernelType)
	}
	return &mcfgv1.MachineConfig{Spec: spec}, nil
}

// SortForMerge returns configs in merge order: those labelled for the worker
// role first, then the others, each group sorted by name.
func SortForMerge(configs []*mcfgv1.MachineConfig) []*mcfgv1.MachineConfig {
	out := slices.Clone(configs)
	isWorker := func(mc *mcfgv1.MachineConfig) bool {
		return mc.Labels[constants.MachineConfigRoleLabel] == constants.WorkerPool
	}
	sort.SliceStable(out, func(i, j int) bool {
		wi, wj := isWorker(out[i]), isWorker(out[j])
		if wi != wj {
			return wi
		}
		return out[i].Name < out[j].Name
	})
	return out
}
