//go:build integration

package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/pkg/cli/mcc"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// mcoNamespace is the MCO's target namespace, where its operator runs the
// controller (and where tandem's settings ConfigMap lives).
const mcoNamespace = "openshift-machine-config-operator"

// controllerIdentity is the controller's service account as a user name.
const controllerIdentity = "system:serviceaccount:" + mcoNamespace + ":machine-config-controller"

// mcoDeploymentArgs is the command line the MCO's operator gives the
// controller (openshift/machine-config-operator release-4.21,
// manifests/machineconfigcontroller/deployment.yaml, rendered): nothing of
// tandem's.
func mcoDeploymentArgs() []string {
	return []string{"start", "--resourcelock-namespace=" + mcoNamespace, "--v=2", "--payload-version=4.21.0-test",
		"--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
		"--tls-min-version=VersionTLS12"}
}

// controllerAccount applies the standalone RBAC (manifests/rbac) and
// returns a kubeconfig of the controller's service account, so that the
// controller runs with the rights the manifests give it.
func controllerAccount(ctx context.Context, t *testing.T, cp *framework.ControlPlane) string {
	t.Helper()
	if err := framework.ApplyManifest(ctx, cp.Kube, "manifests/rbac/machine-config-controller.yaml"); err != nil {
		t.Fatal(err)
	}
	path, _, err := cp.AddUser(controllerIdentity, "system:serviceaccounts", "system:serviceaccounts:"+mcoNamespace, "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// controllerRuns runs the controller's command (cmd/machine-config-controller,
// in this process) as a kubelet runs its container: started again each time
// it exits, until the test ends. It counts the exits and keeps their errors.
type controllerRuns struct {
	mu    sync.Mutex
	exits []error
}

func startController(ctx context.Context, t *testing.T, running *sync.WaitGroup, args ...string) *controllerRuns {
	r := &controllerRuns{}
	running.Add(1)
	go func() {
		defer running.Done()
		for ctx.Err() == nil {
			cmd := mcc.New(nil)
			cmd.SetArgs(args)
			err := cmd.ExecuteContext(ctx)
			if ctx.Err() != nil {
				return
			}
			t.Logf("machine-config-controller exited (%v); starting it again, as the kubelet would", err)
			r.mu.Lock()
			r.exits = append(r.exits, err)
			r.mu.Unlock()
			time.Sleep(time.Second)
		}
	}()
	return r
}

func (r *controllerRuns) exited() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.exits...)
}

// masterConfigs creates the master pool and its first MachineConfig.
func masterConfigs(ctx context.Context, t *testing.T, cp *framework.ControlPlane) {
	t.Helper()
	poolConfigs(ctx, t, cp, constants.MasterPool, nil)
}

// addMachineConfig creates a MachineConfig for role; file, when set, is
// the path of a file it writes (a change that needs a new rendered config).
func addMachineConfig(ctx context.Context, t *testing.T, cp *framework.ControlPlane, role, name, file string) {
	t.Helper()
	ign := `{"ignition":{"version":"3.4.0"}}`
	if file != "" {
		ign = fmt.Sprintf(`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":%q,"mode":420,"contents":{"source":"data:,%s"}}]}}`, file, name)
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: role}},
		Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(ign)}},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitTarget waits until pool targets a rendered config other than not,
// and returns it.
func waitTarget(ctx context.Context, t *testing.T, cp *framework.ControlPlane, pool, not string) string {
	t.Helper()
	var target string
	poll(ctx, t, "pool "+pool+" rendered anew", func() (bool, string) {
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		target = p.Spec.Configuration.Name
		return target != "" && target != not, fmt.Sprintf("target %q, conditions %v", target, p.Status.Conditions)
	})
	return target
}

// poolCondition waits until pool has the condition typ with status and
// (when not "") reason, and returns it.
func poolCondition(ctx context.Context, t *testing.T, cp *framework.ControlPlane, pool string, typ mcfgv1.MachineConfigPoolConditionType,
	status corev1.ConditionStatus, reason string) mcfgv1.MachineConfigPoolCondition {
	t.Helper()
	var out mcfgv1.MachineConfigPoolCondition
	poll(ctx, t, fmt.Sprintf("pool %s %s=%s %s", pool, typ, status, reason), func() (bool, string) {
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range p.Status.Conditions {
			if c.Type == typ && c.Status == status && (reason == "" || c.Reason == reason) {
				out = c
				return true, ""
			}
		}
		return false, fmt.Sprintf("conditions %v", p.Status.Conditions)
	})
	return out
}
