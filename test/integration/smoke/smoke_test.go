//go:build integration

// Package smoke checks the whole test chain once: a real kube-apiserver with
// the MachineConfig CRDs, typed openshift/client-go clients and informers,
// kube-scheduler and kwok running a pod on a simulated node.
package smoke

import (
	"context"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

func TestSmokeChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "smoke", KubeControllers: true})
	framework.NewKwok(t, cp)

	pool := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.MachineConfigRoleLabel, constants.WorkerPool),
			NodeSelector:          metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.NodeRoleLabelPrefix+constants.WorkerPool, ""),
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pool: %v", err)
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "50-smoke", Labels: map[string]string{constants.MachineConfigRoleLabel: constants.WorkerPool}},
		Spec: mcfgv1.MachineConfigSpec{
			OSImageURL: "127.0.0.1:5000/os@sha256:0000000000000000000000000000000000000000000000000000000000000001",
			Config:     runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.4.0"}}`)},
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating machineconfig: %v", err)
	}
	nodes := []string{"worker-0", "worker-1"}
	for _, n := range nodes {
		node := framework.KwokNode(n, map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""})
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating node %s: %v", n, err)
		}
	}

	// Read the objects back through shared informers, as the controllers will.
	factory := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	pools := factory.Machineconfiguration().V1().MachineConfigPools()
	configs := factory.Machineconfiguration().V1().MachineConfigs()
	pools.Informer()
	configs.Informer()
	informerCtx, stopInformers := context.WithCancel(ctx)
	factory.Start(informerCtx.Done())
	defer factory.Shutdown() // runs after stopInformers, or it would wait forever
	defer stopInformers()
	if !cache.WaitForCacheSync(ctx.Done(), pools.Informer().HasSynced, configs.Informer().HasSynced) {
		t.Fatal("informers did not sync")
	}
	gotPool, err := pools.Lister().Get(constants.WorkerPool)
	if err != nil {
		t.Fatalf("pool not in informer cache: %v", err)
	}
	if gotPool.Spec.MachineConfigSelector.MatchLabels[constants.MachineConfigRoleLabel] != constants.WorkerPool {
		t.Errorf("pool selector round-trip: got %v", gotPool.Spec.MachineConfigSelector)
	}
	gotMC, err := configs.Lister().Get("50-smoke")
	if err != nil {
		t.Fatalf("machineconfig not in informer cache: %v", err)
	}
	if gotMC.Spec.OSImageURL != mc.Spec.OSImageURL {
		t.Errorf("osImageURL round-trip: got %q want %q", gotMC.Spec.OSImageURL, mc.Spec.OSImageURL)
	}

	if err := framework.WaitForNodesReady(ctx, cp.Kube, nodes...); err != nil {
		t.Fatalf("kwok did not make nodes Ready: %v", err)
	}

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}},
	}
	if _, err := cp.Kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod: %v", err)
	}
	var running *corev1.Pod
	for running == nil {
		p, err := cp.Kube.CoreV1().Pods("default").Get(ctx, "smoke", metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			running = p
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod never ran (last: %+v, err %v); logs in %s", p.Status, err, cp.Dir)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if running.Spec.NodeName != "worker-0" && running.Spec.NodeName != "worker-1" {
		t.Errorf("pod scheduled on %q, want a kwok worker", running.Spec.NodeName)
	}
	t.Logf("pod ran on %s", running.Spec.NodeName)
}
