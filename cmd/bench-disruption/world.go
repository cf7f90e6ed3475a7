package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		Dir: dir, Masters: c.masters, Workers: c.workers, DPUs: -1, ImageBytes: c.size,
		// One worker at a time, the stock MCO's default: a worker's window
		// is then its own update, not shared with another node's pull.
		WorkerMaxUnavailable: 1,
		RebootDelay:          c.reboot,
		DaemonArgs:           []string{"--update-order=" + string(o)},
		Logf:                 func(f string, a ...any) { progress(tag+f, a...) },
	})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	progress(tag+"world up in %.0fs", time.Since(startWorld).Seconds())

	var workers []string
	for _, name := range w.Order {
		if n := w.Nodes[name]; n.Cluster == w.Tenant && n.Pool == constants.WorkerPool {
			workers = append(workers, name)
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go reportProgress(rctx, w, tag, workers, time.Now())
	// Only the workers update: no master reboot (taking a single-member
	// etcd, hence the apiserver, down) and no DPU can land in a window.
	sum, err := w.Rollout(ctx, world.RolloutOptions{Timeout: c.timeout, EtcdBaseline: -1, Pools: []string{w.Tenant.Name + "/" + constants.WorkerPool}})
	cancel()
	if err != nil {
		return nil, err
	}
	r := &orderResult{Order: o, RolloutS: sum.Duration.Seconds(), Reboots: sum.Reboots, OtherWindowsS: map[string]float64{}}
	if r.MedianWindowS, r.MeanWindowS, r.WindowsS, err = windowsOf(sum.Windows, workers); err != nil {
		return r, err
	}
	r.OtherDisruptions = otherDisruptions(sum.Windows, sum.Reboots, workers)
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
