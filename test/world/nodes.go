package world

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync/atomic"

	"github.com/tandem-mco/tandem/test/framework"
)

func (w *World) startControllers(ctx context.Context) error {
	common := []string{"start", "--leader-elect=false", "--metrics-listen-address=", "--workers=4", "-v=2"}
	var err error
	tenantArgs := append(common, "--kubeconfig="+w.Tenant.CP.KubeconfigPath)
	tenantArgs = append(tenantArgs, etcdEndpointsFlag(w.Etcd), "--dpu-tenant")
	if w.Tenant.controller, err = startProcess("tenant machine-config-controller", w.path("tenant", "machine-config-controller.log"),
		nil, w.bins.controller, tenantArgs...); err != nil {
		return err
	}
	infraArgs := append(slices.Clone(common), "--kubeconfig="+w.Infra.CP.KubeconfigPath)
	dpuArgs, err := w.infraControllerArgs(ctx)
	if err != nil {
		return err
	}
	infraArgs = append(infraArgs, dpuArgs...)
	if w.Infra.controller, err = startProcess("infra machine-config-controller", w.path("infra", "machine-config-controller.log"),
		nil, w.bins.controller, infraArgs...); err != nil {
		return err
	}
	return nil
}

func etcdEndpointsFlag(e *framework.EtcdCluster) string {
	flag := "--etcd-endpoints="
	for i, u := range e.ClientURLs() {
		if i > 0 {
			flag += ","
		}
		flag += u
	}
	return flag
}

// infraControllerArgs wires the infra controller to the tenant cluster with
// the narrow infra identity, never with the tenant's admin credentials.
func (w *World) infraControllerArgs(ctx context.Context) ([]string, error) {
	kubeconfig, err := w.Tenant.CP.AddDPUInfraIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return []string{"--dpu-tenant-kubeconfig=" + kubeconfig}, nil
}

// startNodes boots every node on the first image and starts its daemon. A
// master's reboot takes its etcd member down with it, like a real master.
func (w *World) startNodes(ctx context.Context) error {
	w.monitor = newMonitor(w)
	for _, name := range w.Order {
		n := w.Nodes[name]
		args := w.Opts.DaemonArgs
		if n.etcdMember >= 0 && w.Etcd != nil {
			// A master's daemon steers by its own etcd member's WAL fsync
			// latency, as on a real master (the default policy's governor).
			args = append(slices.Clone(args), "--etcd-metrics-url="+w.Etcd.MemberMetricsURL(n.etcdMember)+"/metrics")
		}
		var self atomic.Pointer[framework.SimNode]
		opts := framework.SimNodeOptions{
			Name:            name,
			Dir:             w.path("nodes", name),
			Kubeconfig:      n.Cluster.CP.KubeconfigPath,
			DaemonBinary:    w.bins.daemon,
			RPMOstreeBinary: w.bins.rpmOstree,
			InitialImage:    w.Images[0],
			Files:           w.installFiles(),
			FileModes:       map[string]os.FileMode{pullSecretPath: 0o600},
			IOPolicy:        w.Opts.IOPolicy,
			ExtraArgs:       args,
			RebootDelay:     w.Opts.RebootDelay,
			// The hooks run on the node's own goroutines, from its first
			// boot (before n.Sim is set): they get the node from self.
			OnShutdown: func(cause string) { w.monitor.onShutdown(ctx, n, self.Load(), cause) },
			OnBoot:     func(ev framework.BootEvent) { w.monitor.onBoot(ctx, n, self.Load(), ev) },
		}
		sim, err := framework.StartSimNode(ctx, opts)
		if err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
		self.Store(sim)
		n.Sim = sim
	}
	return nil
}
