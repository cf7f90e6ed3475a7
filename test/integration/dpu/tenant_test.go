//go:build integration

package dpu_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/test/framework"
)

const tenantCfg = "rendered-worker-a"

// tenantWorld is one tenant control plane with kwok workers, a workload,
// the HostMaintenance controller and stand-in daemons that serve reboot
// requests.
type tenantWorld struct {
	cp      *framework.ControlPlane
	hm      *dpu.HostMaintenances
	daemons *standInDaemons
}

func TestTenantHostMaintenance(t *testing.T) {
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "tenant", KubeControllers: true})
	framework.NewKwok(t, cp)
	w := &tenantWorld{cp: cp, hm: hmClient(t, cp.RESTConfig)}

	createPool(t, cp, "worker", constants.NodeRoleLabelPrefix+constants.WorkerPool, tenantCfg, 1)
	createPool(t, cp, "master", constants.NodeRoleLabelPrefix+constants.MasterPool, "rendered-master-a", 1)
	for _, n := range []string{"w0", "w1", "w2"} {
		createNode(t, cp, n, constants.WorkerPool, tenantCfg, nil)
	}
	createNode(t, cp, "m0", constants.MasterPool, "rendered-master-a", nil)
	waitNodesReady(t, cp.Kube, "w0", "w1", "w2", "m0")
	ensureNamespace(t, cp.Kube, workloadNS)
	if _, err := cp.Kube.AppsV1().DaemonSets(workloadNS).Create(ctx, daemonSet("agent"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	runAppsOn(t, cp.Kube, "w0", "w1", "w2")
	waitAppsOn(t, cp.Kube, "w0", "w1", "w2")

	w.daemons = startStandInDaemons(t, cp)
	runTenantController(t, cp, dpu.TenantOptions{DrainAttemptTimeout: 5 * time.Second, DrainRetryDelay: time.Second})

	t.Run("Drain holds the node until the request is deleted", w.drainHolds)
	t.Run("a person's cordon outlives the hold", w.personCordonKept)
	t.Run("Reboot drains, reboots once, uncordons and completes", w.reboot)
	t.Run("bad requests are rejected with a reason", w.badRequests)
	t.Run("requests are served in order within maxUnavailable", w.inOrder)
	t.Run("deleting a request mid-drain uncordons the node", w.deleteMidDrain)
}

func runTenantController(t *testing.T, cp *framework.ControlPlane, opts dpu.TenantOptions) *dpu.TenantController {
	t.Helper()
	kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	opts.Registerer = prometheus.NewRegistry()
	c, err := dpu.NewTenantController(cp.Kube, hmClient(t, cp.RESTConfig), kubeInf.Core().V1().Nodes(),
		mcoInf.Machineconfiguration().V1().MachineConfigPools(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		kubeInf.Shutdown()
		mcoInf.Shutdown()
	})
	return c
}

func createPool(t *testing.T, cp *framework.ControlPlane, name, roleLabel, cfg string, maxUnavailable int) {
	t.Helper()
	mu := intstr.FromInt(maxUnavailable)
	p := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{roleLabel: ""}},
			MachineConfigSelector: &metav1.LabelSelector{MatchLabels: map[string]string{constants.MachineConfigRoleLabel: name}},
			MaxUnavailable:        &mu,
			Configuration:         mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: cfg}},
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createNode creates a kwok node of a pool, running cfg.
func createNode(t *testing.T, cp *framework.ControlPlane, name, role, cfg string, annotations map[string]string) {
	t.Helper()
	n := framework.KwokNode(name, map[string]string{constants.NodeRoleLabelPrefix + role: ""})
	n.Annotations[constants.CurrentConfigAnnotation] = cfg
	n.Annotations[constants.DesiredConfigAnnotation] = cfg
	n.Annotations[constants.StateAnnotation] = constants.MachineConfigDaemonStateDone
	for k, v := range annotations {
		n.Annotations[k] = v
	}
	if _, err := cp.Kube.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// standInDaemons play the machine-config-daemon's reboot request protocol
// on kwok nodes: a new rebootRequest is served (a reboot, counted) and
// acknowledged in lastReboot. They record whether each node was cordoned
// and free of workload pods when it rebooted. With updates on, they also
// play the daemon's config protocol in its simplest form: a stageConfig is
// reported staged, a granted desiredConfig is applied (currentConfig, Done),
// each update recorded with whether the node was cordoned then.
type standInDaemons struct {
	updates bool

	mu      sync.Mutex
	reboots map[string][]string // node -> tokens served
	applied map[string][]update // node -> updates applied
	errs    []string
}

// update is one config update a stand-in daemon applied.
type update struct {
	config   string
	cordoned bool
}

func startStandInDaemons(t *testing.T, cp *framework.ControlPlane) *standInDaemons {
	return startStandIns(t, cp, false)
}

func startStandIns(t *testing.T, cp *framework.ControlPlane, updates bool) *standInDaemons {
	d := &standInDaemons{updates: updates, reboots: map[string][]string{}, applied: map[string][]update{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err == nil {
				for _, n := range nodes.Items {
					d.serve(ctx, cp, &n)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, e := range d.errs {
			t.Error(e)
		}
	})
	return d
}

func (d *standInDaemons) serve(ctx context.Context, cp *framework.ControlPlane, n *corev1.Node) {
	if d.updates {
		d.serveConfig(ctx, cp, n)
	}
	req := n.Annotations[constants.RebootRequestAnnotation]
	if req == "" || req == n.Annotations[constants.LastRebootAnnotation] {
		return
	}
	other, _, err := workloadPods(ctx, cp.Kube, n.Name)
	d.mu.Lock()
	if err == nil && (other > 0 || !n.Spec.Unschedulable) {
		d.errs = append(d.errs, fmt.Sprintf("node %s rebooted for %s while unschedulable=%v with %d workload pods",
			n.Name, req, n.Spec.Unschedulable, other))
	}
	d.reboots[n.Name] = append(d.reboots[n.Name], req)
	d.mu.Unlock()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{constants.LastRebootAnnotation: req}}})
	_, _ = cp.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{})
}

