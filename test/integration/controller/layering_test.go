//go:build integration

package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

const workerOld = "rendered-worker-old"

// TestOnClusterLayeringPoolRefused: a MachineOSConfig selects the worker
// pool. By the MCO's rule (release-4.21 db84d8368ef7,
// pkg/controller/common/mos_state.go IsLayeredPool and
// pkg/controller/node/node_controller.go syncMachineConfigPool) the pool is
// layered, and no worker is given a new desiredConfig before an image is
// built for it; tandem builds none. The controller runs as the MCO's
// Deployment runs it (its arguments, the service account of
// manifests/rbac). Checked:
//   - the master pool, not layered, is granted its new config (the
//     controller works), while no worker gets a new desiredConfig or a
//     stageConfig, before and after a new worker config is published;
//   - the worker pool says why: OnClusterLayeringRefused True naming the
//     MachineOSConfig, Updating False, and a warning event;
//   - with the MachineOSConfig deleted, the workers are granted the newest
//     config and the condition turns False.
func TestOnClusterLayeringPoolRefused(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "layering"})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })
	kubeconfig := controllerAccount(ctx, t, cp)

	createWorkerNodes(ctx, t, cp, workerOld, "worker-0", "worker-1")
	if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, masterNode("master-0", "rendered-master-old"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mosc := &mcfgv1.MachineOSConfig{ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool}, // the CRD: named as its pool
		Spec: mcfgv1.MachineOSConfigSpec{
			MachineConfigPool:       mcfgv1.MachineConfigPoolReference{Name: constants.WorkerPool},
			ImageBuilder:            mcfgv1.MachineOSImageBuilder{ImageBuilderType: mcfgv1.JobBuilder},
			RenderedImagePushSecret: mcfgv1.ImageSecretObjectReference{Name: "push-secret"},
			RenderedImagePushSpec:   "registry.example.com/layered/worker:latest",
		}}
	if _, err := cp.MCO.MachineconfigurationV1().MachineOSConfigs().Create(ctx, mosc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	workerConfigs(ctx, t, cp, 2)
	masterConfigs(ctx, t, cp)

	runs := startController(ctx, t, &running, append(mcoDeploymentArgs(), "--kubeconfig="+kubeconfig)...)
	first := waitTarget(ctx, t, cp, constants.WorkerPool, "")
	masterTarget := waitTarget(ctx, t, cp, constants.MasterPool, "")

	// The MCO's rule, checked on every look: while the MachineOSConfig
	// exists, no worker leaves its old config, nor stages another.
	workersStay := func() string {
		nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err.Error()
		}
		var seen []string
		for _, n := range nodes.Items {
			if _, worker := n.Labels[constants.NodeRoleLabelPrefix+constants.WorkerPool]; !worker {
				continue
			}
			d, s := n.Annotations[constants.DesiredConfigAnnotation], n.Annotations[constants.StageConfigAnnotation]
			if d != workerOld || s != "" {
				t.Fatalf("%s was given desiredConfig=%q stageConfig=%q while MachineOSConfig %s selects its pool (want desiredConfig %s, no stageConfig)",
					n.Name, d, s, mosc.Name, workerOld)
			}
			seen = append(seen, n.Name+"="+d)
		}
		return fmt.Sprintf("workers %v", seen)
	}

	poll(ctx, t, "master-0 granted "+masterTarget, func() (bool, string) {
		state := workersStay()
		n, err := cp.Kube.CoreV1().Nodes().Get(ctx, "master-0", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		d := n.Annotations[constants.DesiredConfigAnnotation]
		return d == masterTarget, fmt.Sprintf("master-0 desiredConfig %q; %s", d, state)
	})
	refused := layeringCondition(ctx, t, cp, corev1.ConditionTrue, first, workersStay)
	t.Logf("worker pool on %s: %s %s: %s", first, constants.PoolOnClusterLayeringRefusedCondition, refused.Reason, refused.Message)
	if !strings.Contains(refused.Message, mosc.Name) {
		t.Errorf("the condition does not name the MachineOSConfig: %q", refused.Message)
	}
	poolEvent(ctx, t, cp, constants.WorkerPool, corev1.EventTypeWarning, constants.PoolOnClusterLayeringRefusedCondition, mosc.Name)

	// A new worker config is published: still nothing moves.
	addMachineConfig(ctx, t, cp, constants.WorkerPool, "01-worker", "/etc/layering-test")
	second := waitTarget(ctx, t, cp, constants.WorkerPool, first)
	layeringCondition(ctx, t, cp, corev1.ConditionTrue, second, workersStay)
	workersStay()

	// The MachineOSConfig goes: the pool rolls out the newest config.
	if err := cp.MCO.MachineconfigurationV1().MachineOSConfigs().Delete(ctx, mosc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGrants(ctx, t, cp, second, "worker-0", "worker-1")
	layeringCondition(ctx, t, cp, corev1.ConditionFalse, "", func() string { return "" })
	for _, err := range runs.exited() {
		t.Errorf("the controller exited: %v", err)
	}
}

// layeringCondition waits until the worker pool's OnClusterLayeringRefused
// condition has status; with True, also until Updating is False naming
// target (the pool was planned on it). check runs on every look.
func layeringCondition(ctx context.Context, t *testing.T, cp *framework.ControlPlane, status corev1.ConditionStatus, target string,
	check func() string) mcfgv1.MachineConfigPoolCondition {
	t.Helper()
	var out mcfgv1.MachineConfigPoolCondition
	poll(ctx, t, fmt.Sprintf("worker pool %s=%s on %q", constants.PoolOnClusterLayeringRefusedCondition, status, target), func() (bool, string) {
		state := check()
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		var refused, updating *mcfgv1.MachineConfigPoolCondition
		for i, c := range p.Status.Conditions {
			switch c.Type {
			case constants.PoolOnClusterLayeringRefusedCondition:
				refused = &p.Status.Conditions[i]
			case mcfgv1.MachineConfigPoolUpdating:
				updating = &p.Status.Conditions[i]
			}
		}
		ok := refused != nil && refused.Status == status
		if ok && status == corev1.ConditionTrue {
			ok = updating != nil && updating.Status == corev1.ConditionFalse && strings.Contains(updating.Message, target)
		}
		if ok {
			out = *refused
		}
		return ok, fmt.Sprintf("conditions %v; %s", p.Status.Conditions, state)
	})
	return out
}

// poolEvent waits for an event of type and reason on pool whose message
// contains has.
func poolEvent(ctx context.Context, t *testing.T, cp *framework.ControlPlane, pool, typ, reason, has string) {
	t.Helper()
	poll(ctx, t, fmt.Sprintf("%s event %s on pool %s", typ, reason, pool), func() (bool, string) {
		evs, err := cp.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind != "MachineConfigPool" || e.InvolvedObject.Name != pool {
				continue
			}
			seen = append(seen, e.Type+" "+e.Reason)
			if e.Type == typ && e.Reason == reason && strings.Contains(e.Message, has) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("events %v", seen)
	})
}
