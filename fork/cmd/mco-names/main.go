// Command mco-names computes, with the MCO's own render code at the fork's
// pinned commit, the rendered names and specs of tandem's render fixtures
// (pkg/controller/render/testdata/mco-cases.json) and writes
// testdata/mco-names.json, which TestRenderedNamesMatchTheMCO and the
// mcooracle judge tandem's render against. `make mco-names` runs it.
//
// It renders each case through render.RunBootstrap (the MCO's exported
// entry to generateRenderedMachineConfig) with a pool that selects exactly
// the case's configs, and converts each config with the MCO's
// ctrlcommon.ParseAndConvertConfig.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	ctrlcommon "github.com/openshift/machine-config-operator/pkg/controller/common"
	"github.com/openshift/machine-config-operator/pkg/controller/render"
	daemonconsts "github.com/openshift/machine-config-operator/pkg/daemon/constants"
	mcoversion "github.com/openshift/machine-config-operator/pkg/version"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type fixture struct {
	Name             string                   `json:"name"`
	Pool             string                   `json:"pool"`
	Configs          []*mcfgv1.MachineConfig  `json:"configs"`
	ControllerConfig *mcfgv1.ControllerConfig `json:"controllerConfig"`
}

// caseLabel selects a case's configs in the pool RunBootstrap renders.
const caseLabel = "tandem.test/mco-names-case"

func main() {
	in := flag.String("cases", "pkg/controller/render/testdata/mco-cases.json", "the fixtures")
	out := flag.String("out", "pkg/controller/render/testdata/mco-names.json", "where to write the MCO's results")
	commit := flag.String("commit", "", "the MCO commit, for the file's comment")
	flag.Parse()
	if err := run(*in, *out, *commit); err != nil {
		fmt.Fprintln(os.Stderr, "mco-names:", err)
		os.Exit(1)
	}
}

func run(in, out, commit string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var cases struct {
		Cases []fixture `json:"cases"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	names := map[string]string{}
	specs := map[string]mcfgv1.MachineConfigSpec{}
	converted := map[string]any{}
	for _, c := range cases.Cases {
		cc := c.ControllerConfig
		if cc == nil {
			// tandem standalone: the MCO is given an empty ControllerConfig.
			cc = &mcfgv1.ControllerConfig{}
		}
		cc = cc.DeepCopy()
		if cc.Annotations == nil {
			cc.Annotations = map[string]string{}
		}
		cc.Annotations[daemonconsts.GeneratedByVersionAnnotationKey] = mcoversion.Raw
		var configs []*mcfgv1.MachineConfig
		for _, m := range c.Configs {
			m = m.DeepCopy()
			if m.Labels == nil {
				m.Labels = map[string]string{}
			}
			m.Labels[caseLabel] = c.Name
			configs = append(configs, m)
		}
		pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: c.Pool},
			Spec: mcfgv1.MachineConfigPoolSpec{MachineConfigSelector: &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: c.Name}}}}
		_, rendered, err := render.RunBootstrap([]*mcfgv1.MachineConfigPool{pool}, configs, cc, nil)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
		names[c.Name] = rendered[0].Name
		specs[c.Name] = rendered[0].Spec
		for _, m := range c.Configs {
			if m.Spec.Config.Raw == nil {
				continue
			}
			ign, err := ctrlcommon.ParseAndConvertConfig(m.Spec.Config.Raw)
			if err != nil {
				converted[m.Name] = map[string]string{"error": err.Error()}
				continue
			}
			converted[m.Name] = ign
		}
	}
	doc := map[string]any{
		"comment": fmt.Sprintf("Computed by the MCO's own code: openshift/machine-config-operator at commit %s (fork/mco.env), "+
			"render.RunBootstrap (generateRenderedMachineConfig) and ctrlcommon.ParseAndConvertConfig, run by fork/cmd/mco-names "+
			"(make mco-names) over mco-cases.json (a case without a controllerConfig was given an empty one).", commit),
		"names": names, "specs": specs, "converted": converted,
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}
