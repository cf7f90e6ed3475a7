package world

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

// BadUpdateOptions describe a bad update of one tenant pool.
type BadUpdateOptions struct {
	// Pool is the tenant pool to update; default worker.
	Pool string
	// MaxFailedNodes is the pool's circuit breaker K; default 1.
	MaxFailedNodes int
	// FailedNodeGrace is the pool's failedNodeGrace (how long a node is
	// Degraded before the breaker counts it); "" leaves the pool's own
	// (default 5m).
	FailedNodeGrace string
	// Timeout bounds the wait for the breaker to stop the rollout and for
	// the staged nodes to be unstaged; default 10 minutes.
	Timeout time.Duration
	// Settle is how long the halted pool is watched for any new grant
	// afterwards; default 15 s.
	Settle time.Duration
}

// BadUpdateResult is what the world saw.
type BadUpdateResult struct {
	Target string
	// Failed are the pool's nodes Degraded on the target.
	Failed []string
	// Granted are the nodes ever granted the target (desiredConfig).
	Granted []string
	// GrantedAfterHalt are grants seen after RolloutHalted became True.
	GrantedAfterHalt []string
	// StagedAhead are ungranted nodes that had staged the target.
	StagedAhead []string
	// Unstaged are the StagedAhead nodes whose double ran `cleanup -p` and
	// holds no staged deployment any more.
	Unstaged []string
	// Halted is the RolloutHalted condition's message; HaltedSince its
	// lastTransitionTime.
	Halted      string
	HaltedSince time.Time
	// DegradedSince is, per failed node, when its MachineConfigNode's
	// NodeDegraded condition turned True, as read at the end.
	DegradedSince map[string]time.Time
	// MaxUnavailable of the pool.
	MaxUnavailable int
}

