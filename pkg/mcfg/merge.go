package mcfg

import (
	"fmt"
	"slices"
	"sort"

	"github.com/clarketm/json"
	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Defaults are the values a rendered config gets when no MachineConfig sets
// them. The MCO takes them from the ControllerConfig (DefaultsFromControllerConfig).
type Defaults struct {
	OSImageURL                     string
	BaseOSExtensionsContainerImage string
}

// Merge is MergeWithDefaults without defaults.
func Merge(configs []*mcfgv1.MachineConfig) (*mcfgv1.MachineConfig, error) {
	return MergeWithDefaults(configs, Defaults{})
}

// MergeWithDefaults merges a pool's MachineConfigs into one exactly as the
// MCO's MergeMachineConfigs does (openshift/machine-config-operator
// pkg/controller/common/helpers.go, release-4.20 at afed09939d80), so that a
// pool the MCO rendered gets the same content, hence the same name:
//   - order: configs labelled for the worker role first, then all others, each
//     group by name (so a custom pool's configs override the worker ones);
//   - the first config's Ignition is the base; every later config with an
//     Ignition config is merged onto it with Ignition's merge rules (a later
//     file, unit or user replaces an earlier one of the same key); a file
//     without a compression field is merged as if it said "" so that it also
//     replaces an earlier compression, and "" is then dropped again;
//   - every file without an explicit overwrite gets overwrite=true, because
//     the daemon always overwrites and new nodes must end up the same;
//   - Ignition kernelArguments stay in the Ignition config, as in the MCO;
//   - osImageURL and baseOSExtensionsContainerImage: the last non-empty value
//     wins, else the default;
//   - kernelArguments and extensions: appended in order, duplicates kept;
//   - fips: true if any config sets it;
//   - kernelType: the last non-default value (realtime or 64k-pages) wins,
//     else "default"; the kernel-devel extension needs the default kernel.
//
// The result has only a spec; the caller names it (RenderedName). Every input
// is validated first and the first invalid one is reported as
// *InvalidConfigError; the merged Ignition config must be valid too.
// configs is not modified.
func MergeWithDefaults(configs []*mcfgv1.MachineConfig, d Defaults) (*mcfgv1.MachineConfig, error) {
	if len(configs) == 0 {
		return nil, fmt.Errorf("no MachineConfigs to merge")
	}
	ordered := SortForMerge(configs)
	for _, mc := range ordered {
		if err := Validate(mc); err != nil {
			return nil, err
		}
	}

	out := NewIgnConfig()
	for i, mc := range ordered {
		if mc.Spec.Config.Raw == nil {
			continue
		}
		cfg, err := Parse(mc)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out = *cfg
			continue
		}
		setEmptyCompression(cfg)
		out = ign3.Merge(out, *cfg)
		dropEmptyCompression(&out)
	}
	for i := range out.Storage.Files {
		if out.Storage.Files[i].Overwrite == nil {
			out.Storage.Files[i].Overwrite = ptr.To(true)
		}
	}
	if err := ValidateIgnition(&out); err != nil {
		return nil, fmt.Errorf("merged Ignition config: %w", err)
	}
	// clarketm/json, as the MCO: it also omits empty structs, and the
	// rendered name hashes these bytes.
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
	if spec.KernelType != KernelTypeDefault && slices.Contains(spec.Extensions, "kernel-devel") {
		return nil, fmt.Errorf("installing the kernel-devel extension is not supported with kernelType %s", spec.KernelType)
	}
	return &mcfgv1.MachineConfig{Spec: spec}, nil
}

// setEmptyCompression gives every file without a compression field an empty
// one: Ignition merges the compression field apart from the contents, so a
// later uncompressed file would otherwise keep an earlier file's "gzip"
// (coreos/butane#332; the MCO's ignitionMergeSetFilesDefaultCompression).
func setEmptyCompression(cfg *ign3types.Config) {
	for i := range cfg.Storage.Files {
		c := &cfg.Storage.Files[i].Contents
		if c.Compression == nil {
			c.Compression = ptr.To("")
		}
	}
}

// dropEmptyCompression undoes setEmptyCompression after a merge, for every
// file (the MCO's ignitionMergeUnsetFilesDefaultCompression).
func dropEmptyCompression(cfg *ign3types.Config) {
	for i := range cfg.Storage.Files {
		c := &cfg.Storage.Files[i].Contents
		if c.Compression != nil && *c.Compression == "" {
			c.Compression = nil
		}
	}
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
