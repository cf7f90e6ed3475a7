// Command machine-config-daemon is tandem's node agent: it stages the next
// OS ahead of the disruption, then drains, writes the MachineConfig's files
// and units and reboots into the staged OS when the controller grants it.
package main

import (
	"context"
	"errors"
	"flag"
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
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/extensions"
	"github.com/tandem-mco/tandem/pkg/daemon/host"
	"github.com/tandem-mco/tandem/pkg/daemon/kube"
	"github.com/tandem-mco/tandem/pkg/daemon/osupdate"
	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/pkg/kubeconfig"
	"github.com/tandem-mco/tandem/pkg/metrics"
	"github.com/tandem-mco/tandem/pkg/version"
)

type flags struct {
	nodeName          string
	kubeconfig        string
	root              string
	ioPolicy          string
	metricsAddr       string
	hostKind          string
	rebootFile        string
	bootIDFile        string
	cmdline           string
	rpmOstree         string
	sysroot           string
	ioUnit            string
	etcdMetrics       string
	hostRun           string
	rpmOstreedPIDFile string
	resync            time.Duration
	updateOrder       string
	version           bool
	kubeletURL        string
}

func parseFlags() *flags {
	f := &flags{}
	klog.InitFlags(nil)
	flag.StringVar(&f.nodeName, "node-name", os.Getenv("NODE_NAME"), "name of the Node this daemon manages (default $NODE_NAME)")
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file; empty: in-cluster config")
	flag.StringVar(&f.root, "root", "/", "root prefix of every file the daemon writes (its state lives under <root>"+daemon.StateDir+")")
	flag.StringVar(&f.ioPolicy, "io-policy", iso.DefaultPolicyName(), fmt.Sprintf("staging I/O policy when the node names none (%v); a governed policy may name its target after @: a multiple of etcd's idle WAL fsync p99 measured at the stage's start (adaptive@3x; default %gx, at most %v) or a latency (adaptive@5ms)", iso.PolicyNames(), iso.DefaultTargetIdleMultiple, iso.DefaultTargetCeiling))
	flag.StringVar(&f.metricsAddr, "metrics-addr", "127.0.0.1:8797", "address of the Prometheus /metrics endpoint; empty disables it")
	flag.StringVar(&f.hostKind, "host", "systemd", "host actions: systemd (D-Bus) or harness (simulated node: reboot through --reboot-file)")
	flag.StringVar(&f.rebootFile, "reboot-file", os.Getenv("TANDEM_OSDOUBLE_REBOOT_FILE"), "with --host=harness: file whose creation asks the harness to reboot")
	flag.StringVar(&f.bootIDFile, "boot-id-file", "/proc/sys/kernel/random/boot_id", "file holding the current boot's id")
	flag.StringVar(&f.cmdline, "cmdline-file", "/proc/cmdline", "the running kernel's command line, checked against the config's kernel arguments; empty: not checked")
	flag.StringVar(&f.rpmOstree, "rpm-ostree", "rpm-ostree", "rpm-ostree binary")
	flag.StringVar(&f.sysroot, "sysroot", "/sysroot", "the OS sysroot (its repo config is tuned by the I/O policy)")
	flag.StringVar(&f.ioUnit, "io-unit", "", "systemd unit whose I/O the policy limits (rpm-ostreed.service in production); empty: a cgroup made for rpm-ostree's transaction daemon (--rpm-ostreed-pid-file)")
	flag.StringVar(&f.etcdMetrics, "etcd-metrics-url", "", "etcd's /metrics on this node, for the adaptive I/O governor (etcd's WAL fsync latency); empty: the disk's latency from /proc/diskstats")
	flag.StringVar(&f.hostRun, "host-run", "/run", "the host's /run as the daemon sees it (ostree's staged deployment and its finalization lock live there)")
	flag.StringVar(&f.rpmOstreedPIDFile, "rpm-ostreed-pid-file", "", "on hosts without systemd: pid file of rpm-ostree's transaction daemon, which the I/O policy then limits; empty: --io-unit or no process limits")
	flag.DurationVar(&f.resync, "resync", time.Minute, "longest wait between two observations without a node event")
	flag.StringVar(&f.updateOrder, "update-order", string(daemon.OrderStaged),
		"when the OS is pulled and staged: staged (tandem: before the drain, on stageConfig) or stock "+
			"(a stock MCO's order: after the drain, stageConfig ignored; the baseline of make bench-disruption)")
	flag.StringVar(&f.kubeletURL, "kubelet-healthz-endpoint", "http://localhost:10248/healthz", "kubelet healthz endpoint polled for mcd_kubelet_state (as the MCO's daemon); empty disables")
	flag.BoolVar(&f.version, "version", false, "print the version and the commit this binary was built from, and exit")
	flag.Parse()
	return f
}

