package mcooracle

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// TestOracleAgreesWithTheMCO renders the fixture cases the MCO's own code
// rendered (pkg/controller/render/testdata) and compares the names, so the
// transcription is checked against the real thing.
func TestOracleAgreesWithTheMCO(t *testing.T) {
	var in struct {
		Cases []struct {
			Name             string                   `json:"name"`
			Pool             string                   `json:"pool"`
			Configs          []*mcfgv1.MachineConfig  `json:"configs"`
			ControllerConfig *mcfgv1.ControllerConfig `json:"controllerConfig"`
		} `json:"cases"`
	}
	var rec struct {
		Names map[string]string `json:"names"`
	}
	for path, v := range map[string]any{"../../pkg/controller/render/testdata/mco-cases.json": &in, "../../pkg/controller/render/testdata/mco-names.json": &rec} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, c := range in.Cases {
		spec2 := false
		for _, m := range c.Configs {
			spec2 = spec2 || strings.Contains(string(m.Spec.Config.Raw), `"2.2.0"`)
		}
		if spec2 {
			continue // the oracle renders spec 3 configs only
		}
		var cc mcfgv1.ControllerConfigSpec
		if c.ControllerConfig != nil {
			cc = c.ControllerConfig.Spec
		}
		got, err := Render(c.Pool, c.Configs, cc)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if got.Name != rec.Names[c.Name] {
			t.Errorf("%s: oracle %s, MCO %s", c.Name, got.Name, rec.Names[c.Name])
		}
		checked++
	}
	if checked < 7 {
		t.Fatalf("only %d cases checked", checked)
	}
}