// BadUpdate publishes an OS image that fails to boot (the double falls
// back to the old deployment, see osdouble.LabelBootFails) plus a file
// change to one tenant pool, and watches the circuit breaker: the rollout
// must stop after K failed nodes and the nodes staged ahead must be
// unstaged. The harness only publishes and watches; stopping and
// unstaging are the controller's and the daemons' work.
func (w *World) BadUpdate(ctx context.Context, o BadUpdateOptions) (*BadUpdateResult, error) {
	if o.Pool == "" {
		o.Pool = constants.WorkerPool
	}
	if o.MaxFailedNodes == 0 {
		o.MaxFailedNodes = 1
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Settle == 0 {
		o.Settle = 15 * time.Second
	}
	c := w.Tenant
	res := &BadUpdateResult{MaxUnavailable: c.Pools[o.Pool]}
	bad, err := osimage.Synthesize(ctx, osimage.SynthOptions{
		Registry: w.Registry, Repo: "rhcos", Version: len(w.Images) + 1, Seed: 666,
		SizeBytes: w.Opts.ImageBytes, WorkDir: w.path("synth"),
		ExtraLabels: map[string]string{osdouble.LabelBootFails: "true"},
	})
	if err != nil {
		return nil, fmt.Errorf("synthesizing the bad OS image: %w", err)
	}
	settings := map[string]string{constants.MaxFailedNodesAnnotation: strconv.Itoa(o.MaxFailedNodes)}
	if o.FailedNodeGrace != "" {
		settings[constants.FailedNodeGraceAnnotation] = o.FailedNodeGrace
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": settings}})
	if _, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, o.Pool, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("setting the pool's circuit breaker: %w", err)
	}
	before, err := renderedConfig(ctx, c, o.Pool, "")
	if err != nil {
		return nil, err
	}
	w.Opts.Logf("world: publishing a bad OS image (%s, fails to boot) to pool %s, maxFailedNodes=%d failedNodeGrace=%q", bad, o.Pool,
		o.MaxFailedNodes, o.FailedNodeGrace)
	// The pool's update MachineConfig, as a rollout publishes it: after an
	// earlier rollout of this world, a MachineConfig of another name would
	// sort before it and change nothing in the rendered config.
	if err := w.applyConfig(ctx, c, "99-"+o.Pool+"-update", o.Pool, bad, []framework.IgnitionFile{{Path: UpdateFile, Contents: "tandem bad update\n"}}); err != nil {
		return nil, err
	}
	if res.Target, err = renderedConfig(ctx, c, o.Pool, before); err != nil {
		return nil, err
	}

	granted, stagedAhead := map[string]bool{}, map[string]bool{}
	var haltedAt time.Time
	var last string
	poll := func(ctx context.Context) (bool, error) {
		nodes, err := c.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: constants.NodeRoleLabelPrefix + o.Pool})
		if err != nil {
			return false, nil
		}
		p, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, o.Pool, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == constants.PoolRolloutHaltedCondition && cond.Status == corev1.ConditionTrue {
				res.Halted, res.HaltedSince = cond.Message, cond.LastTransitionTime.Time
				if haltedAt.IsZero() {
					haltedAt = time.Now()
					w.Opts.Logf("world: pool %s halted: %s", o.Pool, cond.Message)
				}
			}
		}
		res.Failed = nil
		settled := !haltedAt.IsZero()
		var state []string
		for _, n := range nodes.Items {
			a := n.Annotations
			if a[constants.DesiredConfigAnnotation] == res.Target {
				if !granted[n.Name] && !haltedAt.IsZero() {
					res.GrantedAfterHalt = append(res.GrantedAfterHalt, n.Name)
				}
				granted[n.Name] = true
				if a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded {
					res.Failed = append(res.Failed, n.Name)
				}
				continue
			}
			sim := w.Nodes[n.Name].Sim
			if err := sim.Err(); err != nil {
				return false, fmt.Errorf("node %s: %w", n.Name, err)
			}
			staged, _, err := sim.Staged()
			if err != nil {
				return false, nil
			}
			if a[constants.StagedConfigAnnotation] == res.Target || staged != nil {
				stagedAhead[n.Name] = true
			}
			// An ungranted node is settled once nothing lets it stage the
			// target and nothing of the target is staged on it.
			if a[constants.StageConfigAnnotation] == res.Target || a[constants.StagedConfigAnnotation] == res.Target || staged != nil {
				settled = false
			}
			state = append(state, fmt.Sprintf("%s(stage=%q staged=%q deployment=%v)", n.Name,
				a[constants.StageConfigAnnotation], a[constants.StagedConfigAnnotation], staged != nil))
		}
		sort.Strings(state)
		last = fmt.Sprintf("halted=%v failed=%v granted=%d ungranted=%s", !haltedAt.IsZero(), res.Failed, len(granted), strings.Join(state, " "))
		return settled, nil
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(wctx, 500*time.Millisecond, true, poll); err != nil {
		return res, fmt.Errorf("the breaker did not stop the rollout and unstage within %s: last seen %s: %w", o.Timeout, last, err)
	}
	// Watch the halted pool a while longer: no grant may come.
	sctx, scancel := context.WithTimeout(ctx, o.Settle)
	defer scancel()
	_ = wait.PollUntilContextCancel(sctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := poll(ctx)
		return false, err
	})
	for name := range stagedAhead {
		res.StagedAhead = append(res.StagedAhead, name)
		cmds, err := osdouble.ReadCommandLog(w.Nodes[name].Sim.Run)
		if err != nil {
			return res, err
		}
		if slices.ContainsFunc(cmds, func(c osdouble.CommandRecord) bool {
			return slices.Equal(c.Args, []string{"cleanup", "-p"}) && c.Exit == 0
		}) {
			res.Unstaged = append(res.Unstaged, name)
		}
	}
	for name := range granted {
		res.Granted = append(res.Granted, name)
	}
	sort.Strings(res.Granted)
	sort.Strings(res.StagedAhead)
	sort.Strings(res.Unstaged)
	sort.Strings(res.Failed)
	res.DegradedSince = map[string]time.Time{}
	for _, name := range res.Failed {
		if since, ok, err := DegradedSince(ctx, c, name); err != nil {
			return res, err
		} else if ok {
			res.DegradedSince[name] = since
		}
	}
	return res, nil
}

// DegradedSince reads when node's MachineConfigNode NodeDegraded condition
// turned True; false when it is not True (or there is no
// MachineConfigNode).
func DegradedSince(ctx context.Context, c *Cluster, node string) (time.Time, bool, error) {
	mcn, err := c.CP.MCO.MachineconfigurationV1().MachineConfigNodes().Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading MachineConfigNode %s: %w", node, err)
	}
	for _, cd := range mcn.Status.Conditions {
		if cd.Type == string(mcfgv1.MachineConfigNodeNodeDegraded) && cd.Status == metav1.ConditionTrue {
			return cd.LastTransitionTime.Time, true, nil
		}
	}
	return time.Time{}, false, nil
}
