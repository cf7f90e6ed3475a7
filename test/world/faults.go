package world

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// Fault is trouble a rollout makes on purpose, once: when When first says
// so (it sees the live rows on every poll), Do runs on its own goroutine, so
// a fault that lasts (a node NotReady for 30 s) does not stop the rollout's
// watch. The rollout finishes only after every fault it made ended; one
// that never triggered, or failed, fails its invariant.
type Fault struct {
	// ID names the fault in figure lines (no spaces); Name for people.
	ID   string
	Name string
	// When sees the rows of each poll; rows is nil once, right after the
	// update is published (before any node can have been granted it).
	When func(w *World, rows []Row) bool
	Do   func(ctx context.Context, w *World) error
}

// FaultReport says when a fault was made and how it went.
type FaultReport struct {
	Name     string
	At, Took time.Duration // since the rollout's start; how long Do ran
	Err      string
}

// Detail is the report for the invariants' lines.
func (f FaultReport) Detail() string {
	switch {
	case f.Err != "":
		return fmt.Sprintf("at %.0fs: %s", f.At.Seconds(), f.Err)
	case f.At == 0:
		return "never made"
	}
	return fmt.Sprintf("made at %.0fs, lasted %.0fs", f.At.Seconds(), f.Took.Seconds())
}

type faultRunner struct {
	start  time.Time
	faults []Fault

	mu      sync.Mutex
	started []bool
	reps    []FaultReport
	running sync.WaitGroup
	ended   []bool
}

func newFaultRunner(faults []Fault) *faultRunner {
	r := &faultRunner{start: time.Now(), faults: faults, started: make([]bool, len(faults)),
		reps: make([]FaultReport, len(faults)), ended: make([]bool, len(faults))}
	for i, f := range faults {
		r.reps[i].Name = f.Name
		r.reps[i].Err = "never made: its moment did not come during the rollout"
	}
	return r
}

// step starts the faults whose moment came.
func (r *faultRunner) step(ctx context.Context, w *World, rows []Row) error {
	for i, f := range r.faults {
		r.mu.Lock()
		started := r.started[i]
		r.mu.Unlock()
		if started || !f.When(w, rows) {
			continue
		}
		r.mu.Lock()
		r.started[i] = true
		r.reps[i].At, r.reps[i].Err = time.Since(r.start), ""
		r.mu.Unlock()
		w.Opts.Logf("world: fault %s", f.Name)
		r.running.Add(1)
		go func() {
			defer r.running.Done()
			t0 := time.Now()
			err := f.Do(ctx, w)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.reps[i].Took = time.Since(t0)
			r.ended[i] = true
			if err != nil {
				r.reps[i].Err = err.Error()
				w.Opts.Logf("world: fault %s failed: %v", f.Name, err)
			} else {
				w.Opts.Logf("world: fault %s over after %.0fs", f.Name, time.Since(t0).Seconds())
			}
		}()
	}
	return nil
}

// quiet tells whether no fault is running: a rollout that is done waits
// for the faults it made to end, but not for one whose moment never came
// (that one is reported as never made, and fails its invariant).
func (r *faultRunner) quiet() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.faults {
		if r.started[i] && !r.ended[i] {
			return false
		}
	}
	return true
}

func (r *faultRunner) reports() []FaultReport {
	r.running.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]FaultReport(nil), r.reps...)
}

// midRollout: a tenant worker is updating: Working, or granted its target
// and not running it yet. (Working alone is a few seconds per node with a
// staged OS; polled rows missed it: "its moment did not come".)
func midRollout(_ *World, rows []Row) bool {
	for _, r := range rows {
		if r.Cluster != "tenant" || r.Pool != constants.WorkerPool {
			continue
		}
		granted := r.Target != "" && r.Desired == r.Target && r.Current != r.Target
		if r.State == constants.MachineConfigDaemonStateWorking || granted {
			return true
		}
	}
	return false
}

// FaultKillController kills the cluster's machine-config-controller with
// SIGKILL mid-rollout; its supervisor starts it again, as its Deployment
// would. The fault ends when the new process runs.
func FaultKillController(cluster string) Fault {
	return Fault{
		ID:   cluster + "-controller-kill9",
		Name: "kill -9 of the " + cluster + " machine-config-controller",
		When: midRollout,
		Do: func(ctx context.Context, w *World) error {
			c := w.cluster(cluster)
			old := c.controller.pid()
			if err := c.controller.kill9(); err != nil {
				return err
			}
			return waitUntil(ctx, 2*time.Minute, func() (bool, string) {
				pid := c.controller.pid()
				return pid != 0 && pid != old && !c.controller.exited(), fmt.Sprintf("controller pid %d (killed %d)", pid, old)
			})
		},
	}
}

