package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// openshiftCRDFiles are the openshift/api CRDs the test control planes
// install beside tandem's: MachineConfig, MachineConfigPool,
// MachineConfigNode, ControllerConfig, MachineOSConfig (the MCO's API),
// MachineConfiguration (the node disruption policies the daemon reads)
// and Scheduler (the controller keeps the masters' taint from
// spec.mastersSchedulable, as the MCO's node controller does).
var openshiftCRDFiles = []string{
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigpools-Default.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfignodes-SelfManagedHA-Default.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_controllerconfigs-Default.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineosconfigs.crd.yaml",
	"operator/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigurations-Default.crd.yaml",
	"config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_schedulers-SelfManagedHA-Default.crd.yaml",
}

// openshiftAPIDir is where the openshift/api module at go.mod's version
// is, downloaded (and checked against go.sum) into the module cache when
// missing: vendor/ keeps only Go packages, so the CRDs are read from the
// module itself, never copied into the repository.
var openshiftAPIDir = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = root
		// The vendor mode a caller may set does not apply to downloads.
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return out, nil
	}
	version, err := run("list", "-m", "-f", "{{.Version}}", "github.com/openshift/api")
	if err != nil {
		return "", err
	}
	out, err := run("mod", "download", "-json", "github.com/openshift/api@"+strings.TrimSpace(string(version)))
	if err != nil {
		return "", err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download: %w", err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download github.com/openshift/api: %q", m.Error)
	}
	return m.Dir, nil
})

// OpenshiftAPIDir is the openshift/api module's directory at go.mod's
// version.
func OpenshiftAPIDir() (string, error) { return openshiftAPIDir() }

// loadOpenshiftCRDs decodes openshiftCRDFiles from the openshift/api module.
func loadOpenshiftCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := openshiftAPIDir()
	if err != nil {
		return nil, fmt.Errorf("the openshift/api module: %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, f := range openshiftCRDFiles {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("decoding CRD %s: %w", f, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
