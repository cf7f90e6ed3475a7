package mcd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/cli/clicommon"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/certs"
	"github.com/tandem-mco/tandem/pkg/daemon/kube"
	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/pkg/kubeconfig"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// startOptions are `start`'s flags: the MCO's first, then tandem's.
type startOptions struct {
	// The MCO's (cmd/machine-config-daemon/start.go, release-4.21).
	kubeconfig             string
	nodeName               string
	rootMount              string
	kubeletHealthzEnabled  bool
	kubeletHealthzEndpoint string
	metricsURL             string
	tls                    clicommon.TLSFlags
	payloadVersion         *string

	// tandem's.
	node        nodeFlags
	resync      time.Duration
	updateOrder string
}

// unsupportedStartFlags are the MCO's flags tandem refuses when set: each
// selects a mode of the MCO's daemon that tandem does not have.
var unsupportedStartFlags = map[string]string{
	"desired-configmap": "HyperShift hosted-cluster nodes are not supported",
	"once-from":         "one-shot runs from a file or URL are not supported",
	"skip-reboot":       "it applies only with --once-from",
}

func newStart(payloadVersion *string) *cobra.Command {
	o := &startOptions{payloadVersion: payloadVersion}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Starts Machine Config Daemon",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := clicommon.Unsupported(cmd, unsupportedStartFlags); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			o.node.parsed(cmd)
			return runStart(ctx, o)
		},
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "Kubeconfig file to access a remote cluster (testing only); empty: in-cluster config")
	f.StringVar(&o.nodeName, "node-name", "", "kubernetes node name daemon is managing (default $NODE_NAME)")
	f.StringVar(&o.rootMount, "root-mount", "/rootfs", "where the node's root filesystem is mounted for chroot and file manipulation; / when the daemon runs in the host's root")
	f.String("desired-configmap", "", "HyperShift mode of the MCO's daemon: refused by tandem")
	f.String("once-from", "", "one-shot mode of the MCO's daemon: refused by tandem")
	f.Bool("skip-reboot", false, "with --once-from only: refused by tandem")
	f.BoolVar(&o.kubeletHealthzEnabled, "kubelet-healthz-enabled", true, "kubelet healthz endpoint monitoring (mcd_kubelet_state)")
	f.StringVar(&o.kubeletHealthzEndpoint, "kubelet-healthz-endpoint", "http://localhost:10248/healthz", "healthz endpoint to check health")
	f.StringVar(&o.metricsURL, "metrics-url", "127.0.0.1:8797", "address of the Prometheus /metrics listener (plain HTTP; the DaemonSet's kube-rbac-proxy serves it with TLS); empty disables it")
	o.tls.Bind(cmd)

	o.node.bind(cmd)
	f.DurationVar(&o.resync, "resync", time.Minute, "longest wait between two observations without a node event")
	f.StringVar(&o.updateOrder, "update-order", string(daemon.OrderStaged),
		"when the OS is pulled and staged: staged (tandem: before the drain, on stageConfig) or stock "+
			"(a stock MCO's order: after the drain, stageConfig ignored; the baseline of make bench-disruption)")
	return cmd
}

// kubeletKubeconfig is the node's kubelet kubeconfig, where the MCO's
// daemon finds the API server's address (cmd/machine-config-daemon/start.go,
// release-4.21).
const kubeletKubeconfig = "/etc/kubernetes/kubeconfig"

// resolveNodeName is the MCO's rule: the flag, else $NODE_NAME, else an error.
func resolveNodeName(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if name := os.Getenv("NODE_NAME"); name != "" {
		return name, nil
	}
	return "", errors.New("node-name is required: pass --node-name or set $NODE_NAME")
}

// ioUnitFor is the unit whose I/O the staging policy limits: the flag when
// given (empty: none), else on a systemd host rpm-ostreed.service (the
// writer of the stage; the operator's DaemonSet passes no tandem flags).
func ioUnitFor(flag string, set bool, hostKind string) string {
	if !set && hostKind == "systemd" {
		return "rpm-ostreed.service"
	}
	return flag
}