// FaultRestartAPIServer restarts the cluster's kube-apiserver mid-rollout
// (SIGTERM, then the same flags, certificates and storage again).
func FaultRestartAPIServer(cluster string) Fault {
	return Fault{
		ID:   cluster + "-apiserver-restart",
		Name: "restart of the " + cluster + " kube-apiserver",
		When: midRollout,
		Do: func(ctx context.Context, w *World) error {
			return w.cluster(cluster).CP.RestartAPIServer(ctx)
		},
	}
}

// FaultNodeNotReady takes a tenant worker that is not updating from its
// kubelet (kwok) for d, NotReady all that time, while another worker
// updates. The monitor counts it unavailable, as the MCO does, but does not
// blame the rollout for it: it checks instead that no grant came while the
// pool was full counting the NotReady node.
func FaultNodeNotReady(d time.Duration) Fault {
	var victim string
	return Fault{
		ID:   fmt.Sprintf("worker-notready-%.0fs", d.Seconds()),
		Name: fmt.Sprintf("a worker NotReady for %s", d),
		When: func(w *World, rows []Row) bool {
			// Early in the rollout, a worker that is not updated yet and not
			// disrupted (granted is fine: it is drained later anyway).
			busy := false
			for _, r := range rows {
				busy = busy || (r.Cluster == "tenant" && r.State == constants.MachineConfigDaemonStateWorking)
			}
			if !busy {
				return false
			}
			for _, r := range rows {
				if r.Cluster == "tenant" && r.Pool == constants.WorkerPool && !r.Cordoned && r.Current != r.Target &&
					r.State != constants.MachineConfigDaemonStateWorking {
					victim = r.Name
					return true
				}
			}
			return false
		},
		Do: func(ctx context.Context, w *World) error {
			kube := w.Tenant.CP.Kube
			w.monitor.setExternal(victim, true)
			defer w.monitor.setExternal(victim, false)
			w.Opts.Logf("world: %s NotReady for %s", victim, d)
			if err := framework.SetNodeNotReady(ctx, kube, victim); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
			return framework.RestoreNode(ctx, kube, victim, 2*time.Minute)
		},
	}
}

// FaultKillEtcdFollower kills a follower member of the tenant etcd with
// SIGKILL while no master is disrupted (so quorum holds), and starts it
// again after a few seconds, as its static pod would be. Its moment is
// right after the update is published: the masters are about to stage, none can be
// granted yet, and the planner must hold their grants until the member is
// back. Later moments without a master granted may never come: with a
// fast stage the masters are granted one after another from the first
// poll until the end of the rollout.
func FaultKillEtcdFollower() Fault {
	return Fault{
		ID:   "etcd-follower-sigkill",
		Name: "SIGKILL of an etcd follower",
		When: func(w *World, rows []Row) bool {
			if rows == nil {
				return true // the update is being published
			}
			for _, r := range rows {
				if r.Pool == constants.MasterPool && (r.Cordoned || r.Desired != r.Current) {
					return false
				}
			}
			return true
		},
		Do: func(ctx context.Context, w *World) error {
			leader := w.monitor.currentLeader()
			victim := -1
			for i := range w.Etcd.Size() {
				if w.Etcd.MemberName(i) != leader {
					victim = i
					break
				}
			}
			if victim < 0 {
				return fmt.Errorf("no follower to kill (leader %q)", leader)
			}
			w.Opts.Logf("world: SIGKILL etcd member %s (leader is %s)", w.Etcd.MemberName(victim), leader)
			if err := w.Etcd.KillMember(victim); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Second):
			}
			sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			return w.Etcd.StartMember(sctx, victim)
		},
	}
}

func (w *World) cluster(name string) *Cluster {
	if name == w.Infra.Name {
		return w.Infra
	}
	return w.Tenant
}

// waitUntil polls cond every 100 ms for at most d; on timeout the error
// says what cond last saw.
func waitUntil(ctx context.Context, d time.Duration, cond func() (bool, string)) error {
	deadline := time.Now().Add(d)
	for {
		ok, last := cond()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s; last seen: %s", d, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; last seen: %s", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
