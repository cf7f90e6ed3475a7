//go:build integration

package dpu_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
)

// TestExternalCoordinator: in external mode the infra side writes nothing in
// the tenant cluster; the test plays the coordinator of docs/dpu.md with the
// tandem-dpu-infra identity: Drain the host, wait for Drained (tandem's
// infra planner grants the DPU only then), wait for the DPU to be back on
// its new config, Reboot the host, wait for Completed, delete both.
func TestExternalCoordinator(t *testing.T) {
	d := newDuo(t, dpu.ModeExternal)
	ctx := t.Context()
	setTarget(t, d.infra, constants.DPUWorkerPool, infraB)

	for _, dpuNode := range []string{"dpu-0", "dpu-1"} {
		host := pairs[dpuNode]
		drainName, rebootName := "coordinator-drain-"+host, "coordinator-reboot-"+host
		// Nothing moves before the coordinator asks.
		d.wait(t, dpuNode+" held for an external drain", 2*time.Minute, func() (bool, string) {
			pool, err := d.infra.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.DPUWorkerPool, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			c := poolCondition(pool, constants.PoolDisruptionHeldCondition)
			return c != nil && c.Status == "True", fmt.Sprintf("%+v", c)
		})
		if list, err := d.tenantHM.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
			t.Fatalf("the infra side wrote requests in external mode: %v %v", list, err)
		}
		if r := reboots(d.nodes[dpuNode]); len(r) != 0 {
			t.Fatalf("%s rebooted before its host was drained: %+v", dpuNode, r)
		}

		d.coordinate(t, drainName, host, dpuv1.ActionDrain)
		d.waitRolledOut(t, d.infra, infraB, dpuNode)
		d.coordinate(t, rebootName, host, dpuv1.ActionReboot)
		d.wait(t, rebootName+" Completed", 5*time.Minute, func() (bool, string) {
			hm, err := d.infraIdentity.Get(ctx, rebootName)
			if err != nil {
				return false, err.Error()
			}
			return hm.Status.Phase == dpuv1.PhaseCompleted, fmt.Sprintf("%s: %s", hm.Status.Phase, hm.Status.Message)
		})
		for _, name := range []string{rebootName, drainName} {
			if err := d.infraIdentity.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	d.waitDPUSideIdle(t)
	d.checkViolations(t)
	for dpuNode, host := range pairs {
		dr, hr := reboots(d.nodes[dpuNode]), reboots(d.nodes[host])
		if len(dr) != 1 || len(hr) != 1 || !hr[0].Time.After(dr[0].Time) {
			t.Errorf("%s reboots %+v, %s reboots %+v; want one each, the host's after its DPU's", dpuNode, dr, host, hr)
		}
	}
}

// coordinate creates a request as the coordinator would; a Drain is waited
// for until Drained.
func (d *duo) coordinate(t *testing.T, name, host string, action dpuv1.HostMaintenanceAction) {
	t.Helper()
	_, err := d.infraIdentity.Create(t.Context(), &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: host, Action: action, Requester: "external-coordinator"}})
	if err != nil {
		t.Fatal(err)
	}
	if action != dpuv1.ActionDrain {
		return
	}
	d.wait(t, name+" Drained", 5*time.Minute, func() (bool, string) {
		hm, err := d.infraIdentity.Get(t.Context(), name)
		if err != nil {
			return false, err.Error()
		}
		return hm.Status.Phase == dpuv1.PhaseDrained, fmt.Sprintf("%s: %s", hm.Status.Phase, hm.Status.Message)
	})
}
