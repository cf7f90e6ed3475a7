//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

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
		pullSecretMC(`{"auths":{"quay.io":{"auth":"b2xkOnNlY3JldA=="}}}`),
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

	// The way back to the stock MCO.
	s.stopController()
	for _, name := range s.names {
		sim := s.sims[name]
		if err := sim.Stop(); err != nil {
			t.Fatal(err)
		}
		var odc mcfgv1.MachineConfig
		if err := json.Unmarshal([]byte(s.hostFile(name, "/etc/machine-config-daemon/currentconfig")), &odc); err != nil || odc.Name != rendered {
			t.Errorf("node %s: on-disk currentconfig names %q (%v), a stock MCD would take it over the annotation %s", name, odc.Name, err, rendered)
		}
		if st, _, err := sim.Staged(); err != nil || st != nil {
			t.Errorf("node %s: staged deployment left for a stock MCD: %v %v", name, st, err)
		}
		n := s.node(name)
		extra := tandemAnnotations(n)
		if len(extra) > 0 {
			t.Logf("node %s: tandem-only annotations %v (a stock MCD ignores them; removed below as the docs say)", name, extra)
		}
	}
}
