package framework

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// DPUInfraIdentity is the user an infra (DPU) cluster's controller is in
// its tenant cluster; manifests/rbac/tenant-dpu-infra-identity.yaml binds
// its rights (HostMaintenance requests and nothing else).
const DPUInfraIdentity = "system:serviceaccount:openshift-machine-config-operator:tandem-dpu-infra"

// AddDPUInfraIdentity applies the infra identity's RBAC in cp (a tenant
// cluster) and returns a kubeconfig of that narrow user: what an infra
// controller's --dpu-tenant-kubeconfig gets, never the tenant's admin.
func (cp *ControlPlane) AddDPUInfraIdentity(ctx context.Context) (string, error) {
	if err := ApplyManifest(ctx, cp.Kube, "manifests/rbac/tenant-dpu-infra-identity.yaml"); err != nil {
		return "", err
	}
	kubeconfig, _, err := cp.AddUser(DPUInfraIdentity, "system:serviceaccounts", "system:authenticated")
	if err != nil {
		return "", err
	}
	return kubeconfig, nil
}

// BuildControllerBinary builds tandem's standalone machine-config-controller
// (cmd/machine-config-controller) into dir and returns its path.
func BuildControllerBinary(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "machine-config-controller")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", bin, "./cmd/machine-config-controller")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building machine-config-controller: %w\n%s", err, out)
	}
	return bin, nil
}
