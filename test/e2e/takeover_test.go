//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/render"
)

// TestTakeoverFromTheMCO: tandem's daemons and controller start on the state
// a stock MCO leaves. Nothing may move: no reboot, no drain, no new rendered
// name. Then the way back: what a stock MCD finds afterwards agrees with the
// annotations (the on-disk currentconfig, no staged deployment), and the
// annotations only tandem writes are listed and removed as
// docs/adopting-tandem.md says.
func TestTakeoverFromTheMCO(t *testing.T) {
	s := newAdoptScene(t, 3)
	rendered := s.installMCOState([]*mcfgv1.MachineConfig{
		baseMC(baseRegistries),
		pullSecretMC(s.pullSecret("b2xkOnNlY3JldA==")),
		sshKeyMC("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOld admin@example.com"),
	})
	before := s.renderedNames()
	s.startTandem()

	// Settled: the render controller rendered with the ControllerConfig, the
	// node controller counted every node updated, every daemon is idle.
	s.waitFor("the render controller to render with the ControllerConfig", sceneWait, func() (bool, string) {
		p := s.pool()
		c := render.GetCondition(&p.Status, constants.PoolControllerConfigCondition)
		rd := render.GetCondition(&p.Status, mcfgv1.MachineConfigPoolRenderDegraded)
		return c != nil && c.Status == corev1.ConditionTrue && rd != nil && rd.Status == corev1.ConditionFalse,
			fmt.Sprintf("conditions %+v", p.Status.Conditions)
	})
	s.waitFor("every node counted updated", sceneWait, func() (bool, string) {
		p := s.pool()
		return p.Status.UpdatedMachineCount == int32(len(s.names)) && p.Status.MachineCount == int32(len(s.names)),
			fmt.Sprintf("machines=%d updated=%d", p.Status.MachineCount, p.Status.UpdatedMachineCount)
	})
	s.waitFor("every daemon idle on "+rendered, sceneWait, func() (bool, string) { return s.daemonsIdleOn(rendered) })

	after := s.renderedNames()
	renamed := 0
	for _, n := range after {
		if !slices.Contains(before, n) {
			renamed++
			t.Errorf("tandem rendered %s, a name the MCO did not make", n)
		}
	}
	if p := s.pool(); p.Spec.Configuration.Name != rendered {
		renamed++
		t.Errorf("pool now targets %s, want the MCO's %s", p.Spec.Configuration.Name, rendered)
	} else if len(p.Status.CertExpirys) != 1 || p.Status.CertExpirys[0].Bundle != "KubeAPIServerServingCAData" {
		t.Errorf("certExpirys from the ControllerConfig: %+v", p.Status.CertExpirys)
	}
	reboots, drains := s.reboots(), s.watch.count()
	fmt.Printf("takeover: nodes=%d reboots=%d drains=%d renamed=%d\n", len(s.names), reboots, drains, renamed)
	if reboots != 0 || drains != 0 {
		t.Errorf("takeover disrupted nodes: reboots=%d drains=%d", reboots, drains)
	}
	for _, name := range s.names {
		n := s.node(name)
		a := n.Annotations
		if a[constants.CurrentConfigAnnotation] != rendered || a[constants.DesiredConfigAnnotation] != rendered ||
			a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone || n.Spec.Unschedulable {
			t.Errorf("node %s moved: %v unschedulable=%v", name, a, n.Spec.Unschedulable)
		}
	}

	// The way back to the stock MCO, as docs/adopting-tandem.md says. First
	// a state worth cleaning: an OS update staged (finalization-locked) on
	// nodes that were not granted it yet.
	osMC := sceneMC("10-worker-os", map[string]any{})
	osMC.Spec.OSImageURL = s.newImage(2)
	if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(s.ctx, osMC, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var staged []string
	s.waitFor("the OS update staged ahead of the grant", sceneWait, func() (bool, string) {
		staged = nil
		target := s.pool().Spec.Configuration.Name
		for _, name := range s.names {
			a := s.node(name).Annotations
			if a[constants.StagedConfigAnnotation] == target && a[constants.DesiredConfigAnnotation] != target {
				staged = append(staged, name)
			}
		}
		return target != rendered && len(staged) > 0, fmt.Sprintf("target %s, staged and ungranted %v", target, staged)
	})
	// 1. Pause the pool. 2. Remove the stage requests; tandem's daemons drop
	// what they staged.
	if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Patch(s.ctx, scenePool, types.MergePatchType,
		[]byte(`{"spec":{"paused":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	s.waitFor("granted nodes done after the pause", sceneWait, func() (bool, string) {
		for _, name := range s.names {
			a := s.node(name).Annotations
			if a[constants.CurrentConfigAnnotation] != a[constants.DesiredConfigAnnotation] || a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
				return false, fmt.Sprintf("node %s current=%s desired=%s state=%s", name, a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation], a[constants.StateAnnotation])
			}
		}
		return true, ""
	})
	lockedBefore := 0
	for _, name := range s.names {
		if st, locked, err := s.sims[name].Staged(); err == nil && st != nil && locked {
			lockedBefore++
		}
	}
	if lockedBefore == 0 {
		t.Fatalf("no node holds a locked staged deployment before the way back; nothing to check (staged %v)", staged)
	}
	remove := []byte(`{"metadata":{"annotations":{"` + constants.StageConfigAnnotation + `":null,"` + constants.StagedConfigAnnotation + `":null}}}`)
	for _, name := range s.names {
		if _, err := s.cp.Kube.CoreV1().Nodes().Patch(s.ctx, name, types.MergePatchType, remove, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s.waitFor("tandem's daemons to drop the staged deployments", sceneWait, func() (bool, string) {
		for _, name := range s.names {
			if st, locked, err := s.sims[name].Staged(); err != nil || st != nil {
				return false, fmt.Sprintf("node %s staged=%v locked=%v err=%v", name, st, locked, err)
			}
		}
		return true, ""
	})
	// 3. Remove tandem; what a stock MCD finds agrees with the annotations.
	s.stopController()
	for _, name := range s.names {
		sim := s.sims[name]
		if err := sim.Stop(); err != nil {
			t.Fatal(err)
		}
		n := s.node(name)
		cur := n.Annotations[constants.CurrentConfigAnnotation]
		var odc mcfgv1.MachineConfig
		if err := json.Unmarshal([]byte(s.hostFile(name, "/etc/machine-config-daemon/currentconfig")), &odc); err != nil || odc.Name != cur {
			t.Errorf("node %s: on-disk currentconfig names %q (%v), the annotation %s: a stock MCD would take the disk's", name, odc.Name, err, cur)
		}
		if st, _, err := sim.Staged(); err != nil || st != nil {
			t.Errorf("node %s: staged deployment left for a stock MCD: %v %v", name, st, err)
		}
		// 4. tandem's other annotations: a stock MCD ignores them; listed here.
		if extra := tandemAnnotations(n); len(extra) > 0 {
			t.Logf("node %s: tandem-only annotations left %v (ignored by a stock MCD; docs/adopting-tandem.md removes them)", name, extra)
		}
	}
	fmt.Printf("way-back: nodes=%d locked_staged_before=%d staged_after=0\n", len(s.names), lockedBefore)
}
