//go:build integration

package mcc

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestRunWiresControllersUnderLeaderElection runs `start` as the MCO's
// operator does (its Deployment's flags) on a
// real apiserver: it takes the Lease, the render controller renders the
// worker pool, and the node controller stages both workers and grants one
// (maxUnavailable 1).
func TestRunWiresControllersUnderLeaderElection(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "mcc"})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })

	const old = "rendered-worker-old"
	for _, name := range []string{"worker-0", "worker-1"} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
			Annotations: map[string]string{constants.CurrentConfigAnnotation: old, constants.DesiredConfigAnnotation: old,
				constants.StateAnnotation: constants.MachineConfigDaemonStateDone}}}
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "00-worker", Labels: map[string]string{constants.MachineConfigRoleLabel: constants.WorkerPool}},
		Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.4.0"}}`)}},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pool := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: &metav1.LabelSelector{MatchLabels: map[string]string{constants.MachineConfigRoleLabel: constants.WorkerPool}},
			NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}},
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The command line the MCO's operator gives its controller, plus
	// tandem's flags for a fast lease.
	cmd := New(nil)
	cmd.SetArgs([]string{"start", "--kubeconfig=" + cp.KubeconfigPath, "--resourcelock-namespace=" + metav1.NamespaceDefault,
		"--v=2", "--payload-version=4.21.0-test", "--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
		"--tls-min-version=VersionTLS12", "--metrics-listen-address=", "--workers=2", "--informer-resync=1m",
		"--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s"})
	running.Add(1)
	go func() {
		defer running.Done()
		if err := cmd.ExecuteContext(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("machine-config-controller start: %v", err)
		}
	}()

	poll(ctx, t, cp, "the leader Lease", func() bool {
		l, err := cp.Kube.CoordinationV1().Leases(metav1.NamespaceDefault).Get(ctx, leaseName, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
	})
	var target string
	poll(ctx, t, cp, "a rendered worker config", func() bool {
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		target = ""
		if err == nil {
			target = p.Spec.Configuration.Name
		}
		return target != ""
	})
	poll(ctx, t, cp, "both workers staged and one granted", func() bool {
		nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		staged, granted := 0, 0
		for _, n := range nodes.Items {
			if n.Annotations[constants.DesiredConfigAnnotation] == target {
				granted++
			} else if n.Annotations[constants.StageConfigAnnotation] == target {
				staged++
			}
		}
		if granted > 1 {
			t.Fatalf("%d workers granted with maxUnavailable 1", granted)
		}
		return granted == 1 && staged == 1
	})
	// The MCO's counts: the granted worker is unavailable, the other still
	// runs the old config and is available.
	poll(ctx, t, cp, "pool status: 2 machines, 1 unavailable, 0 updated", func() bool {
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		return err == nil && p.Status.MachineCount == 2 && p.Status.UnavailableMachineCount == 1 && p.Status.UpdatedMachineCount == 0
	})
}

// poll waits for cond, at most framework.DefaultWait; on timeout it fails
// with the worker pool's status and the nodes' annotations it saw last.
func poll(ctx context.Context, t *testing.T, cp *framework.ControlPlane, what string, cond func() bool) {
	t.Helper()
	err := framework.Await(ctx, what, framework.DefaultWait, 200*time.Millisecond, func(ctx context.Context) (bool, string, error) {
		if cond() {
			return true, "", nil
		}
		var b strings.Builder
		if p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{}); err == nil {
			fmt.Fprintf(&b, "pool %s target %s status %+v; ", p.Name, p.Spec.Configuration.Name, p.Status)
		}
		if nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
			for _, n := range nodes.Items {
				fmt.Fprintf(&b, "node %s desired=%s stage=%s; ", n.Name, n.Annotations[constants.DesiredConfigAnnotation], n.Annotations[constants.StageConfigAnnotation])
			}
		}
		return false, b.String(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
