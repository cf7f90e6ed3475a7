package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/kube"
)

// simNode is one node's machine-config-daemon, in process: the real
// daemon loop (pkg/daemon: observe, Next, perform) with the real API client
// (pkg/daemon/kube: the Node GETs and patches, the MachineConfig GETs, the
// MachineConfigNode status, and WatchNode's field-selected watch), as
// cmd/machine-config-daemon wires them. Only the machine is simulated: the
// OS (simOS: staging takes stageTime, nothing is pulled) and the host (a
// reboot stops the daemon, takes rebootTime and starts a new one on a new
// boot id, as a real reboot restarts the DaemonSet pod). The daemon's own
// files (its record, the config's files) go under root, on tmpfs.
type simNode struct {
	name       string
	root       string
	kube       kubernetes.Interface
	mco        mcfgclientset.Interface
	resync     time.Duration
	rebootTime time.Duration
	os         *simOS

	rebootReq chan struct{}
	reboots   atomic.Int32
	err       atomic.Pointer[error]
}

func newSimNode(name, root, image string, kc kubernetes.Interface, mc mcfgclientset.Interface, p SimParams) (*simNode, error) {
	n := &simNode{name: name, root: root, kube: kc, mco: mc, resync: p.Resync, rebootTime: p.RebootTime,
		rebootReq: make(chan struct{}, 1)}
	n.os = newSimOS(image, p.StageTime, n.requestReboot)
	if err := os.MkdirAll(filepath.Dir(n.bootIDFile()), 0o755); err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	if err := n.newBootID(); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *simNode) bootIDFile() string { return filepath.Join(n.root, "run", "boot_id") }

func (n *simNode) newBootID() error {
	if err := os.WriteFile(n.bootIDFile(), []byte(uuid.NewString()+"\n"), 0o644); err != nil {
		return fmt.Errorf("node %s: writing boot id: %w", n.name, err)
	}
	return nil
}

func (n *simNode) requestReboot() {
	select {
	case n.rebootReq <- struct{}{}:
	default:
	}
}

// run boots the node and runs its daemon until ctx ends, rebooting when the
// daemon asks.
func (n *simNode) run(ctx context.Context) {
	for ctx.Err() == nil {
		bootCtx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		n.startDaemon(bootCtx, &wg)
		select {
		case <-ctx.Done():
		case <-n.rebootReq:
		}
		// The machine goes down: the daemon dies mid-sleep, as under a
		// real reboot; then the OS boots what was finalized.
		cancel()
		wg.Wait()
		if ctx.Err() != nil {
			return
		}
		n.reboots.Add(1)
		select {
		case <-ctx.Done():
			return
		case <-time.After(n.rebootTime):
		}
		n.os.boot()
		if err := n.newBootID(); err != nil {
			n.fail(err)
			return
		}
	}
}

func (n *simNode) startDaemon(ctx context.Context, wg *sync.WaitGroup) {
	cluster := &kube.Client{
		Kube: n.kube, MCO: n.mco, NodeName: n.name,
	}
	cluster.WatchConfigs(ctx)
	wake := make(chan struct{}, 1)
	d, err := daemon.New(daemon.Options{
		NodeName: n.name, Root: n.root, BootIDFile: n.bootIDFile(),
		Cluster: cluster, OS: n.os, Host: simHost{n}, Wake: wake, Resync: n.resync,
	})
	if err != nil {
		n.fail(err)
		return
	}
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("node", n.name))
	wg.Add(2)
	go func() { defer wg.Done(); cluster.WatchNode(ctx, wake) }()
	go func() {
		defer wg.Done()
		if err := d.Run(ctx); err != nil {
			n.fail(err)
		}
	}()
}

func (n *simNode) fail(err error) {
	err = fmt.Errorf("node %s: %w", n.name, err)
	n.err.CompareAndSwap(nil, &err)
}

func (n *simNode) failure() error {
	if p := n.err.Load(); p != nil {
		return *p
	}
	return nil
}

// simHost is the node's host (daemon.Host): no kubelet to stop, and a
// reboot is the simulated one.
type simHost struct{ n *simNode }

func (simHost) StopKubelet(context.Context) error { return nil }

// The rebootless actions of a NodeDisruptionPolicy have no unit to act on
// here; the bench's update needs a reboot (an OS change), so they are
// never asked for.
func (simHost) ReloadUnit(context.Context, string) error  { return nil }
func (simHost) RestartUnit(context.Context, string) error { return nil }
func (simHost) DaemonReload(context.Context) error        { return nil }

func (h simHost) Reboot(context.Context, string) error {
	h.n.requestReboot()
	return nil
}
