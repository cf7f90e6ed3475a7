// Package mcooracle renders MachineConfigPools the way the stock MCO does, so
// tests can build the state an MCO leaves on a cluster and judge tandem's
// render controller against it. It is a transcription of the MCO's
// generateRenderedMachineConfig path (openshift/machine-config-operator,
// release-4.20 at afed09939d80: pkg/controller/render/render_controller.go
// and hash.go, pkg/controller/common/helpers.go MergeMachineConfigs and
// ParseAndConvertConfig for spec 3 configs), written from that source and
// not from tandem's pkg/mcfg; its own test checks it against names the MCO's
// code computed (pkg/controller/render/testdata/mco-names.json).
package mcooracle

import (
	"crypto/md5" //nolint:gosec // the MCO's content name
	"fmt"
	"sort"

	"github.com/clarketm/json" // as the MCO's helpers.go: omits empty structs

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// salt is the MCO's (pkg/controller/render/hash.go).
var salt = []byte{
	16, 124, 206, 228, 139, 56, 175, 175, 79, 229, 134, 118, 157, 154, 211, 110,
	25, 93, 47, 253, 172, 106, 37, 7, 174, 13, 160, 185, 110, 17, 87, 52,
	219, 131, 12, 206, 218, 141, 116, 135, 188, 181, 192, 151, 233, 62, 126, 165,
	64, 83, 179, 119, 15, 168, 208, 197, 146, 107, 58, 227, 133, 188, 238, 26,
	33, 26, 235, 202, 32, 173, 31, 234, 41, 144, 148, 79, 6, 206, 23, 22,
}

// Render returns the rendered MachineConfig the MCO makes for pool from
// configs (all selected by the pool) and the ControllerConfig's spec. Only
// spec 3 Ignition configs are supported here.
func Render(pool string, configs []*mcfgv1.MachineConfig, cc mcfgv1.ControllerConfigSpec) (*mcfgv1.MachineConfig, error) {
	var workers, others []*mcfgv1.MachineConfig
	for _, c := range configs {
		if c.Labels["machineconfiguration.openshift.io/role"] == "worker" {
			workers = append(workers, c)
		} else {
			others = append(others, c)
		}
	}
	sort.SliceStable(workers, func(i, j int) bool { return workers[i].Name < workers[j].Name })
	sort.SliceStable(others, func(i, j int) bool { return others[i].Name < others[j].Name })
	ordered := append(workers, others...)

	var out ign3types.Config
	if ordered[0].Spec.Config.Raw == nil {
		out = ign3types.Config{Ignition: ign3types.Ignition{Version: ign3types.MaxVersion.String()}}
	} else {
		c, err := parse(ordered[0].Spec.Config.Raw)
		if err != nil {
			return nil, err
		}
		out = c
	}
	for _, m := range ordered[1:] {
		if m.Spec.Config.Raw == nil {
			continue
		}
		c, err := parse(m.Spec.Config.Raw)
		if err != nil {
			return nil, err
		}
		for i := range c.Storage.Files {
			if c.Storage.Files[i].Contents.Compression == nil {
				empty := ""
				c.Storage.Files[i].Contents.Compression = &empty
			}
		}
		out = ign3.Merge(out, c)
		for i := range out.Storage.Files {
			if p := out.Storage.Files[i].Contents.Compression; p != nil && *p == "" {
				out.Storage.Files[i].Contents.Compression = nil
			}
		}
	}
	for i := range out.Storage.Files {
		if out.Storage.Files[i].Overwrite == nil {
			t := true
			out.Storage.Files[i].Overwrite = &t
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	spec := mcfgv1.MachineConfigSpec{
		OSImageURL:                     cc.BaseOSContainerImage,
		BaseOSExtensionsContainerImage: cc.BaseOSExtensionsContainerImage,
		Config:                         runtime.RawExtension{Raw: raw},
		KernelArguments:                []string{},
		Extensions:                     []string{},
		KernelType:                     "default",
	}
	for _, m := range ordered {
		if m.Spec.FIPS {
			spec.FIPS = true
		}
		if m.Spec.KernelType == "realtime" || m.Spec.KernelType == "64k-pages" {
			spec.KernelType = m.Spec.KernelType
		}
		spec.KernelArguments = append(spec.KernelArguments, m.Spec.KernelArguments...)
		spec.Extensions = append(spec.Extensions, m.Spec.Extensions...)
		if m.Spec.OSImageURL != "" {
			spec.OSImageURL = m.Spec.OSImageURL
		}
		if m.Spec.BaseOSExtensionsContainerImage != "" {
			spec.BaseOSExtensionsContainerImage = m.Spec.BaseOSExtensionsContainerImage
		}
	}
	name, err := Name(pool, spec)
	if err != nil {
		return nil, err
	}
	mc := &mcfgv1.MachineConfig{Spec: spec}
	mc.Name = name
	return mc, nil
}

// Name is the MCO's getMachineConfigHashedName: rendered-<pool>-<md5 of the
// salt and the spec's YAML>.
func Name(pool string, spec mcfgv1.MachineConfigSpec) (string, error) {
	data, err := yaml.Marshal(spec)
	if err != nil {
		return "", err
	}
	h := md5.New() //nolint:gosec
	h.Write(salt)
	h.Write(data)
	return fmt.Sprintf("rendered-%s-%x", pool, h.Sum(nil)), nil
}

func parse(raw []byte) (ign3types.Config, error) {
	c, rpt, err := ign3.ParseCompatibleVersion(raw)
	if err != nil || rpt.IsFatal() {
		return ign3types.Config{}, fmt.Errorf("parsing Ignition config: %v %s", err, rpt.String())
	}
	return c, nil
}
