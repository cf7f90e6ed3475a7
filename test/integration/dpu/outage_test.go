//go:build integration

package dpu_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/test/framework"
)

const (
	outageGrace    = 4 * time.Second
	outageRecovery = 3 * time.Second
	dpuAgentNS     = "dpu-system"
	dpuAgent       = "ovnkube-node"
)

// TestDPUOutageTaint: a DPU that is down outside a planned update (its Node
// NotReady, or its required DaemonSet pod missing) for longer than the grace
// gets its tenant host tainted NoSchedule, through a Taint HostMaintenance
// the infra side creates with its narrow identity; the taint goes once the
// DPU has been back for the recovery time. A DPU flapping faster than the
// grace never taints its host, and one flapping while tainted keeps the
// taint instead of taking it on and off. The oracle is the tenant Node's
// taint as a watch sees it.
func TestDPUOutageTaint(t *testing.T) {
	ctx := t.Context()
	tenant := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "tenant"})
	infra := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "infra"})
	ensureNamespace(t, tenant.Kube, mcoNS)
	applyManifest(t, tenant.Kube, "manifests/rbac/tenant-dpu-infra-identity.yaml")
	identity := hmClient(t, impersonate(t, tenant, "system:serviceaccount:"+mcoNS+":tandem-dpu-infra",
		"system:serviceaccounts", "system:serviceaccounts:"+mcoNS))

	createPool(t, tenant, "worker", constants.NodeRoleLabelPrefix+constants.WorkerPool, tenantCfg, 1)
	createNode(t, tenant, "host-0", constants.WorkerPool, tenantCfg, nil)
	createPool(t, infra, constants.DPUWorkerPool, constants.NodeRoleLabelPrefix+constants.DPUWorkerPool, infraA, 1)
	// The DPU's Node has no kubelet here: the test plays its Ready condition
	// and its agent pod's, the way a kubelet would report them.
	dpuNode := framework.KwokNode("dpu-0", map[string]string{constants.NodeRoleLabelPrefix + constants.DPUWorkerPool: ""})
	delete(dpuNode.Annotations, framework.KwokNodeAnnotation)
	dpuNode.Annotations[constants.TenantNodeAnnotation] = "host-0"
	dpuNode.Annotations[constants.CurrentConfigAnnotation] = infraA
	dpuNode.Annotations[constants.DesiredConfigAnnotation] = infraA
	dpuNode.Annotations[constants.StateAnnotation] = constants.MachineConfigDaemonStateDone
	if _, err := infra.Kube.CoreV1().Nodes().Create(ctx, dpuNode, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setNodeReady(t, infra, "dpu-0", true)
	ensureNamespace(t, infra.Kube, dpuAgentNS)
	startAgentPod(t, infra, "dpu-0", "agent-1")

	runTenantController(t, tenant, dpu.TenantOptions{Resync: time.Second})
	infraReg, stopInfra := runOutageWatch(t, infra, identity, nil)
	taints := watchTaints(t, tenant, "host-0")

	waitFor(t, "the Pair request for host-0", time.Minute, func() (bool, string) {
		hm, err := identity.Get(ctx, dpu.PairRequestName("dpu-0"))
		if err != nil {
			return false, err.Error()
		}
		return hm.Status.Phase == dpuv1.PhaseActive, fmt.Sprintf("%s: %s", hm.Status.Phase, hm.Status.Message)
	})

	t.Run("flapping faster than the grace: no taint", func(t *testing.T) {
		for range 4 {
			setNodeReady(t, infra, "dpu-0", false)
			time.Sleep(outageGrace / 4)
			setNodeReady(t, infra, "dpu-0", true)
			time.Sleep(outageGrace / 4)
		}
		time.Sleep(outageGrace)
		if on, off := taints.counts(); on != 0 || off != 0 {
			t.Fatalf("host-0 tainted %d times, untainted %d times, while its DPU only flapped", on, off)
		}
	})

	t.Run("down past the grace: tainted, with events", func(t *testing.T) {
		down := time.Now()
		setNodeReady(t, infra, "dpu-0", false)
		taints.waitFor(t, true)
		if took := time.Since(down); took < outageGrace-time.Second {
			t.Errorf("tainted %s after the DPU went down, before the %s grace", took, outageGrace)
		}
		n, err := tenant.Kube.CoreV1().Nodes().Get(ctx, "host-0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := taintOf(n); !ok || v != "dpu-0" {
			t.Errorf("host-0 taints %+v, want %s=dpu-0:NoSchedule", n.Spec.Taints, constants.DPUNotReadyTaintKey)
		}
		waitFor(t, "the DPUNotReady events on host-0 and dpu-0", time.Minute, func() (bool, string) {
			a, b := countEvents(t, tenant, "host-0", dpu.EventDPUNotReady), countEvents(t, infra, "dpu-0", dpu.EventDPUNotReady)
			return a > 0 && b > 0, fmt.Sprintf("tenant %d, infra %d", a, b)
		})
		if v := gaugeValue(infraReg, "tandem_dpu_host_tainted", map[string]string{"infra_node": "dpu-0", "tenant_node": "host-0"}); v != 1 {
			t.Errorf("tandem_dpu_host_tainted %v, want 1", v)
		}
	})

	t.Run("flapping while tainted: the taint stays; back for the recovery: untainted", func(t *testing.T) {
		for range 3 {
			setNodeReady(t, infra, "dpu-0", true)
			time.Sleep(outageRecovery / 3)
			setNodeReady(t, infra, "dpu-0", false)
			time.Sleep(outageRecovery / 3)
		}
		if _, off := taints.counts(); off != 0 {
			t.Fatalf("the taint came off while the DPU flapped")
		}
		up := time.Now()
		setNodeReady(t, infra, "dpu-0", true)
		taints.waitFor(t, false)
		if took := time.Since(up); took < outageRecovery-time.Second {
			t.Errorf("untainted %s after the DPU came back, before the %s recovery", took, outageRecovery)
		}
		waitFor(t, "the DPUReady event on host-0", time.Minute, func() (bool, string) {
			n := countEvents(t, tenant, "host-0", dpu.EventDPUReady)
			return n > 0, fmt.Sprint(n)
		})
	})

	t.Run("its agent DaemonSet pod missing: tainted until a Ready one is back", func(t *testing.T) {
		if err := infra.Kube.CoreV1().Pods(dpuAgentNS).Delete(ctx, "agent-1", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatal(err)
		}
		taints.waitFor(t, true)
		hm, err := identity.Get(ctx, dpu.OutageRequestName("dpu-0"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "DaemonSet " + dpuAgentNS + "/" + dpuAgent; !strings.Contains(hm.Spec.Reason, want) {
			t.Errorf("Taint request reason %q, want it to name %s", hm.Spec.Reason, want)
		}
		startAgentPod(t, infra, "dpu-0", "agent-2")
		taints.waitFor(t, false)
	})

	if on, off := taints.counts(); on != 2 || off != 2 {
		t.Errorf("host-0 tainted %d and untainted %d times, want 2 and 2 (two outages)", on, off)
	}

	start := time.Now()
	t.Run("a restart mid-outage keeps its clock: the new controller taints when the first one's grace ends", func(t *testing.T) {
		// Both controllers' clocks stand still, so nothing depends on how
		// fast this machine is: the first never reaches the grace, the
		// second starts past it.
		stopInfra()
		_, stopFirst := runOutageWatch(t, infra, identity, func() time.Time { return start })
		if err := infra.Kube.CoreV1().Pods(dpuAgentNS).Delete(ctx, "agent-2", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Fatal(err)
		}
		// An absent pod has no time of its own: the controller records the
		// outage's start on the DPU's Node.
		var since time.Time
		waitFor(t, "the start of dpu-0's outage recorded on its Node", time.Minute, func() (bool, string) {
			n, err := infra.Kube.CoreV1().Nodes().Get(ctx, "dpu-0", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			v, ok := n.Annotations[constants.DPUDownSinceAnnotation]
			if since, err = time.Parse(time.RFC3339, v); !ok || err != nil {
				return false, fmt.Sprintf("%s=%q", constants.DPUDownSinceAnnotation, v)
			}
			return true, v
		})
		stopFirst()
		if on, _ := taints.counts(); on != 2 {
			t.Fatalf("host-0 tainted by the first controller, whose clock never reached the grace")
		}
		// The second controller's clock is just past the first one's grace:
		// one that started the outage's clock over would wait a whole grace
		// that never passes.
		frozen := since.Add(outageGrace + time.Second)
		runOutageWatch(t, infra, identity, func() time.Time { return frozen })
		taints.waitFor(t, true)
		hm, err := identity.Get(ctx, dpu.OutageRequestName("dpu-0"))
		if err != nil {
			t.Fatal(err)
		}
		if want := since.UTC().Format(time.RFC3339); !strings.Contains(hm.Spec.Reason, "down since "+want) {
			t.Errorf("Taint request reason %q, want the outage down since %s (the first controller's record)", hm.Spec.Reason, want)
		}
	})
}

// runOutageWatch runs the infra controller (leader mode) with the narrow
// tenant identity, on the clock now (nil: time.Now). stop stops it (at
// once; the test's cleanup calls it too).
func runOutageWatch(t *testing.T, infra *framework.ControlPlane, identity *dpu.HostMaintenances, now func() time.Time) (*prometheus.Registry, func()) {
	reg := prometheus.NewRegistry()
	kubeInf := informers.NewSharedInformerFactory(infra.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(infra.MCO, 0)
	c, err := dpu.NewInfraController(infra.Kube, identity, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		dpu.InfraOptions{Registerer: reg, Resync: time.Second, OutageGrace: outageGrace, OutageRecovery: outageRecovery, Now: now,
			RequiredDaemonSets: []types.NamespacedName{{Namespace: dpuAgentNS, Name: dpuAgent}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			kubeInf.Shutdown()
			mcoInf.Shutdown()
		})
	}
	t.Cleanup(stop)
	return reg, stop
}

// setNodeReady sets the Node's Ready condition as a kubelet would.
func setNodeReady(t *testing.T, cp *framework.ControlPlane, name string, ready bool) {
	t.Helper()
	n, err := cp.Kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	now := metav1.Now()
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "Test",
		LastHeartbeatTime: now, LastTransitionTime: now}}
	if _, err := cp.Kube.CoreV1().Nodes().UpdateStatus(t.Context(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// startAgentPod creates a Ready pod of the DPU agent DaemonSet on node.
func startAgentPod(t *testing.T, cp *framework.ControlPlane, node, name string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: dpuAgentNS, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "DaemonSet", Name: dpuAgent, UID: "00000000-0000-0000-0000-00000000d5d5"}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "agent", Image: "agent"}}},
	}
	created, err := cp.Kube.CoreV1().Pods(dpuAgentNS).Create(t.Context(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Phase = corev1.PodRunning
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if _, err := cp.Kube.CoreV1().Pods(dpuAgentNS).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func taintOf(n *corev1.Node) (string, bool) {
	for _, tt := range n.Spec.Taints {
		if tt.Key == constants.DPUNotReadyTaintKey && tt.Effect == corev1.TaintEffectNoSchedule {
			return tt.Value, true
		}
	}
	return "", false
}

// taintWatch counts the DPU taint coming on and off a node, from a watch.
type taintWatch struct {
	mu      sync.Mutex
	on, off int
	now     bool
}

func (w *taintWatch) counts() (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.on, w.off
}

func (w *taintWatch) waitFor(t *testing.T, tainted bool) {
	t.Helper()
	waitFor(t, fmt.Sprintf("host tainted=%v", tainted), time.Minute, func() (bool, string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.now == tainted, fmt.Sprintf("tainted=%v (on %d, off %d)", w.now, w.on, w.off)
	})
}

func watchTaints(t *testing.T, cp *framework.ControlPlane, node string) *taintWatch {
	w := &taintWatch{}
	f := informers.NewSharedInformerFactory(cp.Kube, 0)
	_, _ = f.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, cur any) {
			n := cur.(*corev1.Node)
			if n.Name != node {
				return
			}
			_, tainted := taintOf(n)
			w.mu.Lock()
			defer w.mu.Unlock()
			switch {
			case tainted && !w.now:
				w.on++
			case !tainted && w.now:
				w.off++
			}
			w.now = tainted
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	syncWithin(t, f)
	t.Cleanup(func() { cancel(); f.Shutdown() })
	return w
}
