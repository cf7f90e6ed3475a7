// Package world builds the whole local scene tandem is made for, on one
// machine: a tenant cluster whose kube-apiserver is backed by a real
// 3-member etcd (one member per master), tenant workers some of which carry
// a DPU, an infra cluster with one dpu-worker node per DPU, kwok kubelets,
// one machine-config-daemon process per node on the rpm-ostree double, both
// clusters' machine-config-controllers and a workload with a PDB. It then
// publishes a new OS image plus a file change and watches the rollout,
// checking the invariants as it goes. `make run` (cmd/tandem-local), the
// e2e-upgrade test and bench-disruption all drive it.
package world

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
)

// Options size the world.
type Options struct {
	// Dir holds everything (logs, node roots, kubeconfigs); a temp dir when empty.
	Dir string
	// Masters is the tenant control plane size (etcd members); default 3.
	Masters int
	// Workers is the number of tenant workers; default 6.
	Workers int
	// DPUs is how many workers carry a DPU (the first ones); default
	// Workers/2, negative for none.
	DPUs int
	// ImageBytes is the size of each synthesized OS image; default 16 MiB.
	ImageBytes int64
	// IOPolicy is the daemons' staging I/O policy; default none
	// (framework.SimNodeOptions): no cgroup and no host lock, every node
	// staging at once. make run passes the daemon's default.
	IOPolicy string
	// DaemonArgs are appended to every node's machine-config-daemon command
	// line (e.g. --update-order=stock for bench-disruption's baseline).
	DaemonArgs []string
	// WorkerMaxUnavailable and InfraMaxUnavailable bound disruption per pool;
	// default 2 and 1. The master pool always uses 1.
	WorkerMaxUnavailable int
	InfraMaxUnavailable  int
	// Replicas of the workload Deployment (its PDB keeps all but one
	// available); default Workers-1.
	Replicas int
	// RebootDelay keeps a rebooting node down this long before its daemon
	// starts again (a real reboot takes a minute); default 0.
	RebootDelay time.Duration
	// Logf receives progress lines; default klog.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() error {
	if o.Masters == 0 {
		o.Masters = 3
	}
	if o.Workers == 0 {
		o.Workers = 6
	}
	if o.DPUs == 0 {
		o.DPUs = o.Workers / 2
	} else if o.DPUs < 0 {
		o.DPUs = 0
	}
	if o.ImageBytes == 0 {
		o.ImageBytes = 16 << 20
	}
	if o.WorkerMaxUnavailable == 0 {
		o.WorkerMaxUnavailable = 2
	}
	if o.InfraMaxUnavailable == 0 {
		o.InfraMaxUnavailable = 1
	}
	if o.Replicas == 0 {
		o.Replicas = max(o.Workers-1, 1)
	}
	if o.Logf == nil {
		o.Logf = func(f string, a ...any) { klog.InfoDepth(1, fmt.Sprintf(f, a...)) }
	}
	switch {
	case o.Masters < 1 || o.Masters%2 == 0:
		return fmt.Errorf("masters must be odd and at least 1, got %d", o.Masters)
	case o.Workers < 1:
		return fmt.Errorf("workers must be at least 1, got %d", o.Workers)
	case o.DPUs < 0 || o.DPUs > o.Workers:
		return fmt.Errorf("dpus must be between 0 and workers (%d), got %d", o.Workers, o.DPUs)
	case o.ImageBytes < 1<<20:
		return fmt.Errorf("image size must be at least 1 MiB, got %d bytes", o.ImageBytes)
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "tandem-world-")
		if err != nil {
			return fmt.Errorf("creating world dir: %w", err)
		}
		o.Dir = d
	}
	return nil
}

// Node is one simulated machine of either cluster.
type Node struct {
	Name    string
	Cluster *Cluster
	Pool    string
	// Pair is the tenant host of a DPU node, or the DPU of a tenant host.
	Pair string
	Sim  *framework.SimNode
	// etcdMember is the index of a tenant master's etcd member, else -1.
	etcdMember int
}

