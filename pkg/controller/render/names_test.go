package render

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

type mcoCase struct {
	Name             string                   `json:"name"`
	Pool             string                   `json:"pool"`
	Configs          []*mcfgv1.MachineConfig  `json:"configs"`
	ControllerConfig *mcfgv1.ControllerConfig `json:"controllerConfig"`
}

// mcoRecorded is testdata/mco-names.json: what the MCO's own render code
// made of testdata/mco-cases.json (see its comment for the commit).
type mcoRecorded struct {
	Names     map[string]string                   `json:"names"`
	Specs     map[string]mcfgv1.MachineConfigSpec `json:"specs"`
	Converted map[string]json.RawMessage          `json:"converted"`
}

func loadMCOFixtures(t *testing.T) ([]mcoCase, mcoRecorded) {
	t.Helper()
	var in struct {
		Cases []mcoCase `json:"cases"`
	}
	var rec mcoRecorded
	for path, v := range map[string]any{"testdata/mco-cases.json": &in, "testdata/mco-names.json": &rec} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if len(in.Cases) == 0 || len(rec.Names) != len(in.Cases) {
		t.Fatalf("%d cases, %d recorded names", len(in.Cases), len(rec.Names))
	}
	return in.Cases, rec
}

// TestRenderedNamesMatchTheMCO renders every fixture case with Plan and
// compares the name (and the spec) with what the MCO's own code produced for
// the same input. A case without a ControllerConfig is tandem standalone;
// the MCO was given an empty ControllerConfig for it.
func TestRenderedNamesMatchTheMCO(t *testing.T) {
	cases, rec := loadMCOFixtures(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			pool := newPool(c.Pool, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: constants.MachineConfigRoleLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{c.Pool, constants.WorkerPool}}}})
			r := Plan(pool, c.Configs, PlanOptions{ControllerConfig: c.ControllerConfig})
			if r.Err != nil {
				t.Fatalf("render failed: %v", r.Err)
			}
			if want := rec.Names[c.Name]; r.Rendered.Name != want {
				t.Errorf("name = %s, the MCO's = %s", r.Rendered.Name, want)
			}
			gotSpec, wantSpec := canonicalSpec(t, r.Rendered.Spec), canonicalSpec(t, rec.Specs[c.Name])
			if !reflect.DeepEqual(gotSpec, wantSpec) {
				t.Errorf("spec differs from the MCO's:\n got %s\nwant %s", gotSpec, wantSpec)
			}
			wantCond := corev1.ConditionTrue
			if c.ControllerConfig == nil {
				wantCond = corev1.ConditionFalse
			}
			if r.Inputs.Type != constants.PoolControllerConfigCondition || r.Inputs.Status != wantCond {
				t.Errorf("inputs condition = %+v, want %s", r.Inputs, wantCond)
			}
		})
	}
}

// canonicalSpec is the spec's JSON with the raw Ignition re-encoded with
// sorted keys, for a readable comparison.
func canonicalSpec(t *testing.T, s mcfgv1.MachineConfigSpec) string {
	t.Helper()
	var ign any
	if err := json.Unmarshal(s.Config.Raw, &ign); err != nil {
		t.Fatal(err)
	}
	s.Config.Raw = nil
	b, _ := json.Marshal(map[string]any{"spec": s, "ignition": ign})
	return string(b)
}

// TestSpec2ConversionMatchesTheMCO parses the spec 2.2 fixture config and
// compares it with the MCO's ParseAndConvertConfig output.
func TestSpec2ConversionMatchesTheMCO(t *testing.T) {
	cases, rec := loadMCOFixtures(t)
	for name, want := range rec.Converted {
		var mc *mcfgv1.MachineConfig
		for _, c := range cases {
			for _, m := range c.Configs {
				if m.Name == name {
					mc = m
				}
			}
		}
		if mc == nil {
			t.Fatalf("no fixture config %s", name)
		}
		got, err := mcfg.Parse(mc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gb, _ := json.Marshal(got)
		var g, w any
		_ = json.Unmarshal(gb, &g)
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s converted:\n got %s\nwant %s", name, gb, want)
		}
	}
}

// TestCertExpirys: the kube-apiserver serving CA's certificates, as the MCO
// reports them, and nothing without a ControllerConfig.
func TestCertExpirys(t *testing.T) {
	when := metav1.Unix(2000000000, 0)
	cc := &mcfgv1.ControllerConfig{Status: mcfgv1.ControllerConfigStatus{ControllerCertificates: []mcfgv1.ControllerCertificate{
		{Subject: "CN=kube-apiserver-lb-signer", Signer: "CN=x", BundleFile: "KubeAPIServerServingCAData", NotAfter: &when},
		{Subject: "CN=root", Signer: "CN=root", BundleFile: "RootCAData", NotAfter: &when},
	}}}
	got := CertExpirys(cc)
	want := []mcfgv1.CertExpiry{{Bundle: "KubeAPIServerServingCAData", Subject: "CN=kube-apiserver-lb-signer", Expiry: &when}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("certExpirys = %+v, want %+v", got, want)
	}
	if got := CertExpirys(nil); got == nil || len(got) != 0 {
		t.Fatalf("without a ControllerConfig: %v, want an empty list", got)
	}
	pool := newPool("worker", roleSelector("worker"))
	r := Plan(pool, []*mcfgv1.MachineConfig{newMC("00-w", "worker", "")}, PlanOptions{ControllerConfig: cc})
	st, _ := DesiredStatus(pool, r, when)
	if !reflect.DeepEqual(st.CertExpirys, want) {
		t.Fatalf("pool status certExpirys = %+v", st.CertExpirys)
	}
	keys := []string{}
	for _, c := range st.Conditions {
		keys = append(keys, string(c.Type))
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{constants.PoolControllerConfigCondition, string(mcfgv1.MachineConfigPoolRenderDegraded)}) {
		t.Fatalf("conditions = %v", keys)
	}
}
