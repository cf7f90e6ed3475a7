package world

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	nodectl "github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
)

// StageFailureOptions describe an update of one tenant pool published
// while the registry refuses every pull.
type StageFailureOptions struct {
	// Pool is the tenant pool; default worker.
	Pool string
	// Timeout bounds each wait: for every node's stage to fail, and for
	// the pool to finish once pulls work again; default 10 minutes.
	Timeout time.Duration
	// Settle is how long the failing pool is watched once every stage has
	// failed; default 20 s.
	Settle time.Duration
}

// StageFailureResult is what the world saw while every stage failed.
type StageFailureResult struct {
	Target string
	// Nodes in the pool; FailedStages the ones that reported the target's
	// stage failing (the stageFailure annotation).
	Nodes, FailedStages int
	// MaxUnavailable is the most pool nodes seen out of service at once
	// (cordoned, asked to drain, Working, Degraded or Unreconcilable).
	MaxUnavailable int
	// UnavailableSeen names them, at that moment.
	UnavailableSeen []string
	// GrantsKept are the nodes still granted the target, with its stage
	// failing, at the end of the settle.
	GrantsKept []string
	// PoolReason is the pool's StagesFailed condition message.
	PoolReason string
	// Recovered: the pool finished the update once pulls worked again.
	Recovered time.Duration
}

// outOfService tells whether a node is unavailable as the MCO counts it
// (getUnavailableMachines: not done with its update, or unschedulable),
// judged from the node's annotations and spec alone.
func outOfService(n *corev1.Node, target string) bool {
	a := n.Annotations
	switch a[constants.StateAnnotation] {
	case constants.MachineConfigDaemonStateWorking, constants.MachineConfigDaemonStateDegraded, constants.MachineConfigDaemonStateUnreconcilable:
		return true
	}
	return n.Spec.Unschedulable || a[constants.DesiredDrainAnnotation] == constants.DrainRequest(target)
}

// StageFailure publishes an OS update to a tenant pool while the registry
// refuses every pull, and watches: every node's stage fails, and none of
// them may leave service or keep a grant it cannot stage. Then pulls work
// again and the pool must finish by itself. The harness only makes the
// outage, publishes and watches.
func (w *World) StageFailure(ctx context.Context, o StageFailureOptions) (*StageFailureResult, error) {
	if o.Pool == "" {
		o.Pool = constants.WorkerPool
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Settle == 0 {
		o.Settle = 20 * time.Second
	}
	c := w.Tenant
	img, err := osimage.Synthesize(ctx, osimage.SynthOptions{
		Registry: w.Registry, Repo: "rhcos", Version: len(w.Images) + 1, Seed: 503,
		SizeBytes: w.Opts.ImageBytes, WorkDir: w.path("synth"),
	})
	if err != nil {
		return nil, fmt.Errorf("synthesizing the update's OS image: %w", err)
	}
	before, err := renderedConfig(ctx, c, o.Pool, "")
	if err != nil {
		return nil, err
	}
	restore := w.Registry.RefusePulls()
	defer restore()
	w.Opts.Logf("world: the registry refuses every pull; publishing %s to pool %s", img, o.Pool)
	if err := w.applyConfig(ctx, c, "99-"+o.Pool+"-update", o.Pool, img, []framework.IgnitionFile{{Path: UpdateFile, Contents: "tandem update during a registry outage\n"}}); err != nil {
		return nil, err
	}
	res := &StageFailureResult{}
	if res.Target, err = renderedConfig(ctx, c, o.Pool, before); err != nil {
		return nil, err
	}
	var last string
	poll := func(ctx context.Context) (bool, error) {
		nodes, err := c.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: constants.NodeRoleLabelPrefix + o.Pool})
		if err != nil {
			return false, nil
		}
		res.Nodes, res.FailedStages, res.GrantsKept = len(nodes.Items), 0, nil
		var out, state []string
		for i := range nodes.Items {
			n := &nodes.Items[i]
			a := n.Annotations
			if outOfService(n, res.Target) {
				out = append(out, n.Name)
			}
			f, failing, err := constants.ParseStageFailure(a[constants.StageFailureAnnotation])
			if err != nil {
				return false, fmt.Errorf("node %s: %w", n.Name, err)
			}
			failing = failing && f.Config == res.Target
			if failing {
				res.FailedStages++
				if a[constants.DesiredConfigAnnotation] == res.Target {
					res.GrantsKept = append(res.GrantsKept, n.Name)
				}
			}
			state = append(state, fmt.Sprintf("%s(state=%s desired=%s failing=%v)", n.Name, a[constants.StateAnnotation], a[constants.DesiredConfigAnnotation], failing))
		}
		if len(out) > res.MaxUnavailable {
			res.MaxUnavailable, res.UnavailableSeen = len(out), out
		}
		p, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, o.Pool, metav1.GetOptions{})
		if err == nil {
			for _, cond := range p.Status.Conditions {
				if cond.Type == nodectl.PoolStagesFailedCondition && cond.Status == corev1.ConditionTrue {
					res.PoolReason = cond.Message
				}
			}
		}
		sort.Strings(state)
		last = fmt.Sprintf("failed stages %d of %d, grants kept %v, pool says %q: %s", res.FailedStages, res.Nodes, res.GrantsKept, res.PoolReason, strings.Join(state, " "))
		return res.Nodes > 0 && res.FailedStages == res.Nodes && res.PoolReason != "", nil
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(wctx, 500*time.Millisecond, true, poll); err != nil {
		return res, fmt.Errorf("not every stage failed and showed on the pool within %s: last seen %s: %w", o.Timeout, last, err)
	}
	// Watch the failing pool a while: nothing may leave service, and
	// grants given before a stage failed must be given back.
	sctx, scancel := context.WithTimeout(ctx, o.Settle)
	defer scancel()
	_ = wait.PollUntilContextCancel(sctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := poll(ctx)
		return false, err
	})
	w.Opts.Logf("world: every stage failed: %s", last)

	restore()
	start := time.Now()
	w.Opts.Logf("world: the registry serves pulls again; waiting for pool %s to finish %s", o.Pool, res.Target)
	rctx, rcancel := context.WithTimeout(ctx, o.Timeout)
	defer rcancel()
	err = wait.PollUntilContextCancel(rctx, time.Second, true, func(ctx context.Context) (bool, error) {
		nodes, err := c.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: constants.NodeRoleLabelPrefix + o.Pool})
		if err != nil {
			return false, nil
		}
		var behind []string
		for _, n := range nodes.Items {
			a := n.Annotations
			if a[constants.CurrentConfigAnnotation] != res.Target || a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone || a[constants.StageFailureAnnotation] != "" {
				behind = append(behind, fmt.Sprintf("%s(current=%s state=%s stageFailure=%q)", n.Name, a[constants.CurrentConfigAnnotation], a[constants.StateAnnotation], a[constants.StageFailureAnnotation]))
			}
		}
		last = strings.Join(behind, " ")
		return len(behind) == 0, nil
	})
	if err != nil {
		return res, fmt.Errorf("pool %s did not finish %s within %s of the registry's recovery: last seen %s: %w", o.Pool, res.Target, o.Timeout, last, err)
	}
	res.Recovered = time.Since(start)
	return res, nil
}
