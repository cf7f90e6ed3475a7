//go:build integration

package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/cli/mcc"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestControllerSettingsConfigMap starts the controller with the MCO's
// Deployment arguments only (and --kubeconfig of its service account under
// manifests/rbac), with tandem's settings in the ConfigMap
// openshift-machine-config-operator/machine-config-controller-tandem:
//   - a blocking-pod selector from the ConfigMap holds the worker that runs
//     such a pod, while the other worker is granted (maxUnavailable 2);
//   - a change to an invalid ConfigMap (a bad dpu-mode beside a valid key)
//     restarts the controller, which refuses the whole ConfigMap: a warning
//     event on it names the key, and every disruption is held
//     (DisruptionHeld InvalidSettings, naming the key) rather than run
//     without the settings;
//   - fixed (the selector dropped), the controller restarts again and
//     grants the held worker.
func TestControllerSettingsConfigMap(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "settings"})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })
	kubeconfig := controllerAccount(ctx, t, cp)

	const old = "rendered-worker-old"
	createWorkerNodes(ctx, t, cp, old, "worker-0", "worker-1")
	// A database pod on worker-0 (no kubelet here: bound and Pending, which
	// blocks like Running does).
	db := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "db-0", Labels: map[string]string{"app": "db"}},
		Spec: corev1.PodSpec{NodeName: "worker-0", Containers: []corev1.Container{{Name: "db", Image: "db"}}}}
	if _, err := cp.Kube.CoreV1().Pods(db.Namespace).Create(ctx, db, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: mcoNamespace, Name: mcc.DefaultSettingsName},
		Data: map[string]string{"blocking-pod-selector": "app=db", "node-update-delay": "100ms"}}
	if _, err := cp.Kube.CoreV1().ConfigMaps(mcoNamespace).Create(ctx, settings, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	workerConfigs(ctx, t, cp, 2)

	runs := startController(ctx, t, &running, append(mcoDeploymentArgs(), "--kubeconfig="+kubeconfig)...)
	target := waitTarget(ctx, t, cp, constants.WorkerPool, "")

	// The ConfigMap's selector holds worker-0; worker-1 is granted.
	held := poolCondition(ctx, t, cp, constants.WorkerPool, constants.PoolDisruptionHeldCondition, corev1.ConditionTrue, string(node.HoldBlockingPods))
	t.Logf("with the ConfigMap's blocking-pod selector: DisruptionHeld %s: %s", held.Reason, held.Message)
	waitGrants(ctx, t, cp, target, "worker-1")
	if !settingsEvent(ctx, t, cp, "TandemSettingsApplied", "") {
		t.Errorf("no TandemSettingsApplied event on the ConfigMap")
	}

	// Invalid: a bad dpu-mode beside the still valid selector. The
	// controller restarts, refuses the ConfigMap as a whole and holds.
	setSettings(ctx, t, cp, map[string]string{"blocking-pod-selector": "app=db", "dpu-mode": "lead"})
	bad := poolCondition(ctx, t, cp, constants.WorkerPool, constants.PoolDisruptionHeldCondition, corev1.ConditionTrue, string(node.HoldInvalidSettings))
	t.Logf("with an invalid ConfigMap: DisruptionHeld %s: %s", bad.Reason, bad.Message)
	if !strings.Contains(bad.Message, `key "dpu-mode"`) {
		t.Errorf("DisruptionHeld does not name the bad key: %q", bad.Message)
	}
	if !settingsEvent(ctx, t, cp, "InvalidTandemSettings", `key "dpu-mode"`) {
		t.Errorf("no InvalidTandemSettings event naming the key")
	}
	if exits := runs.exited(); len(exits) < 1 || exits[0] != nil {
		t.Errorf("the controller did not exit cleanly to restart on the change: exits %v", exits)
	}
	waitGrants(ctx, t, cp, target, "worker-1") // still only worker-1

	// Fixed, without the selector: restart again, worker-0 is granted.
	setSettings(ctx, t, cp, map[string]string{"node-update-delay": "100ms"})
	waitGrants(ctx, t, cp, target, "worker-0", "worker-1")
	for _, err := range runs.exited() {
		if err != nil {
			t.Errorf("the controller exited with an error: %v", err)
		}
	}
}

func setSettings(ctx context.Context, t *testing.T, cp *framework.ControlPlane, data map[string]string) {
	t.Helper()
	cms := cp.Kube.CoreV1().ConfigMaps(mcoNamespace)
	cm, err := cms.Get(ctx, mcc.DefaultSettingsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = data
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitGrants waits until exactly the nodes named are granted target, and
// fails at once if another one is.
func waitGrants(ctx context.Context, t *testing.T, cp *framework.ControlPlane, target string, want ...string) {
	t.Helper()
	poll(ctx, t, fmt.Sprintf("grants of %s to exactly %v", target, want), func() (bool, string) {
		nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var granted []string
		for _, n := range nodes.Items {
			if n.Annotations[constants.DesiredConfigAnnotation] == target {
				granted = append(granted, n.Name)
			}
		}
		for _, g := range granted {
			found := false
			for _, w := range want {
				found = found || g == w
			}
			if !found {
				t.Fatalf("%s was granted %s; only %v may be", g, target, want)
			}
		}
		return len(granted) == len(want), fmt.Sprintf("granted %v", granted)
	})
}

// settingsEvent waits for an event with reason on the settings ConfigMap
// whose message contains has.
func settingsEvent(ctx context.Context, t *testing.T, cp *framework.ControlPlane, reason, has string) bool {
	t.Helper()
	found := false
	poll(ctx, t, "event "+reason+" on the settings ConfigMap", func() (bool, string) {
		evs, err := cp.Kube.CoreV1().Events(mcoNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == "ConfigMap" && e.InvolvedObject.Name == mcc.DefaultSettingsName {
				seen = append(seen, e.Reason+": "+e.Message)
				found = found || (e.Reason == reason && strings.Contains(e.Message, has))
			}
		}
		return found, fmt.Sprintf("events %q", seen)
	})
	return found
}
