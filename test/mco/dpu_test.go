//go:build mco

package mco

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
	"github.com/tandem-mco/tandem/test/osimage"
)

// The DPU pair of the MCO world's upgrade (docs/dpu.md): worker-0 of the
// MCO world (the tenant cluster) carries a DPU, dpu-0, the one node of a
// second cluster (the infra cluster) run by tandem's standalone
// controller. Both clusters get a new OS image at the same moment; tandem
// is to drain the host once, reboot the DPU only while its host is
// drained, and reboot the host once after it, applying the host's own
// update with the same reboot.
const (
	dpuHost = "worker-0"
	dpuNode = "dpu-0"
	// settingsConfigMap is tandem's settings under the MCO's operator
	// (docs/controller-settings.md).
	settingsConfigMap = "machine-config-controller-tandem"
)

// dpuPair is the infra cluster beside the MCO world and the record of
// what a person would count during the upgrade: the host's cordons (from
// the upgrade monitor), both machines' reboots, the host's
// schedulability at the moment the DPU goes down, and pools going paused
// in either cluster.
type dpuPair struct {
	tenant *mcoworld.World
	infra  *framework.ControlPlane
	kwok   *framework.Kwok
	ctrl   *framework.Process
	dpu    *framework.SimNode
	pull   string // the registry's pull secret
	stop   context.CancelFunc

	mu               sync.Mutex
	counting         bool
	dpuReboots       int
	whileDrained     int
	whileSchedulable []string // when the DPU went down under a schedulable host
	pauses           *framework.PoolPauses
	timeline         []string // the DPU's shutdowns
}

// enableDPUTenant is the admin's step on the tenant cluster (docs/dpu.md
// "Flags", docs/controller-settings.md): tandem's settings ConfigMap with
// dpu-tenant; the controller restarts to apply it. It waits (bounded) for
// the controller's TandemSettingsApplied event on the ConfigMap, what the
// admin would look for in `oc get events`.
func enableDPUTenant(ctx context.Context, t *testing.T, w *mcoworld.World, settings map[string]string) {
	t.Helper()
	cm, err := w.CP.Kube.CoreV1().ConfigMaps(mcoworld.Namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: mcoworld.Namespace, Name: settingsConfigMap},
		Data:       settings,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = framework.Await(ctx, "tandem's controller applying its settings ConfigMap", 3*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		evs, err := w.CP.Kube.CoreV1().Events(mcoworld.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + settingsConfigMap})
		if err != nil {
			return false, err.Error(), nil
		}
		var seen []string
		for _, ev := range evs.Items {
			if ev.InvolvedObject.UID != cm.UID {
				continue
			}
			if ev.Reason == "TandemSettingsApplied" {
				return true, "", nil
			}
			seen = append(seen, ev.Reason+": "+ev.Message)
		}
		return false, fmt.Sprintf("events on the ConfigMap: %v; controller processes started: %d", seen, w.Started("controller")), nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, w.Diagnose(ctx))
	}
}

