package world

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/ostree"
	"github.com/tandem-mco/tandem/test/framework"
)

// RolloutOptions add trouble to a rollout and say how to show it.
type RolloutOptions struct {
	// KillDaemon names a node whose daemon gets kill -9 once it is Working.
	KillDaemon string
	// PowerCycle names a node that loses power once its update is staged
	// (and so loses the staged deployment).
	PowerCycle string
	// Table, when set, receives the live table every TableEvery (default 2s).
	Table      io.Writer
	TableEvery time.Duration
	// Timeout bounds the rollout; default 20 minutes.
	Timeout time.Duration
	// EtcdBaseline is how long etcd's disk latency is sampled at rest
	// before the update is published (Summary.EtcdSLO); default
	// DefaultEtcdBaseline, negative for no etcd figures.
	EtcdBaseline time.Duration
	// Pools, when set, limits the update to these pools ("cluster/pool",
	// e.g. "tenant/worker"): the others get no MachineConfig and must stay
	// on their config and OS (bench-disruption measures one pool alone).
	Pools []string
	// Version is the OS image version the rollout publishes (and the
	// content of UpdateFile); default 2, the world's second image. A later
	// rollout in the same world publishes a higher one.
	Version int
	// Faults are made once each, while the rollout runs (see Fault).
	Faults []Fault
	// FailedTimeout, when positive, stops the rollout once every node of
	// some pool has been failing (Degraded, Unreconcilable or its stage
	// failing) that long without a break; StallTimeout, when positive, once
	// no node's annotations changed for that long. Rollout then returns a
	// *Stuck error that says why the nodes fail (see StuckWatch).
	FailedTimeout, StallTimeout time.Duration
}

// UpdateFile is the file every node gets with the update.
const UpdateFile = "/etc/tandem-release"

// Rollout publishes the second OS image plus a file change to every pool of
// both clusters and waits until every node runs it, checking invariants.
func (w *World) Rollout(ctx context.Context, o RolloutOptions) (*Summary, error) {
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Minute
	}
	if o.TableEvery == 0 {
		o.TableEvery = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.Version == 0 {
		o.Version = 2
	}
	image, err := w.image(ctx, o.Version)
	if err != nil {
		return nil, err
	}
	w.rolloutImage = image
	w.bootsAtStart = map[string]int{}
	for name, n := range w.Nodes {
		w.bootsAtStart[name] = len(n.Sim.Boots())
	}
	slo, baseline := w.etcdBaseline(ctx, o.EtcdBaseline)
	start := time.Now()
	before := map[string]string{}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool := range c.Pools {
			cfg, err := renderedConfig(ctx, c, pool, "")
			if err != nil {
				return nil, err
			}
			before[c.Name+"/"+pool] = cfg
		}
	}
	if err := w.monitor.start(ctx); err != nil {
		return nil, err
	}
	coalesce, err := startCoalesceWatch(ctx, w)
	if err != nil {
		return nil, err
	}
	w.Opts.Logf("world: publishing OS image %d and %s to every pool of both clusters at the same moment", o.Version, UpdateFile)
	// Nothing is paused or ordered: coalescing the DPU hosts' two updates
	// into one drain and one reboot is the product's job (docs/dpu.md).
	w.unchanged = o.unchangedPools(w)
	if err := w.publishUpdate(ctx, o.Version, image); err != nil {
		return nil, err
	}
	// The moment the update is published is a fault's moment too (rows
	// nil): the planner may grant the first master within a poll of it.
	// After the publishing writes, which are the admin's, not the product's.
	faults := newFaultRunner(o.Faults)
	if err := faults.step(ctx, w, nil); err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool := range c.Pools {
			if w.unchanged[c.Name+"/"+pool] {
				targets[c.Name+"/"+pool] = before[c.Name+"/"+pool]
				continue
			}
			cfg, err := renderedConfig(ctx, c, pool, before[c.Name+"/"+pool])
			if err != nil {
				return nil, err
			}
			targets[c.Name+"/"+pool] = cfg
		}
	}
	w.Opts.Logf("world: rolling out %v", targets)
	lastTable := time.Time{}
	killed, cycled := o.KillDaemon == "", o.PowerCycle == ""
	stuck := &StuckWatch{FailedTimeout: o.FailedTimeout, StallTimeout: o.StallTimeout}
	err = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		rows, done, err := w.observe(ctx, targets)
		if err != nil {
			return false, nil
		}
		if err := faults.step(ctx, w, rows); err != nil {
			return false, err
		}
		done = done && faults.quiet()
		for _, r := range rows {
			if !killed && r.Name == o.KillDaemon && r.State == constants.MachineConfigDaemonStateWorking {
				w.Opts.Logf("world: kill -9 the daemon of %s", r.Name)
				killed = true
				if err := w.Nodes[r.Name].Sim.KillDaemon(); err != nil {
					return false, err
				}
			}
			if !cycled && r.Name == o.PowerCycle && r.Staged == r.Target && r.Desired != r.Target {
				w.Opts.Logf("world: power-cycling %s (its staged update is lost)", r.Name)
				cycled = true
				// A power loss is no disruption of the rollout's: its
				// NotReady is not counted against the pool's budget,
				// but the planner must count it (the monitor checks).
				w.monitor.setExternal(r.Name, true)
				err := w.Nodes[r.Name].Sim.PowerCycle()
				w.monitor.setExternal(r.Name, false)
				if err != nil {
					return false, err
				}
			}
		}
		if o.Table != nil && time.Since(lastTable) >= o.TableEvery {
			lastTable = time.Now()
			printTable(o.Table, rows, time.Since(start))
		}
		if !done && (o.FailedTimeout > 0 || o.StallTimeout > 0) {
			if v := stuck.Observe(time.Now(), snapshots(rows)); v != nil {
				return false, v
			}
		}
		for _, name := range w.Order {
			if err := w.Nodes[name].Sim.Err(); err != nil {
				return false, fmt.Errorf("node %s: %w", name, err)
			}
		}
		return done, nil
	})
	w.monitor.stop()
	rows, _, _ := w.observe(context.WithoutCancel(ctx), targets)
	if o.Table != nil {
		printTable(o.Table, rows, time.Since(start))
	}
	sum := w.summarize(rows, time.Since(start), o, coalesce)
	w.judgeAsOrigin(context.WithoutCancel(ctx), sum, start)
	sum.Faults = faults.reports()
	for _, f := range sum.Faults {
		sum.Invariants = append(sum.Invariants, Invariant{Name: "fault " + f.Name + " made", OK: f.Err == "",
			Detail: f.Detail()})
	}
	if err == nil {
		w.baseImage = image
	}
	if slo != nil {
		sum.EtcdSLO = slo.stop(context.WithoutCancel(ctx), baseline)
		windows, werr := w.stageWindows(context.WithoutCancel(ctx), start)
		if werr != nil {
			w.Opts.Logf("world: no per-master etcd figures: %v", werr)
		}
		var members []string
		for i := range w.Etcd.Size() {
			members = append(members, w.Etcd.MemberName(i))
		}
		sum.EtcdSLO.Masters = mastersEtcd(members, windows, slo.memberWAL)
	}
	if _, ok := errors.AsType[*Stuck](err); ok {
		return sum, fmt.Errorf("rollout stopped after %.0fs: %w", time.Since(start).Seconds(), err)
	}
	if err != nil {
		return sum, fmt.Errorf("rollout did not converge in %s: %w", o.Timeout, err)
	}
	return sum, nil
}

