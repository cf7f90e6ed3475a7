//go:build integration

package dpu_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
)

const tenantCfgB = "rendered-worker-b"

// TestNodeMaintenance works with the dpu-network-operator as it is: it asks
// for a tenant host's drain with a medik8s NodeMaintenance named
// dpu-tenant-<host> and waits for status.phase Succeeded; it deletes the
// object when its DPU is back. The CRD is medik8s's published schema
// (testdata, pinned to node-maintenance-operator v0.20.1). tandem serves such
// objects as Drain holds, counted against maxUnavailable, and hands a
// drained host its pending update when the hold ends: one drain for both.
func TestNodeMaintenance(t *testing.T) {
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "tenant", KubeControllers: true})
	framework.NewKwok(t, cp)
	if _, err := envtest.InstallCRDs(cp.RESTConfig, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("testdata", "nodemaintenance.medik8s.io_nodemaintenances.yaml")},
	}); err != nil {
		t.Fatal(err)
	}
	createPool(t, cp, "worker", constants.NodeRoleLabelPrefix+constants.WorkerPool, tenantCfg, 1)
	workers := []string{"w0", "w1", "w2"}
	for _, n := range workers {
		createNode(t, cp, n, constants.WorkerPool, tenantCfg, nil)
	}
	waitNodesReady(t, cp.Kube, workers...)
	ensureNamespace(t, cp.Kube, workloadNS)
	if _, err := cp.Kube.AppsV1().DaemonSets(workloadNS).Create(ctx, daemonSet("agent"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runAppsOn(t, cp.Kube, workers...)
	waitAppsOn(t, cp.Kube, workers...)

	daemons := startStandIns(t, cp, true)
	cordons := countCordons(t, cp)
	nm := dynamic.NewForConfigOrDie(cp.RESTConfig).Resource(dpu.NodeMaintenanceGVR)
	runTenantWithPlanner(t, cp, dynamic.NewForConfigOrDie(cp.RESTConfig))

	create := func(name, nodeName string) {
		t.Helper()
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "nodemaintenance.medik8s.io/v1beta1", "kind": "NodeMaintenance",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"nodeName": nodeName, "reason": "Infra dpu is going to reboot"},
		}}
		if _, err := nm.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	status := func(name string) (phase, lastError string) {
		obj, err := nm.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "error", err.Error()
		}
		phase, _, _ = unstructured.NestedString(obj.Object, "status", "phase")
		lastError, _, _ = unstructured.NestedString(obj.Object, "status", "lastError")
		return phase, lastError
	}
	waitPhase := func(name, want string) {
		t.Helper()
		waitFor(t, fmt.Sprintf("NodeMaintenance %s %s", name, want), 2*time.Minute, func() (bool, string) {
			phase, lastError := status(name)
			return phase == want, fmt.Sprintf("phase=%q lastError=%q", phase, lastError)
		})
	}
	node := func(name string) *corev1.Node {
		n, err := cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The operator's request drains w0, as the node-maintenance-operator would.
	create("dpu-tenant-w0", "w0")
	waitPhase("dpu-tenant-w0", "Succeeded")
	if other, _, _ := workloadPods(ctx, cp.Kube, "w0"); other != 0 || !node("w0").Spec.Unschedulable {
		t.Fatalf("Succeeded, but w0 is %s with %d app pods", nodeSummary(node("w0")), other)
	}
	// A second one waits for the pool's only place.
	create("dpu-tenant-w1", "w1")
	create("admin-w2", "w2") // not the operator's: left to whoever runs a node-maintenance-operator
	waitFor(t, "dpu-tenant-w1 waiting for maxUnavailable", time.Minute, func() (bool, string) {
		phase, lastError := status("dpu-tenant-w1")
		return phase == "" && strings.Contains(lastError, "maxUnavailable"), fmt.Sprintf("phase=%q lastError=%q", phase, lastError)
	})

	// The tenant's own update starts: the held and waiting hosts are left
	// to their maintenance; they stage meanwhile.
	setTarget(t, cp, "worker", tenantCfgB)
	waitFor(t, "w0 and w1 staged, not granted", time.Minute, func() (bool, string) {
		ok := true
		var s []string
		for _, n := range []string{"w0", "w1"} {
			a := node(n).Annotations
			ok = ok && a[constants.StagedConfigAnnotation] == tenantCfgB && a[constants.DesiredConfigAnnotation] == tenantCfg
			s = append(s, nodeSummary(node(n)))
		}
		return ok, strings.Join(s, "; ")
	})
	if phase, _ := status("dpu-tenant-w1"); phase != "" || node("w1").Spec.Unschedulable {
		t.Fatalf("w1 drained while w0 holds the pool's only place: phase %q, %s", phase, nodeSummary(node("w1")))
	}

	// The DPU is back: the operator deletes its request. w0, drained, takes
	// its update before it is released, and w1's request gets the place.
	for _, name := range []string{"dpu-tenant-w0", "dpu-tenant-w1"} {
		if err := nm.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if name == "dpu-tenant-w0" {
			waitPhase("dpu-tenant-w1", "Succeeded")
		}
	}
	waitFor(t, "every worker on "+tenantCfgB+" and released", 3*time.Minute, func() (bool, string) {
		ok := true
		var s []string
		for _, n := range workers {
			nd := node(n)
			_, held := nd.Annotations[constants.MaintenanceCordonAnnotation]
			ok = ok && nd.Annotations[constants.CurrentConfigAnnotation] == tenantCfgB && !nd.Spec.Unschedulable && !held
			s = append(s, nodeSummary(nd))
		}
		return ok, strings.Join(s, "; ")
	})
	for _, n := range []string{"w0", "w1"} {
		u := daemons.updatesOf(n)
		if len(u) != 1 || !u[0].cordoned {
			t.Errorf("%s updates %+v: want one, applied while still drained for its maintenance", n, u)
		}
		if c := cordons.of(n); c != 1 {
			t.Errorf("%s cordoned %d times, want once (one drain for the maintenance and the update)", n, c)
		}
	}
	if phase, lastError := status("admin-w2"); phase != "" || lastError != "" {
		t.Errorf("admin-w2 (not the dpu-network-operator's) got a status: %q %q", phase, lastError)
	}
}