func runStart(ctx context.Context, o *startOptions) error {
	if err := enterRootMount(o.rootMount, o.kubeconfig); err != nil {
		return err
	}
	n := &o.node
	ioUnit := n.unit()
	// A stage interrupted by a crash left its I/O knobs (disk queue, BDI,
	// cgroups, unit properties) changed: put them back first, before
	// anything that needs the cluster.
	ioOpts := n.ioOptions()
	if restored, err := iso.RestoreInterrupted(ctx, ioOpts); err != nil {
		klog.ErrorS(err, "Restoring the I/O knobs of an interrupted stage failed; staging is refused until they are restored")
	} else if len(restored) > 0 {
		klog.InfoS("Restored the I/O knobs of an interrupted stage", "knobs", len(restored))
	}
	nodeName, err := resolveNodeName(o.nodeName)
	if err != nil {
		return err
	}
	cfg, err := kubeconfig.LoadForNode(o.kubeconfig, filepath.Join(n.root, kubeletKubeconfig))
	if err != nil {
		return err
	}
	// One node's daemon makes a handful of requests per step; client-go's
	// default 5 QPS would pace every step at ~0.5 s.
	cfg.QPS, cfg.Burst = 20, 40
	cfg.UserAgent = name + "/" + nodeName
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kube client: %w", err)
	}
	mc, err := mcfgclientset.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("machineconfiguration client: %w", err)
	}
	op, err := operatorclientset.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("operator client: %w", err)
	}
	h, err := n.host()
	if err != nil {
		return err
	}
	order, err := daemon.ParseUpdateOrder(o.updateOrder)
	if err != nil {
		return fmt.Errorf("--update-order: %w", err)
	}
	pol, err := iso.ParsePolicy(n.ioPolicy, ioOpts)
	if err != nil {
		return fmt.Errorf("--io-policy: %w", err)
	}
	if ioUnit != "" {
		// The staging unit's drop-ins, before anything is staged: they live
		// in /run, so every boot needs them laid again.
		if _, err := iso.LayUnitDropIns(ctx, n.root, ioUnit, pol, true); err != nil {
			klog.ErrorS(err, "Laying the staging unit's drop-ins failed; staging goes on without them", "unit", ioUnit)
		}
	}
	osa := n.os()
	// As the MCO's daemon at start (rpm-ostree.go Initialize): a failure
	// is logged, the next pull links again.
	if err := osa.LinkPullSecret(ctx); err != nil {
		klog.ErrorS(err, "Linking rpm-ostree's auth file to the pull secret")
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := metrics.NewDaemon(reg)
	metrics.RegisterBuildInfo(reg, name, *o.payloadVersion)
	m.SetHostOS(n.root)
	if o.kubeletHealthzEnabled && o.kubeletHealthzEndpoint != "" {
		go daemon.KubeletHealth{URL: o.kubeletHealthzEndpoint, Failures: m.MCO.KubeletState}.Run(ctx)
	}
	if o.metricsURL != "" {
		srv := &http.Server{Addr: o.metricsURL, Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
			TLSConfig: o.tls.Config(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "metrics server")
			}
		}()
		defer srv.Close()
	}

	cluster := &kube.Client{
		Kube: kc, MCO: mc, Operator: op, NodeName: nodeName,
	}
	if cluster.NodeWriter, err = nodeWriter(o.kubeconfig, filepath.Join(n.root, kubeconfig.KubeletKubeconfig), nodeName); err != nil {
		return err
	}
	cluster.WatchConfigs(ctx)
	wake := make(chan struct{}, 1)
	go cluster.WatchNode(ctx, wake)
	// The certificate writer runs beside the update loop, as the MCO's
	// runs beside its daemon's worker (pkg/daemon/certificate_writer.go).
	go (&certs.Writer{Root: n.root, Cluster: cluster, Host: h}).Run(ctx)

	var hook daemon.Hook
	if dir := os.Getenv(EnvTestHookDir); dir != "" {
		hook = fileHook(dir)
	}
	d, err := daemon.New(daemon.Options{
		NodeName: nodeName, Root: n.root, BootIDFile: n.bootIDFile, CmdlineFile: n.cmdline,
		Cluster: cluster, OS: osa, Host: h, Metrics: m, Hook: hook,
		Wake: wake, Resync: o.resync, Order: order,
		Extensions: n.extensions(),
	})
	if err != nil {
		return err
	}
	klog.InfoS("machine-config-daemon starting", "node", nodeName, "root", n.root, "rootMount", o.rootMount,
		"ioPolicy", n.ioPolicy, "host", n.hostKind, "updateOrder", order, "payloadVersion", *o.payloadVersion)
	return d.Run(ctx)
}

// nodeWriter is the client the daemon writes its Node with: the kubelet's
// credentials when the node has them (see kubeconfig.LoadNodeWriter), nil
// (the service account's client) otherwise.
func nodeWriter(kubeconfigPath, kubeletKubeconfig, nodeName string) (kubernetes.Interface, error) {
	cfg, ok, err := kubeconfig.LoadNodeWriter(kubeconfigPath, kubeletKubeconfig)
	if err != nil || !ok {
		if err == nil {
			klog.InfoS("No kubelet kubeconfig; the node is written with the pod's service account", "path", kubeletKubeconfig)
		}
		return nil, err
	}
	cfg.UserAgent = name + "/" + nodeName
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("node writer client: %w", err)
	}
	klog.InfoS("Writing the node with the kubelet's credentials", "kubeconfig", kubeletKubeconfig)
	return kc, nil
}
