package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/world"
)

// runOrder starts a world whose daemons use order o, rolls the update out
// and returns the workers' windows.
func runOrder(ctx context.Context, c config, o daemon.UpdateOrder, dir string) (*orderResult, error) {
	tag := "[" + string(o) + "] "
	progress(tag+"starting a world in %s (synthesizing two %.2f GiB OS images and booting every node on the first takes minutes)", dir, gib(c.size))
	startWorld := time.Now()
	w, err := world.Start(ctx, world.Options{
		Dir: dir, Masters: c.masters, Workers: c.workers, ImageBytes: c.size,
		// One worker at a time, the stock MCO's default: a worker's window
		// is then its own update, not shared with another node's pull.
		WorkerMaxUnavailable: 1,
		DaemonArgs:           []string{"--update-order=" + string(o)},
		Logf:                 func(f string, a ...any) { progress(tag+f, a...) },
	})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	progress(tag+"world up in %.0fs", time.Since(startWorld).Seconds())

	var workers, measured []string
	for _, name := range w.Order {
		n := w.Nodes[name]
		if n.Cluster == w.Tenant && n.Pool == constants.WorkerPool {
			workers = append(workers, name)
			if n.Pair == "" {
				measured = append(measured, name)
			}
		}
	}
	before, err := poolConfig(ctx, w.Tenant, constants.WorkerPool)
	if err != nil {
		return nil, err
	}
	paused, err := pauseOtherPools(ctx, w, true)
	if err != nil {
		return nil, err
	}
	progress(tag+"paused %v while the workers %v update", paused, workers)

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	workersDone := make(chan time.Duration, 1)
	go func() {
		if err := waitWorkersDone(rctx, w, workers, before); err != nil {
			return
		}
		workersDone <- time.Since(start)
		progress(tag+"workers done at %.0fs; unpausing %v", time.Since(start).Seconds(), paused)
		if _, err := pauseOtherPools(rctx, w, false); err != nil {
			progress(tag+"unpausing: %v", err)
		}
	}()
	go reportProgress(rctx, w, tag, workers, start)

	sum, err := w.Rollout(ctx, world.RolloutOptions{Timeout: c.timeout})
	cancel()
	if err != nil {
		return nil, err
	}
	r := &orderResult{Order: o, RolloutS: sum.Duration.Seconds(), Reboots: sum.Reboots, OtherWindowsS: map[string]float64{}}
	select {
	case d := <-workersDone:
		r.WorkersDoneS = d.Seconds()
	default:
	}
	if r.MeanWindowS, r.WindowsS, err = meanWindow(sum.Windows, measured); err != nil {
		return r, err
	}
	for name, d := range sum.Windows {
		if _, ok := r.WindowsS[name]; !ok {
			r.OtherWindowsS[name] = d.Seconds()
		}
	}
	for _, inv := range sum.Invariants {
		if !inv.OK {
			r.InvariantsNotHeld = append(r.InvariantsNotHeld, fmt.Sprintf("%s (%s)", inv.Name, inv.Detail))
			progress(tag+"world invariant not held: %s (%s)", inv.Name, inv.Detail)
		}
	}
	progress(tag+"rollout done in %.0fs", sum.Duration.Seconds())
	return r, nil
}

// pauseOtherPools pauses (or unpauses) every pool but the tenant workers'.
// A paused pool gets neither stageConfig nor desiredConfig from the
// controller; its rendered config still moves on.
func pauseOtherPools(ctx context.Context, w *world.World, pause bool) ([]string, error) {
	patch := []byte(fmt.Sprintf(`{"spec":{"paused":%t}}`, pause))
	var names []string
	for _, c := range []*world.Cluster{w.Tenant, w.Infra} {
		for pool := range c.Pools {
			if c == w.Tenant && pool == constants.WorkerPool {
				continue
			}
			if _, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, pool, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return names, fmt.Errorf("setting paused=%t on pool %s of %s: %w", pause, pool, c.Name, err)
			}
			names = append(names, c.Name+"/"+pool)
		}
	}
	return names, nil
}

func poolConfig(ctx context.Context, c *world.Cluster, pool string) (string, error) {
	p, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("reading pool %s: %w", pool, err)
	}
	return p.Spec.Configuration.Name, nil
}

// waitWorkersDone waits until the worker pool has a new rendered config
// and every worker runs it, Done and uncordoned.
func waitWorkersDone(ctx context.Context, w *world.World, workers []string, before string) error {
	return wait.PollUntilContextCancel(ctx, time.Second, false, func(ctx context.Context) (bool, error) {
		target, err := poolConfig(ctx, w.Tenant, constants.WorkerPool)
		if err != nil || target == "" || target == before {
			return false, nil
		}
		for _, name := range workers {
			n, err := w.Tenant.CP.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			a := n.Annotations
			if a[constants.CurrentConfigAnnotation] != target || a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone || n.Spec.Unschedulable {
				return false, nil
			}
		}
		return true, nil
	})
}

// reportProgress prints the workers' state every 15 seconds.
func reportProgress(ctx context.Context, w *world.World, tag string, workers []string, start time.Time) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var parts []string
		for _, name := range workers {
			n, err := w.Tenant.CP.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				parts = append(parts, name+": (apiserver unreachable)")
				continue
			}
			a := n.Annotations
			s := fmt.Sprintf("%s: state=%s", name, dash(a[constants.StateAnnotation]))
			if n.Spec.Unschedulable {
				s += " cordoned"
			}
			if d := a[constants.DesiredDrainAnnotation]; d != "" {
				s += " drain=" + strings.SplitN(d, "-", 2)[0]
				if d == a[constants.LastAppliedDrainAnnotation] {
					s += "(done)"
				}
			}
			if p := a[constants.StageProgressAnnotation]; p != "" {
				s += " stage=" + p[strings.LastIndex(p, " ")+1:]
			}
			if a[constants.CurrentConfigAnnotation] == a[constants.DesiredConfigAnnotation] {
				s += " current=desired"
			}
			parts = append(parts, s)
		}
		progress(tag+"%4.0fs %s", time.Since(start).Seconds(), strings.Join(parts, "; "))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
