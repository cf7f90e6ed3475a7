package daemon

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// ConditionStageFailed is the MachineConfigNode condition of a background
// stage that fails. It is tandem's own type: the MCO's conditions would
// read a failed pull as a failed update (NodeDegraded), and the node is
// not degraded.
const ConditionStageFailed = "StageFailed"

// maxReasonLen bounds an error written to an annotation or condition.
const maxReasonLen = 1024

// reportStageFailure reports a harmless failed stage (StageFailureHarmless):
// the stageFailure annotation (first failure and attempts carried over
// from the last report of the same config), the MachineConfigNode
// condition, a metric and, on the first attempt, an event. The node's
// state is left as it was; the loop retries with its backoff.
func (d *Daemon) reportStageFailure(ctx context.Context, ob *observation, a Action, err error) {
	log := klog.FromContext(ctx)
	reason := err.Error()
	if len(reason) > maxReasonLen {
		reason = reason[:maxReasonLen] + "..."
	}
	f := constants.StageFailure{Config: a.Config, Since: time.Now().UTC().Truncate(time.Second), Reason: reason, Attempts: 1}
	if prev, ok, perr := constants.ParseStageFailure(ob.node.Annotations[constants.StageFailureAnnotation]); perr == nil && ok && prev.Config == a.Config {
		f.Since, f.Attempts = prev.Since, prev.Attempts+1
	}
	log.Info("background stage failed; the node stays in service and the stage is retried",
		"config", a.Config, "image", a.Image, "attempts", f.Attempts, "since", f.Since, "reason", reason)
	if perr := d.opts.Cluster.SetAnnotations(ctx, map[string]string{constants.StageFailureAnnotation: f.Encode()}, nil); perr != nil {
		log.Error(perr, "reporting the stage failure")
	}
	d.opts.Metrics.StageFailingSince.Set(float64(f.Since.Unix()))
	msg := fmt.Sprintf("Staging %s for %s failed (attempt %d, failing since %s): %s", a.Image, a.Config, f.Attempts, f.Since.Format(time.RFC3339), reason)
	d.conditions(ctx, []metav1.Condition{{Type: ConditionStageFailed, Status: metav1.ConditionTrue, Reason: "StageFailed", Message: msg}})
	if f.Attempts == 1 {
		// One event per failing episode: the retries go to the annotation.
		if eerr := d.opts.Cluster.Event(ctx, constants.MCONamespace, "Warning", "StageFailed", msg); eerr != nil {
			log.Error(eerr, "recording the StageFailed event")
		}
	}
	d.flushConditionsWith(ctx, ob.node)
}

// stageRecovered reports that a failing stage no longer fails: it succeeded,
// or its config is no longer asked for (why).
func (d *Daemon) stageRecovered(ctx context.Context, ob *observation, why string) {
	d.opts.Metrics.StageFailingSince.Set(0)
	msg := fmt.Sprintf("The stage of %s no longer fails: %s", ob.Node.StageFailure, why)
	d.conditions(ctx, []metav1.Condition{{Type: ConditionStageFailed, Status: metav1.ConditionFalse, Reason: "StageRecovered", Message: msg}})
	if err := d.opts.Cluster.Event(ctx, constants.MCONamespace, "Normal", "StageRecovered", msg); err != nil {
		klog.FromContext(ctx).Error(err, "recording the StageRecovered event")
	}
}
