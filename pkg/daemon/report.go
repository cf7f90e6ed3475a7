package daemon

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// The MachineConfigNode conditions are for people and dashboards; the node
// annotations are the protocol. A step's conditions are queued and written
// together, in one status update: when the daemon has waited reportDelay
// since its last action (for the controller, the drain controller, its
// resync), after a failed step, and before the machine goes down (a
// finalize or reboot). A burst of
// steps then costs one write instead of one per step, which at a thousand
// nodes is thousands of writes per rollout (make bench-scale). The
// conditions of a step show up on the MachineConfigNode shortly after the
// annotation the step wrote, not before it.

// pendingConditions holds queued conditions, the latest of each type.
type pendingConditions struct {
	conds []metav1.Condition
}

func (p *pendingConditions) add(cs []metav1.Condition) {
	for _, c := range cs {
		replaced := false
		for i := range p.conds {
			if p.conds[i].Type == c.Type {
				p.conds[i], replaced = c, true
				break
			}
		}
		if !replaced {
			p.conds = append(p.conds, c)
		}
	}
}

// conditions queues MachineConfigNode conditions for the next flush.
func (d *Daemon) conditions(_ context.Context, conds []metav1.Condition) {
	d.pending.add(conds)
}

// flushConditions writes the queued conditions (best effort: on failure
// they stay queued for the next flush).
func (d *Daemon) flushConditions(ctx context.Context) { d.flushConditionsWith(ctx, nil) }

// flushConditionsWith flushes, using fallback as the node when the node
// cannot be read.
func (d *Daemon) flushConditionsWith(ctx context.Context, fallback *corev1.Node) {
	if len(d.pending.conds) == 0 {
		return
	}
	node, err := d.opts.Cluster.Node(ctx)
	if err != nil {
		if fallback == nil {
			klog.FromContext(ctx).Error(err, "updating MachineConfigNode conditions")
			return
		}
		node = fallback
	}
	if err := d.opts.Cluster.ReportConditions(ctx, node, d.pending.conds); err != nil {
		klog.FromContext(ctx).Error(err, "updating MachineConfigNode conditions")
		return
	}
	d.pending.conds = nil
}

// flushOnExit writes what is queued when the daemon stops (SIGTERM), with a
// short bound of its own: the context that ended cannot carry the request.
func (d *Daemon) flushOnExit(ctx context.Context) {
	if len(d.pending.conds) == 0 {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	d.flushConditions(fctx)
}

// reportAtStart brings the node's MachineConfigNode up to date when the
// daemon starts: created when missing (as the MCO's operator creates one for
// every node, sync.go syncMachineConfigNodes, so `oc get machineconfignodes`
// lists every node), every condition present (the operator's creates it
// without any, and the MCO's node controller stops reading a pool's
// MachineConfigNodes at one without conditions, status.go calculateStatus),
// and Updated and configVersion as the node is (the MCO's daemon writes
// Updated=True at its first sync of a settled node). Best effort: the first
// report writes it too. A status that is already right is not written.
func (d *Daemon) reportAtStart(ctx context.Context) {
	node, err := d.opts.Cluster.Node(ctx)
	if err == nil {
		err = d.opts.Cluster.ReportConditions(ctx, node, nil)
	}
	if err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "updating the MachineConfigNode")
	}
}