// startDPUPair starts the infra cluster as test/world has it: its own
// control plane with kwok, the dpu-worker pool on the world's first OS
// image, dpu-0 paired with worker-0, tandem's standalone controller given
// the MCO world as its tenant through the narrow infra identity, and dpu-0
// as a simulated node running tandem's daemon.
func startDPUPair(ctx context.Context, t *testing.T, dir string, w *mcoworld.World, reg *osimage.Registry, image string) *dpuPair {
	t.Helper()
	p := &dpuPair{tenant: w, pull: string(reg.AuthJSON())}
	t.Cleanup(p.close)
	var err error
	if p.infra, err = framework.StartControlPlane(ctx, framework.ControlPlaneOptions{Name: "infra", Dir: filepath.Join(dir, "infra"), KubeControllers: true}); err != nil {
		t.Fatal(err)
	}
	if p.kwok, err = framework.StartKwok(ctx, p.infra); err != nil {
		t.Fatal(err)
	}
	pool := constants.DPUWorkerPool
	if _, err := p.infra.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, framework.MachineConfigPool(pool, 1, true), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.applyConfig(ctx, "00-"+pool+"-base", image); err != nil {
		t.Fatal(err)
	}
	n := framework.KwokNode(dpuNode, map[string]string{constants.NodeRoleLabelPrefix + pool: ""})
	n.Annotations[constants.TenantNodeAnnotation] = dpuHost
	if _, err := p.infra.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := framework.WaitForNodesReady(ctx, p.infra.Kube, dpuNode); err != nil {
		t.Fatal(err)
	}
	bin, err := framework.BuildControllerBinary(ctx, filepath.Join(dir, "infra-bin"))
	if err != nil {
		t.Fatal(err)
	}
	// The infra controller renders the pool's first config; the node is
	// installed on it (what an installer leaves), then the pool unpaused.
	tenantKubeconfig, err := w.CP.AddDPUInfraIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.ctrl, err = framework.StartProcess("infra machine-config-controller", bin, filepath.Join(dir, "infra", "machine-config-controller.log"), nil,
		"start", "--leader-elect=false", "--metrics-listen-address=", "--workers=4", "-v=2",
		"--kubeconfig="+p.infra.KubeconfigPath, "--dpu-tenant-kubeconfig="+tenantKubeconfig); err != nil {
		t.Fatal(err)
	}
	rendered, err := p.renderedConfig(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.infra.Kube.CoreV1().Nodes().Patch(ctx, dpuNode, types.MergePatchType, framework.BootstrapNodePatch(rendered), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.infra.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, pool, types.MergePatchType, []byte(framework.UnpausePatch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	daemon, rpmOstree := w.SimNodeBinaries()
	files := reg.TrustFiles()
	files[framework.KubeletPullSecret] = p.pull
	if p.dpu, err = framework.StartSimNode(ctx, framework.SimNodeOptions{
		Name: dpuNode, Dir: filepath.Join(dir, "infra", "nodes", dpuNode), Kubeconfig: p.infra.KubeconfigPath,
		DaemonBinary: daemon, RPMOstreeBinary: rpmOstree, InitialImage: image,
		Files: files, FileModes: map[string]os.FileMode{framework.KubeletPullSecret: 0o600},
		OnShutdown: p.dpuShutdown, OnBoot: p.dpuBoot,
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// applyConfig creates a dpu-worker MachineConfig: the OS image and the
// pull secret (the file every rendered config has, as the MCO's templates
// lay it), so that the DPU's daemon pulls from the world's registry.
func (p *dpuPair) applyConfig(ctx context.Context, name, image string) error {
	mc, err := framework.MachineConfig(name, constants.DPUWorkerPool, image,
		[]framework.IgnitionFile{{Path: framework.KubeletPullSecret, Contents: p.pull, Mode: 0o600}})
	if err != nil {
		return err
	}
	if _, err := p.infra.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating MachineConfig %s in the infra cluster: %w", name, err)
	}
	return nil
}

// renderedConfig waits (bounded) for the dpu-worker pool to target a
// rendered config other than not.
func (p *dpuPair) renderedConfig(ctx context.Context, not string) (string, error) {
	var name string
	err := framework.Await(ctx, "the infra pool's rendered config", 3*time.Minute, time.Second, func(ctx context.Context) (bool, string, error) {
		pool, err := p.infra.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.DPUWorkerPool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		name = pool.Spec.Configuration.Name
		return name != "" && name != not, "pool targets " + name, nil
	})
	return name, err
}

// publishUpdate is the infra admin's update: a new OS image for
// dpu-worker, published the moment the tenant's release upgrade starts.
// Nothing is paused or ordered: coalescing is the product's job.
func (p *dpuPair) publishUpdate(ctx context.Context, image string) error {
	return p.applyConfig(ctx, "99-"+constants.DPUWorkerPool+"-update", image)
}

// count starts the record: a watch of both clusters' pools (pauses). The
// host's cordons and reboots are the upgrade monitor's (its watch of the
// tenant's Nodes and the nodes' boots).
func (p *dpuPair) count(ctx context.Context, t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	p.stop = cancel
	var err error
	if p.pauses, err = framework.WatchPoolPauses(ctx, p.tenant.CP.MCO, p.infra.MCO); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.counting = true
	p.mu.Unlock()
}

// dpuShutdown reads, as the DPU goes down, whether its host is cordoned.
func (p *dpuPair) dpuShutdown(cause string) {
	p.mu.Lock()
	counting := p.counting
	p.mu.Unlock()
	if !counting {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	host, err := p.tenant.CP.Kube.CoreV1().Nodes().Get(ctx, dpuHost, metav1.GetOptions{})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timeline = append(p.timeline, fmt.Sprintf("%s %s went down (%s)", time.Now().Format("15:04:05.000"), dpuNode, cause))
	switch {
	case err != nil:
		p.whileSchedulable = append(p.whileSchedulable, fmt.Sprintf("%s went down (%s) and %s could not be read: %v", dpuNode, cause, dpuHost, err))
	case host.Spec.Unschedulable:
		p.whileDrained++
	default:
		p.whileSchedulable = append(p.whileSchedulable, fmt.Sprintf("%s went down (%s) at %s while %s was schedulable",
			dpuNode, cause, time.Now().Format("15:04:05.000"), dpuHost))
	}
}

func (p *dpuPair) dpuBoot(ev framework.BootEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.counting && ev.Cause != "start" {
		p.dpuReboots++
	}
}

// judge waits (bounded) for the DPU to run its new config and its host to
// be schedulable again, then checks the counts: one drain and one reboot
// of the host, one reboot of the DPU, under a drained host; and prints
// them. The host's drains and reboots are counted by the upgrade's
// monitor, read once the DPU's update is done.
func (p *dpuPair) judge(ctx context.Context, t *testing.T, hostDrains, hostReboots func() int, before string) {
	t.Helper()
	target, err := p.renderedConfig(ctx, before)
	if err == nil {
		// A failed read keeps the last state seen (the bound's last read
		// fails on the deadline itself).
		var last string
		err = framework.Await(ctx, dpuNode+" updated and "+dpuHost+" released", 5*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
			n, err := p.infra.Kube.CoreV1().Nodes().Get(ctx, dpuNode, metav1.GetOptions{})
			if err != nil {
				return false, last, nil
			}
			h, err := p.tenant.CP.Kube.CoreV1().Nodes().Get(ctx, dpuHost, metav1.GetOptions{})
			if err != nil {
				return false, last, nil
			}
			a := n.Annotations
			last = fmt.Sprintf("%s current=%s desired=%s state=%s (target %s); %s unschedulable=%t; %d DPU reboots; infra pool: %s",
				dpuNode, a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation], a[constants.StateAnnotation], target,
				dpuHost, h.Spec.Unschedulable, p.reboots(), p.poolConditions(ctx))
			done := a[constants.CurrentConfigAnnotation] == target && a[constants.DesiredConfigAnnotation] == target &&
				a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone && !h.Spec.Unschedulable
			return done, last, nil
		})
	}
	if err != nil {
		t.Errorf("the DPU's update: %v (logs: %s)", err, p.logs())
	}
	p.stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	drains, reboots := hostDrains(), hostReboots()
	t.Logf("DPU pair timeline:\n%s", strings.Join(p.timeline, "\n"))
	if drains != 1 {
		t.Errorf("%s was cordoned %d times during the upgrade, want 1 (one drain for its own update and its DPU's)", dpuHost, drains)
	}
	if reboots != 1 {
		t.Errorf("%s rebooted %d times during the upgrade, want 1 (its DPU's reboot and its own update coalesced)", dpuHost, reboots)
	}
	if p.dpuReboots != 1 {
		t.Errorf("%s rebooted %d times during the upgrade, want 1", dpuNode, p.dpuReboots)
	}
	for _, v := range p.whileSchedulable {
		t.Error(v)
	}
	pauses := p.pauses.Count()
	if pauses != 0 {
		t.Errorf("%d pools went paused during the upgrade: nothing may pause them", pauses)
	}
	fmt.Printf("mco-upgrade-dpu: hosts=1 host_drains=%d host_reboots=%d dpu_reboots=%d dpu_rebooted_while_host_drained=%d harness_pauses=%d\n",
		drains, reboots, p.dpuReboots, p.whileDrained, pauses)
}

func (p *dpuPair) reboots() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dpuReboots
}

// close stops the DPU, its controller, kwok and the infra control plane.
func (p *dpuPair) close() {
	if p.stop != nil {
		p.stop()
	}
	if p.dpu != nil {
		_ = p.dpu.Stop()
	}
	if p.ctrl != nil {
		_ = p.ctrl.Stop(10 * time.Second)
	}
	if p.kwok != nil {
		_ = p.kwok.Stop()
	}
	if p.infra != nil {
		_ = p.infra.Stop()
	}
}

// logs names the infra side's logs, for a failure's message.
func (p *dpuPair) logs() string {
	return p.ctrl.LogPath() + ", " + filepath.Join(p.dpu.Dir, "daemon.log")
}

// poolConditions are the infra pool's true conditions (what holds the
// DPU's update, for a failure's message).
func (p *dpuPair) poolConditions(ctx context.Context) string {
	pool, err := p.infra.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.DPUWorkerPool, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, c := range pool.Status.Conditions {
		if c.Status == corev1.ConditionTrue {
			out = append(out, fmt.Sprintf("%s (%s: %s)", c.Type, c.Reason, c.Message))
		}
	}
	return strings.Join(out, "; ")
}