// runTenantWithPlanner runs the HostMaintenance controller serving
// NodeMaintenance objects next to the node planner, sharing one admission,
// as machine-config-controller does.
func runTenantWithPlanner(t *testing.T, cp *framework.ControlPlane, nms dynamic.Interface) {
	kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	nodes, pools := kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools()
	admission := node.NewAdmission()
	hm, err := dpu.NewTenantController(cp.Kube, hmClient(t, cp.RESTConfig), nodes, pools, dpu.TenantOptions{
		Registerer: prometheus.NewRegistry(), DrainAttemptTimeout: 5 * time.Second, DrainRetryDelay: time.Second,
		Resync: 2 * time.Second, Admission: admission, NodeMaintenances: nms})
	if err != nil {
		t.Fatal(err)
	}
	planner := node.NewController(cp.Kube, cp.MCO, nodes, pools, node.Options{Gates: []node.DisruptionGate{hm.Gate()},
		Resync: time.Second, Admission: admission})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, run := range []func(context.Context) error{hm.Run, func(ctx context.Context) error { return planner.Run(ctx, 2) }} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		kubeInf.Shutdown()
		mcoInf.Shutdown()
	})
}

// cordonCounter counts, per node, the times it went from schedulable to
// cordoned (one drain cycle each), from a watch.
type cordonCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cordonCounter) of(node string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[node]
}

func countCordons(t *testing.T, cp *framework.ControlPlane) *cordonCounter {
	c := &cordonCounter{n: map[string]int{}}
	f := informers.NewSharedInformerFactory(cp.Kube, 0)
	_, _ = f.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(old, cur any) {
			if o, n := old.(*corev1.Node), cur.(*corev1.Node); !o.Spec.Unschedulable && n.Spec.Unschedulable {
				c.mu.Lock()
				c.n[n.Name]++
				c.mu.Unlock()
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	syncWithin(t, f)
	t.Cleanup(func() { cancel(); f.Shutdown() })
	return c
}