func (d *standInDaemons) serveConfig(ctx context.Context, cp *framework.ControlPlane, n *corev1.Node) {
	a := n.Annotations
	set := map[string]string{}
	if stage := a[constants.StageConfigAnnotation]; stage != "" && stage != a[constants.CurrentConfigAnnotation] && stage != a[constants.StagedConfigAnnotation] {
		set[constants.StagedConfigAnnotation] = stage
	}
	if want := a[constants.DesiredConfigAnnotation]; want != a[constants.CurrentConfigAnnotation] {
		set[constants.CurrentConfigAnnotation] = want
		set[constants.StateAnnotation] = constants.MachineConfigDaemonStateDone
		d.mu.Lock()
		d.applied[n.Name] = append(d.applied[n.Name], update{config: want, cordoned: n.Spec.Unschedulable})
		d.mu.Unlock()
	}
	if len(set) == 0 {
		return
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": set}})
	_, _ = cp.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{})
}

func (d *standInDaemons) updatesOf(node string) []update {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]update(nil), d.applied[node]...)
}

func (d *standInDaemons) served(node string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.reboots[node]...)
}

func (w *tenantWorld) create(t *testing.T, name, node string, action dpuv1.HostMaintenanceAction) *dpuv1.HostMaintenance {
	t.Helper()
	hm, err := w.hm.Create(t.Context(), &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: node, Action: action, Requester: "test", Reason: t.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	return hm
}

func (w *tenantWorld) waitPhase(t *testing.T, name string, phase dpuv1.HostMaintenancePhase) *dpuv1.HostMaintenance {
	t.Helper()
	var hm *dpuv1.HostMaintenance
	waitFor(t, fmt.Sprintf("%s %s", name, phase), 2*time.Minute, func() (bool, string) {
		var err error
		hm, err = w.hm.Get(t.Context(), name)
		if err != nil {
			return false, err.Error()
		}
		return hm.Status.Phase == phase, fmt.Sprintf("phase=%s message=%q", hm.Status.Phase, hm.Status.Message)
	})
	return hm
}

func (w *tenantWorld) delete(t *testing.T, name string) {
	t.Helper()
	if err := w.hm.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (w *tenantWorld) node(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n, err := w.cp.Kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (w *tenantWorld) waitReleased(t *testing.T, name string, wantCordoned bool) {
	t.Helper()
	waitFor(t, name+" released", 2*time.Minute, func() (bool, string) {
		n := w.node(t, name)
		_, held := n.Annotations[constants.MaintenanceCordonAnnotation]
		return !held && n.Spec.Unschedulable == wantCordoned, nodeSummary(n)
	})
}

func (w *tenantWorld) setCordon(t *testing.T, name string, on bool) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%v}}`, on)
	if _, err := w.cp.Kube.CoreV1().Nodes().Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (w *tenantWorld) drainHolds(t *testing.T) {
	ctx := t.Context()
	w.create(t, "drain-w0", "w0", dpuv1.ActionDrain)
	hm := w.waitPhase(t, "drain-w0", dpuv1.PhaseDrained)
	n := w.node(t, "w0")
	other, ds, err := workloadPods(ctx, w.cp.Kube, "w0")
	if err != nil {
		t.Fatal(err)
	}
	if !n.Spec.Unschedulable || n.Annotations[constants.MaintenanceCordonAnnotation] != "false" || other != 0 || ds != 1 {
		t.Fatalf("drained: %s app=%d agent=%d; want cordoned by tandem, no app pods, the agent kept", nodeSummary(n), other, ds)
	}
	if !meta.IsStatusConditionTrue(hm.Status.Conditions, dpuv1.ConditionDrained) || hm.Status.DrainedTime == nil || hm.Status.AdmittedTime == nil {
		t.Errorf("status %+v", hm.Status)
	}
	// The hold lasts: replacement pods went elsewhere and nothing returns.
	time.Sleep(2 * time.Second)
	if hm := w.waitPhase(t, "drain-w0", dpuv1.PhaseDrained); !w.node(t, "w0").Spec.Unschedulable {
		t.Fatalf("hold lost: %+v", hm.Status)
	}
	w.delete(t, "drain-w0")
	w.waitReleased(t, "w0", false)
	if got := w.daemons.served("w0"); len(got) != 0 {
		t.Errorf("a Drain request rebooted w0: %v", got)
	}
}

func (w *tenantWorld) personCordonKept(t *testing.T) {
	w.setCordon(t, "w1", true)
	w.create(t, "drain-w1", "w1", dpuv1.ActionDrain)
	w.waitPhase(t, "drain-w1", dpuv1.PhaseDrained)
	if got := w.node(t, "w1").Annotations[constants.MaintenanceCordonAnnotation]; got != "true" {
		t.Fatalf("hold record %q, want true (a person's cordon)", got)
	}
	w.delete(t, "drain-w1")
	w.waitReleased(t, "w1", true)
	w.setCordon(t, "w1", false)
}

func (w *tenantWorld) reboot(t *testing.T) {
	hm := w.create(t, "reboot-w2", "w2", dpuv1.ActionReboot)
	done := w.waitPhase(t, "reboot-w2", dpuv1.PhaseCompleted)
	token := dpu.RebootToken(hm)
	if got := w.daemons.served("w2"); len(got) != 1 || got[0] != token {
		t.Fatalf("reboots served on w2: %v, want exactly [%s]", got, token)
	}
	// Completed is written in the plan that releases the node, after the
	// release: whoever sees Completed finds the node schedulable again.
	n := w.node(t, "w2")
	_, held := n.Annotations[constants.MaintenanceCordonAnnotation]
	if n.Annotations[constants.LastRebootAnnotation] != token || n.Spec.Unschedulable || held {
		t.Fatalf("Completed, but the node is not released: %s", nodeSummary(n))
	}
	if !meta.IsStatusConditionTrue(done.Status.Conditions, dpuv1.ConditionRebooted) || done.Status.CompletedTime == nil ||
		done.Status.RebootRequestedTime == nil || done.Status.RebootToken != token {
		t.Errorf("status %+v", done.Status)
	}
	// A completed request stays completed and reboots nothing more.
	time.Sleep(time.Second)
	if got := w.daemons.served("w2"); len(got) != 1 {
		t.Fatalf("reboots served on w2 after completion: %v", got)
	}
	w.delete(t, "reboot-w2")
}

func (w *tenantWorld) badRequests(t *testing.T) {
	w.create(t, "ghost", "no-such-node", dpuv1.ActionDrain)
	w.create(t, "master", "m0", dpuv1.ActionReboot)
	w.create(t, "dup-a", "w0", dpuv1.ActionDrain)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution; the order must be clear
	w.create(t, "dup-b", "w0", dpuv1.ActionDrain)
	for name, reason := range map[string]string{"ghost": dpuv1.ReasonNodeNotFound, "master": dpuv1.ReasonControlPlane, "dup-b": dpuv1.ReasonDuplicate} {
		hm := w.waitPhase(t, name, dpuv1.PhaseRejected)
		c := meta.FindStatusCondition(hm.Status.Conditions, dpuv1.ConditionAdmitted)
		if c == nil || c.Reason != reason || hm.Status.Message == "" {
			t.Errorf("%s: Admitted condition %+v, message %q; want reason %s", name, c, hm.Status.Message, reason)
		}
	}
	w.waitPhase(t, "dup-a", dpuv1.PhaseDrained)
	if n := w.node(t, "m0"); n.Spec.Unschedulable {
		t.Errorf("control-plane node cordoned: %s", nodeSummary(n))
	}
	for _, n := range []string{"ghost", "master", "dup-a", "dup-b"} {
		w.delete(t, n)
	}
	w.waitReleased(t, "w0", false)
}

func (w *tenantWorld) inOrder(t *testing.T) {
	w.create(t, "first", "w0", dpuv1.ActionDrain)
	time.Sleep(1100 * time.Millisecond)
	w.create(t, "second", "w1", dpuv1.ActionReboot)
	w.waitPhase(t, "first", dpuv1.PhaseDrained)
	second := w.waitPhase(t, "second", dpuv1.PhasePending)
	if c := meta.FindStatusCondition(second.Status.Conditions, dpuv1.ConditionAdmitted); c == nil || c.Reason != dpuv1.ReasonMaxUnavailable {
		t.Fatalf("second waits with %+v, want MaxUnavailable", c)
	}
	if w.node(t, "w1").Spec.Unschedulable {
		t.Fatal("w1 cordoned while w0 takes the pool's only maxUnavailable place")
	}
	w.delete(t, "first")
	w.waitPhase(t, "second", dpuv1.PhaseCompleted)
	if n := w.node(t, "w0"); n.Spec.Unschedulable {
		t.Fatalf("w0 still cordoned: %s", nodeSummary(n))
	}
	if got := w.daemons.served("w1"); len(got) != 1 {
		t.Fatalf("w1 reboots %v", got)
	}
	w.delete(t, "second")
}

func (w *tenantWorld) deleteMidDrain(t *testing.T) {
	ctx := t.Context()
	kube := w.cp.Kube
	// One pod pinned to w0 under a PDB that forbids its eviction.
	if _, err := kube.AppsV1().Deployments(workloadNS).Create(ctx, pinnedDeployment("guarded", "w0", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: workloadNS},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}}},
	}
	if _, err := kube.PolicyV1().PodDisruptionBudgets(workloadNS).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "guarded pod running and its PDB observed", 3*time.Minute, func() (bool, string) {
		p, err := kube.PolicyV1().PodDisruptionBudgets(workloadNS).Get(ctx, "guarded", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Status.CurrentHealthy == 1 && p.Status.ObservedGeneration == p.Generation,
			fmt.Sprintf("healthy=%d allowed=%d", p.Status.CurrentHealthy, p.Status.DisruptionsAllowed)
	})
	w.create(t, "stuck", "w0", dpuv1.ActionDrain)
	waitFor(t, "the drain refused by the PDB", 2*time.Minute, func() (bool, string) {
		hm, err := w.hm.Get(ctx, "stuck")
		if err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(hm.Status.Conditions, dpuv1.ConditionDrained)
		return hm.Status.Phase == dpuv1.PhaseDraining && c != nil && c.Reason == dpuv1.ReasonDrainFailing,
			fmt.Sprintf("phase=%s message=%q", hm.Status.Phase, hm.Status.Message)
	})
	if !w.node(t, "w0").Spec.Unschedulable {
		t.Fatal("w0 not cordoned while draining")
	}
	w.delete(t, "stuck")
	w.waitReleased(t, "w0", false)
	if other, _, _ := workloadPods(ctx, kube, "w0"); other == 0 {
		t.Error("the guarded pod was evicted despite its PDB")
	}
}