// Row is one node's state as the live table shows it.
type Row struct {
	Name, Cluster, Pool                     string
	Current, Desired, Stage, Staged, Target string
	State, Progress, Drain                  string
	Cordoned                                bool
	Reboots                                 int
	BootedImage                             string
	Done                                    bool
	// Annotations are the node's, as observed.
	Annotations map[string]string
}

// snapshots are the rows as StuckWatch takes them.
func snapshots(rows []Row) []NodeSnapshot {
	out := make([]NodeSnapshot, len(rows))
	for i, r := range rows {
		out[i] = NodeSnapshot{Name: r.Name, Pool: r.Cluster + "/" + r.Pool, Annotations: r.Annotations}
	}
	return out
}

// observe reads every node and says whether all run their target.
func (w *World) observe(ctx context.Context, targets map[string]string) ([]Row, bool, error) {
	all := true
	var rows []Row
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		list, err := c.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, false, err
		}
		for i := range list.Items {
			node := &list.Items[i]
			n, ok := w.Nodes[node.Name]
			if !ok || n.Cluster != c {
				continue
			}
			a := node.Annotations
			r := Row{
				Name: node.Name, Cluster: c.Name, Pool: n.Pool,
				Current: a[constants.CurrentConfigAnnotation], Desired: a[constants.DesiredConfigAnnotation],
				Stage: a[constants.StageConfigAnnotation], Staged: a[constants.StagedConfigAnnotation],
				Target: targets[c.Name+"/"+n.Pool], State: a[constants.StateAnnotation],
				Progress: a[constants.StageProgressAnnotation], Cordoned: node.Spec.Unschedulable,
				Annotations: a,
			}
			if a[constants.DesiredDrainAnnotation] != "" {
				r.Drain = strings.SplitN(a[constants.DesiredDrainAnnotation], "-", 2)[0]
				if a[constants.DesiredDrainAnnotation] == a[constants.LastAppliedDrainAnnotation] {
					r.Drain += "ed"
				} else {
					r.Drain += "ing"
				}
			}
			if d, err := n.Sim.Booted(); err == nil {
				r.BootedImage = d.ImageDigest
			}
			r.Reboots = len(n.Sim.Boots()) - w.bootsAtStart[node.Name]
			want, _ := ostree.ImageDigest(w.rolloutImage)
			if w.unchanged[c.Name+"/"+n.Pool] {
				want, _ = ostree.ImageDigest(w.baseImage)
			}
			r.Done = r.Current == r.Target && r.State == constants.MachineConfigDaemonStateDone && !r.Cordoned && r.BootedImage == want
			all = all && r.Done
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return w.rank(rows[i].Name) < w.rank(rows[j].Name) })
	return rows, all && len(rows) == len(w.Order), nil
}

func (w *World) rank(name string) int {
	for i, n := range w.Order {
		if n == name {
			return i
		}
	}
	return len(w.Order)
}

// publishUpdate creates (or updates) every changed pool's update
// MachineConfig, both clusters at once: image version v and UpdateFile.
func (w *World) publishUpdate(ctx context.Context, v int, image string) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, c := range []*Cluster{w.Infra, w.Tenant} {
		for pool := range c.Pools {
			if w.unchanged[c.Name+"/"+pool] {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				files := []framework.IgnitionFile{{Path: UpdateFile, Contents: fmt.Sprintf("tandem update %d\n", v)}}
				if err := w.applyConfig(ctx, c, "99-"+pool+"-update", pool, image, files); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
