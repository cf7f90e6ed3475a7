//go:build integration

package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/test/framework"
)

// The MCO's rule for masters (openshift/machine-config-operator release-4.21
// at db84d8368ef7, pkg/controller/node/node_controller.go reconcileMaster,
// makeMasterNodeSchedulable, makeMasterNodeUnSchedulable,
// updateMasterNodeControlPlaneLabel, checkMasterNodesOnDelete), spelled
// here with its literal keys.
const (
	roleMaster       = "node-role.kubernetes.io/master"
	roleWorker       = "node-role.kubernetes.io/worker"
	roleControlPlane = "node-role.kubernetes.io/control-plane"
)

// mastersState says whether n is as the MCO leaves a master when
// mastersSchedulable is schedulable, "" when it is.
func mastersState(n *corev1.Node, schedulable bool) string {
	_, worker := n.Labels[roleWorker]
	_, cp := n.Labels[roleControlPlane]
	tainted := false
	for _, t := range n.Spec.Taints {
		tainted = tainted || (t.Key == roleMaster && t.Effect == corev1.TaintEffectNoSchedule)
	}
	if cp && worker == schedulable && tainted == !schedulable {
		return ""
	}
	return fmt.Sprintf("%s: control-plane label %v, worker label %v, %s:NoSchedule %v", n.Name, cp, worker, roleMaster, tainted)
}

// TestMastersSchedulable: the controller, run as the MCO's Deployment runs
// it (its arguments, the service account of manifests/rbac), keeps the
// masters' NoSchedule taint and worker label as the Scheduler "cluster"'s
// spec.mastersSchedulable asks, flipped false, true, false, true and then
// the Scheduler deleted (the MCO makes the masters unschedulable then);
// every master gets the control-plane label; a master's other taints stay,
// and a worker is never touched.
func TestMastersSchedulable(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "masters"})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })
	kubeconfig := controllerAccount(ctx, t, cp)
	config, err := configclientset.NewForConfig(cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	schedulers := config.ConfigV1().Schedulers()
	if _, err := schedulers.Create(ctx, &configv1.Scheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dedicated := corev1.Taint{Key: "example.com/dedicated", Value: "infra", Effect: corev1.TaintEffectNoExecute}
	nodes := []*corev1.Node{
		// Left schedulable by an earlier setting.
		{ObjectMeta: metav1.ObjectMeta{Name: "master-0", Labels: map[string]string{roleMaster: "", roleWorker: ""}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "master-1", Labels: map[string]string{roleMaster: "", roleControlPlane: ""}},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{dedicated}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Labels: map[string]string{roleWorker: ""}}},
	}
	for _, n := range nodes {
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	runs := startController(ctx, t, &running, append(mcoDeploymentArgs(), "--kubeconfig="+kubeconfig)...)

	masters := func(what string, schedulable bool) {
		t.Helper()
		poll(ctx, t, what, func() (bool, string) {
			var wrong []string
			for _, name := range []string{"master-0", "master-1"} {
				n, err := cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err.Error()
				}
				if s := mastersState(n, schedulable); s != "" {
					wrong = append(wrong, s)
				}
			}
			return len(wrong) == 0, fmt.Sprintf("%v", wrong)
		})
	}
	setSchedulable := func(on bool) {
		t.Helper()
		s, err := schedulers.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Spec.MastersSchedulable = on
		if _, err := schedulers.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	masters("masters unschedulable (mastersSchedulable false)", false)
	setSchedulable(true)
	masters("masters schedulable after mastersSchedulable=true", true)
	setSchedulable(false)
	masters("masters unschedulable after mastersSchedulable=false", false)
	setSchedulable(true)
	masters("masters schedulable again", true)
	if err := schedulers.Delete(ctx, "cluster", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	masters("masters unschedulable after the Scheduler was deleted", false)

	m1, err := cp.Kube.CoreV1().Nodes().Get(ctx, "master-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, tn := range m1.Spec.Taints {
		kept = kept || (tn.Key == dedicated.Key && tn.Value == dedicated.Value && tn.Effect == dedicated.Effect)
	}
	if !kept {
		t.Errorf("master-1 lost its own taint: %v", m1.Spec.Taints)
	}
	w, err := cp.Kube.CoreV1().Nodes().Get(ctx, "worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// (kube-controller-manager's node lifecycle controller taints it
	// not-ready: no kubelet here.)
	_, touched := w.Labels[roleControlPlane]
	_, workerLabel := w.Labels[roleWorker]
	for _, tn := range w.Spec.Taints {
		touched = touched || tn.Key == roleMaster
	}
	if touched || !workerLabel {
		t.Errorf("worker-0 was touched: labels %v, taints %v", w.Labels, w.Spec.Taints)
	}
	for _, err := range runs.exited() {
		t.Errorf("the controller exited: %v", err)
	}
}