func main() {
	f := parseFlags()
	if f.version {
		fmt.Println(version.Get().String("machine-config-daemon"))
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, f); err != nil {
		klog.ErrorS(err, "machine-config-daemon failed")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func run(ctx context.Context, f *flags) error {
	// A stage interrupted by a crash left its I/O knobs (disk queue, BDI,
	// cgroups, unit properties) changed: put them back first, before
	// anything that needs the cluster.
	ioOpts := iso.Options{Sysroot: f.sysroot, Unit: f.ioUnit, StateDir: filepath.Join(f.root, daemon.StateDir, "iso"), EtcdMetricsURL: f.etcdMetrics}
	if restored, err := iso.RestoreInterrupted(ctx, ioOpts); err != nil {
		klog.ErrorS(err, "Restoring the I/O knobs of an interrupted stage failed; staging is refused until they are restored")
	} else if len(restored) > 0 {
		klog.InfoS("Restored the I/O knobs of an interrupted stage", "knobs", len(restored))
	}
	if f.nodeName == "" {
		return errors.New("--node-name (or $NODE_NAME) is required")
	}
	cfg, err := kubeconfig.Load(f.kubeconfig)
	if err != nil {
		return err
	}
	// One node's daemon makes a handful of requests per step; client-go's
	// default 5 QPS would pace every step at ~0.5 s.
	cfg.QPS, cfg.Burst = 20, 40
	cfg.UserAgent = "machine-config-daemon/" + f.nodeName
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
	var h daemon.Host
	switch f.hostKind {
	case "systemd":
		h = host.Systemd{}
	case "harness":
		h = host.Harness{RebootFile: f.rebootFile}
	default:
		return fmt.Errorf("--host=%s: want systemd or harness", f.hostKind)
	}
	order, err := daemon.ParseUpdateOrder(f.updateOrder)
	if err != nil {
		return fmt.Errorf("--update-order: %w", err)
	}
	pol, err := iso.ParsePolicy(f.ioPolicy, ioOpts)
	if err != nil {
		return fmt.Errorf("--io-policy: %w", err)
	}
	if f.ioUnit != "" {
		// The staging unit's drop-ins, before anything is staged: they live
		// in /run, so every boot needs them laid again.
		if _, err := iso.LayUnitDropIns(ctx, f.root, f.ioUnit, pol, true); err != nil {
			klog.ErrorS(err, "Laying the staging unit's drop-ins failed; staging goes on without them", "unit", f.ioUnit)
		}
	}
	osa := osupdate.New(osupdate.Options{
		Binary:        f.rpmOstree,
		DefaultPolicy: f.ioPolicy,
		PolicyOptions: ioOpts,
		HostRun:       f.hostRun,
		DaemonPIDFile: f.rpmOstreedPIDFile,
	})

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := metrics.NewDaemon(reg)
	m.SetHostOS(f.root)
	if f.kubeletURL != "" {
		go daemon.KubeletHealth{URL: f.kubeletURL, Failures: m.MCO.KubeletState}.Run(ctx)
	}
	if f.metricsAddr != "" {
		srv := &http.Server{Addr: f.metricsAddr, Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "metrics server")
			}
		}()
		defer srv.Close()
	}

	cluster := &kube.Client{
		Kube: kc, MCO: mc, Operator: op, NodeName: f.nodeName,
		AllConditionTypes: daemon.AllConditionTypes, IsProgress: daemon.IsProgressCondition,
	}
	cluster.WatchConfigs(ctx)
	wake := make(chan struct{}, 1)
	go cluster.WatchNode(ctx, wake)

	var hook daemon.Hook
	if dir := os.Getenv(EnvTestHookDir); dir != "" {
		hook = fileHook(dir)
	}
	d, err := daemon.New(daemon.Options{
		NodeName: f.nodeName, Root: f.root, BootIDFile: f.bootIDFile, CmdlineFile: f.cmdline,
		Cluster: cluster, OS: osa, Host: h, Metrics: m, Hook: hook,
		Wake: wake, Resync: f.resync, Order: order,
		Extensions: &extensions.Repo{Root: f.root, HostRun: f.hostRun},
	})
	if err != nil {
		return err
	}
	klog.InfoS("machine-config-daemon starting", "node", f.nodeName, "root", f.root, "ioPolicy", f.ioPolicy, "host", f.hostKind, "updateOrder", order)
	return d.Run(ctx)
}
