package daemon

import (
	"context"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	opv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// postConfigAction carries out one node disruption policy action of a
// rebootless update through the host's systemd, then records it done. As in
// the MCO (performPostConfigChangeNodeDisruptionAction), Special reloads
// crio, None and Drain do nothing here (the drain came before the write),
// and a failed action fails the step: the node goes Degraded and the step is
// retried.
func (d *Daemon) postConfigAction(ctx context.Context, ob *observation, a Action) error {
	r := ob.Record
	if r == nil || a.Index >= len(r.PostActions) {
		return fmt.Errorf("no post-config action %d recorded", a.Index)
	}
	act := r.PostActions[a.Index]
	var err error
	switch act.Type {
	case opv1.ReloadStatusAction:
		if act.Reload == nil {
			return fmt.Errorf("Reload action without a service name")
		}
		err = d.opts.Host.ReloadUnit(ctx, string(act.Reload.ServiceName))
	case opv1.RestartStatusAction:
		if act.Restart == nil {
			return fmt.Errorf("Restart action without a service name")
		}
		err = d.opts.Host.RestartUnit(ctx, string(act.Restart.ServiceName))
	case opv1.SpecialStatusAction:
		err = d.opts.Host.ReloadUnit(ctx, CRIOServiceName)
	case opv1.DaemonReloadStatusAction:
		err = d.opts.Host.DaemonReload(ctx)
	case opv1.NoneStatusAction, opv1.DrainStatusAction:
	default:
		return fmt.Errorf("unsupported post-config action %q", act.Type)
	}
	if err != nil {
		return fmt.Errorf("%s for %s: %w", describeAction(act), r.Config, err)
	}
	klog.FromContext(ctx).Info("post-config action done", "config", r.Config, "action", describeAction(act))
	r.ActionsDone, r.UpdatedAt = a.Index+1, time.Now()
	if err := d.store.Save(r); err != nil {
		return err
	}
	msg := "Changes do not require a reboot"
	if act.Type != opv1.NoneStatusAction {
		msg = fmt.Sprintf("Node has carried out %s; no reboot needed", describeAction(act))
	}
	d.conditions(ctx, []metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionTrue, string(act.Type), "%s", msg)})
	return nil
}

// observeDisruption fills the change from currentConfig to desiredConfig
// and the cluster's node disruption policies.
func (d *Daemon) observeDisruption(ctx context.Context, ob *observation) error {
	n := ob.Node
	if n.Desired == "" || n.Desired == n.Current {
		return nil
	}
	mcop, err := d.opts.Cluster.MachineConfiguration(ctx)
	if err != nil {
		return err
	}
	ob.Policies = ClusterPolicies(mcop)
	cur, want := ob.configs[n.Current], ob.configs[n.Desired]
	if cur == nil || want == nil || cur.ign == nil || want.ign == nil {
		return nil
	}
	// Images compare normalised, as the daemon compares them to rpm-ostree's.
	oldMC, newMC := cur.mc.DeepCopy(), want.mc.DeepCopy()
	oldMC.Spec.OSImageURL, newMC.Spec.OSImageURL = NormalizeImage(oldMC.Spec.OSImageURL), NormalizeImage(newMC.Spec.OSImageURL)
	diff := mcfg.DiffConfigs(oldMC, newMC, cur.ign, want.ign)
	ob.Diff = &diff
	return nil
}
