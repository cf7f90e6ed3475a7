package mcfg

import (
	"encoding/json"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// mc builds a MachineConfig for role with an optional raw Ignition config.
func mc(name, role, raw string, mutate ...func(*mcfgv1.MachineConfigSpec)) *mcfgv1.MachineConfig {
	m := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: role}},
	}
	if raw != "" {
		m.Spec.Config = runtime.RawExtension{Raw: []byte(raw)}
	}
	for _, f := range mutate {
		f(&m.Spec)
	}
	return m
}

func fileIgn(version, path, data string) string {
	return `{"ignition":{"version":"` + version + `"},"storage":{"files":[{"path":"` + path + `","contents":{"source":"data:,` + data + `"}}]}}`
}

func decode(t *testing.T, m *mcfgv1.MachineConfig) ign3types.Config {
	t.Helper()
	var cfg ign3types.Config
	if err := json.Unmarshal(m.Spec.Config.Raw, &cfg); err != nil {
		t.Fatalf("decode merged ignition: %v", err)
	}
	return cfg
}