// Cluster is one of the two clusters.
type Cluster struct {
	Name string
	CP   *framework.ControlPlane
	Kwok *framework.Kwok
	// Pools maps pool name to its maxUnavailable.
	Pools map[string]int
	// controller is this cluster's machine-config-controller process.
	controller *managedProcess
}

// World is the running scene.
type World struct {
	Opts     Options
	Registry *osimage.Registry
	// Images are the synthesized OS images: Images[0] boots, Images[1] is the update.
	Images [2]string
	Etcd   *framework.EtcdCluster
	Tenant *Cluster
	Infra  *Cluster
	Nodes  map[string]*Node
	// Order lists node names: masters, workers, DPUs.
	Order []string

	bins    binaries
	monitor *Monitor
	// baseImage is the image the nodes run between rollouts; rolloutImage
	// the one the running rollout publishes; images the synthesized ones
	// past the first two, by version; bootsAtStart each node's boots when
	// the running rollout began.
	baseImage, rolloutImage string
	images                  map[int]string
	bootsAtStart            map[string]int
	// unchanged are the pools the running rollout leaves alone
	// (RolloutOptions.Pools).
	unchanged map[string]bool

	mu      sync.Mutex
	stopped bool
}

// Start builds and starts everything, up to a cluster at rest on the first
// image with the workload running.
func Start(ctx context.Context, o Options) (_ *World, retErr error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	w := &World{Opts: o, Nodes: map[string]*Node{}}
	defer func() {
		if retErr != nil {
			w.Stop()
		}
	}()
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"building binaries", w.buildBinaries},
		{"starting the image registry and synthesizing two OS images", w.startImages},
		{"starting the tenant control plane (3-member etcd) and the infra control plane", w.startClusters},
		{"registering pools, base MachineConfigs and nodes", w.registerObjects},
		{"starting the machine-config-controllers", w.startControllers},
		{"waiting for the first rendered configs", w.bootstrapNodes},
		{"booting the nodes and their daemons", w.startNodes},
		{"starting the workload (Deployment + PDB)", w.startWorkload},
	}
	for _, s := range steps {
		start := time.Now()
		o.Logf("world: %s", s.what)
		if err := s.do(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.what, err)
		}
		klog.V(1).InfoS("world step done", "step", s.what, "seconds", time.Since(start).Seconds())
	}
	return w, nil
}

// Stop stops every process the world started. Safe to call twice. The
// parts stop in parallel, each with a short grace before SIGKILL, so that
// Ctrl-C of make run ends within seconds; anything left behind (and
// everything after kill -9) is killed by the framework's reaper.
func (w *World) Stop() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.stopped = true
	w.mu.Unlock()
	if w.monitor != nil {
		w.monitor.stop()
	}
	parallel := func(fs ...func()) {
		var wg sync.WaitGroup
		for _, f := range fs {
			wg.Add(1)
			go func() { defer wg.Done(); f() }()
		}
		wg.Wait()
	}
	var nodes []func()
	for _, n := range w.Nodes {
		if n.Sim != nil {
			nodes = append(nodes, func() { _ = n.Sim.Stop() })
		}
	}
	parallel(nodes...)
	var clusters []func()
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		if c == nil {
			continue
		}
		clusters = append(clusters, func() {
			if c.controller != nil {
				c.controller.stop(5 * time.Second)
			}
			if c.Kwok != nil {
				_ = c.Kwok.Stop()
			}
			if c.CP != nil {
				_ = c.CP.Stop()
			}
		})
	}
	parallel(clusters...)
	if w.Etcd != nil {
		_ = w.Etcd.Stop()
	}
	if w.Registry != nil {
		_ = w.Registry.Close()
	}
}

// KubeconfigPaths names the admin kubeconfigs, for kubectl.
func (w *World) KubeconfigPaths() map[string]string {
	return map[string]string{w.Tenant.Name: w.Tenant.CP.KubeconfigPath, w.Infra.Name: w.Infra.CP.KubeconfigPath}
}

// Node returns the named node or an error.
func (w *World) Node(name string) (*Node, error) {
	n, ok := w.Nodes[name]
	if !ok {
		return nil, errors.New("no node " + name)
	}
	return n, nil
}

func (w *World) path(p ...string) string { return filepath.Join(append([]string{w.Opts.Dir}, p...)...) }
