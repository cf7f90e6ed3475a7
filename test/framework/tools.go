// Package framework starts the real parts tandem's integration and e2e tests
// run against: kube-apiservers (envtest), multi-member etcd clusters,
// kube-controller-manager and kube-scheduler, and kwok kubelets. Every process
// it starts is stopped by Stop (or the test's cleanup), also when a test fails.
package framework

import (
	"fmt"
	"os"
	"path/filepath"
)

// ToolsBinEnv names the directory holding the test binaries; `make tools`
// builds them and the Makefile exports this variable.
const ToolsBinEnv = "TANDEM_TOOLS_BIN"

// requiredTools are the binaries the framework execs.
var requiredTools = []string{"kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler", "kwok"}

// ToolsBinDir returns the directory of the test binaries, or an error telling
// the user how to get them.
func ToolsBinDir() (string, error) {
	dir := os.Getenv(ToolsBinEnv)
	if dir == "" {
		return "", fmt.Errorf("%s is not set: run `make tools` and export %s=<the printed dir> (the Makefile's test targets do this)", ToolsBinEnv, ToolsBinEnv)
	}
	for _, t := range requiredTools {
		if _, err := os.Stat(filepath.Join(dir, t)); err != nil {
			return "", fmt.Errorf("test binary %s missing in %s=%s (run `make tools`): %w", t, ToolsBinEnv, dir, err)
		}
	}
	return dir, nil
}

func toolPath(name string) (string, error) {
	dir, err := ToolsBinDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
