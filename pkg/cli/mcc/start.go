package mcc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/pkg/controller/masters"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/controller/nodemeta"
	"github.com/tandem-mco/tandem/pkg/controller/render"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/pkg/etcddiscovery"
	"github.com/tandem-mco/tandem/pkg/kubeconfig"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// leaseName is the MCO controller's leader Lease (componentName in
// cmd/machine-config-controller, release-4.21): a stock controller and
// tandem's never lead at once.
const leaseName = name

func newStart(templates, payloadVersion *string, upstream Upstream) *cobra.Command {
	o := &options{templates: templates, payloadVersion: payloadVersion, upstream: upstream}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Starts Machine Config Controller",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			o.cli = cmd.Flags()
			err := run(ctx, *o)
			if errors.Is(err, errRestart) {
				// As the MCO's feature-gate accessor does on a change of
				// feature gates: exit cleanly, and the kubelet starts the
				// container again, which reads the settings afresh.
				klog.InfoS("Exiting to restart with the changed settings")
				return nil
			}
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	o.bindMCO(cmd)
	o.bindTandem(cmd.PersistentFlags())
	return cmd
}

// run reads tandem's settings, runs the controllers with them, and returns
// errRestart once the settings change.
func run(parent context.Context, o options) error {
	if err := o.validate(); err != nil {
		return fmt.Errorf("invalid flags: %w", err)
	}
	cfg, err := kubeconfig.Load(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst
	settingsKube, _, err := clientsFor(cfg, "settings")
	if err != nil {
		return err
	}
	st, err := loadSettings(parent, settingsKube, o)
	if err != nil {
		return err
	}
	ctx, restart := context.WithCancelCause(parent)
	defer restart(nil)
	go watchSettings(ctx, settingsKube, o, st, restart)
	err = runWithSettings(ctx, st.o, cfg, st.problem)
	if errors.Is(context.Cause(ctx), errRestart) && parent.Err() == nil {
		return errRestart
	}
	return err
}

// runWithSettings runs the controllers (under leader election) with o;
// problem, when set, says why the settings ConfigMap was refused, and every
// disruption is held.
func runWithSettings(ctx context.Context, o options, cfg *rest.Config, problem string) error {
	cfg.QPS, cfg.Burst = float32(o.kubeAPIQPS), o.kubeAPIBurst
	// The informers and leader election get clients of their own, as every
	// controller does (clientsFor): Lease renewals must not wait behind a
	// controller's burst of writes.
	kube, mco, err := clientsFor(cfg, "shared-informers")
	if err != nil {
		return err
	}
	election, _, err := clientsFor(cfg, "leader-election")
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics.RegisterBuildInfo(reg, name, *o.payloadVersion)
	settingsInvalid := metrics.NewSettingsInvalid(reg)
	if problem != "" {
		settingsInvalid.Set(1)
	}
	if o.metricsAddr != "" {
		go serveMetrics(ctx, o, reg)
	}
	klog.InfoS("machine-config-controller starting", "payloadVersion", *o.payloadVersion, "templates", *o.templates,
		"upstreamControllers", o.upstream != nil)

	controllers := func(ctx context.Context) error { return runControllers(ctx, o, cfg, kube, mco, reg, problem) }
	if !o.leaderElect {
		return controllers(ctx)
	}
	host, _ := os.Hostname()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.leaseNamespace, Name: leaseName},
		Client:     election.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())},
	}
	// electCtx ends when the controllers stop on their own, so a failed
	// leader releases the Lease instead of holding it idle.
	electCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	var started atomic.Bool
	leaderelection.RunOrDie(electCtx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		ReleaseOnCancel: true,
		LeaseDuration:   o.leaseDuration,
		RenewDeadline:   o.renewDeadline,
		RetryPeriod:     o.retryPeriod,
		Name:            leaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				started.Store(true)
				klog.InfoS("Became leader", "lease", o.leaseNamespace+"/"+leaseName, "identity", lock.Identity())
				done <- controllers(ctx)
				cancel()
			},
			OnStoppedLeading: func() {
				klog.InfoS("Stopped leading", "identity", lock.Identity())
			},
		},
	})
	if !started.Load() {
		return ctx.Err()
	}
	// The controllers stop when leadership ends (their context is cancelled).
	if err := <-done; err != nil {
		return err
	}
	if ctx.Err() == nil {
		// Leadership was lost while we still wanted it: exit so a fresh
		// process competes again with clean caches.
		return errors.New("lost the leader Lease")
	}
	return nil
}

// runControllers starts the informers and the three controllers, and
// returns when ctx ends or one of them fails.
func runControllers(ctx context.Context, o options, cfg *rest.Config, kube kubernetes.Interface, mco mcfgclientset.Interface, reg *prometheus.Registry, problem string) error {
	kubeInformers := informers.NewSharedInformerFactory(kube, o.resync)
	mcoInformers := mcfginformers.NewSharedInformerFactory(mco, o.resync)
	nodeInformer := kubeInformers.Core().V1().Nodes()
	poolInformer := mcoInformers.Machineconfiguration().V1().MachineConfigPools()
	configInformer := mcoInformers.Machineconfiguration().V1().MachineConfigs()

	// One admission per cluster: the node planner and the DPU tenant
	// controller both admit disruption against a pool's maxUnavailable.
	admission := node.NewAdmission()
	mcnInformer := mcoInformers.Machineconfiguration().V1().MachineConfigNodes()
	moscInformer := mcoInformers.Machineconfiguration().V1().MachineOSConfigs()
	nodeOpts := node.Options{Metrics: metrics.NewController(reg), PlanMetrics: metrics.NewPlan(reg), StageMetrics: node.NewStageMetrics(reg), Admission: admission,
		UpdateDelay: o.updateDelay, MachineConfigNodes: mcnInformer, MachineOSConfigs: moscInformer}
	o.dpu.UpdateDelay = o.updateDelay
	etcdRun, closeEtcd, err := etcdSource(ctx, o, cfg, &nodeOpts, metrics.NewEtcdOrdering(reg))
	if err != nil {
		return err
	}
	defer closeEtcd()
	// The DPU controllers share the planner's node informer: the tenant
	// side's veto of a grant relies on the same cache the planner reads.
	gates, gateRuns, err := o.gates.setup(kubeInformers.Core().V1().Pods())
	if err != nil {
		return err
	}
	if problem != "" {
		gates = append(gates, settingsHold{problem: problem})
	}
	if etcdRun != nil {
		gateRuns = append(gateRuns, etcdRun)
	}
	revisionGate, revisionRun, err := etcdRevisionGate(cfg)
	if err != nil {
		return fmt.Errorf("etcd revision gate: %w", err)
	}
	if revisionGate != nil {
		gates = append(gates, revisionGate)
		gateRuns = append(gateRuns, revisionRun)
	}
	// A host update the DPU side coalesces with its maintenance passes the
	// same cluster gates as one the planner grants.
	dpuKube, _, err := clientsFor(cfg, "dpu-controllers")
	if err != nil {
		return err
	}
	dpuGates, dpuRuns, err := o.dpu.Setup(cfg, dpuKube, nodeInformer, poolInformer, configInformer, mcnInformer, admission, gates, reg)
	if err != nil {
		return fmt.Errorf("DPU controllers: %w", err)
	}
	nodeOpts.Gates = append(nodeOpts.Gates, dpuGates...)
	nodeOpts.Gates = append(nodeOpts.Gates, gates...)
	nodeKube, nodeMCO, err := clientsFor(cfg, "node-controller")
	if err != nil {
		return err
	}
	nodeCtrl := node.NewController(nodeKube, nodeMCO, nodeInformer, poolInformer, nodeOpts)
	// tandem's render controller, unless the MCO's own renders (the fork
	// build: its guards and the operator's version stamp).
	var renderRun func(context.Context) error
	if o.upstream == nil || !o.upstream.RendersPools() {
		renderKube, renderMCO, err := clientsFor(cfg, "render-controller")
		if err != nil {
			return err
		}
		renderCtrl, err := render.NewController(renderKube, renderMCO, poolInformer, configInformer, nodeInformer, render.Options{
			ControllerConfigs: mcoInformers.Machineconfiguration().V1().ControllerConfigs(),
		})
		if err != nil {
			return fmt.Errorf("render controller: %w", err)
		}
		renderRun = func(ctx context.Context) error { return renderCtrl.Run(ctx, o.workers) }
	}
	// The MCO's node metadata: UpdateInProgress taint, controlPlaneTopology.
	metaKube, _, err := clientsFor(cfg, "nodemeta-controller")
	if err != nil {
		return err
	}
	metaCtrl, err := nodemeta.NewController(metaKube, nodeInformer, poolInformer, mcoInformers.Machineconfiguration().V1().ControllerConfigs(),
		nodemeta.Options{MachineOSConfigs: moscInformer})
	if err != nil {
		return fmt.Errorf("node metadata controller: %w", err)
	}
	// The MCO's master scheduling: the masters' NoSchedule taint and worker
	// label from the Scheduler's mastersSchedulable.
	mastersKube, _, err := clientsFor(cfg, "masters-controller")
	if err != nil {
		return err
	}
	configClient, err := configclientset.NewForConfig(rest.AddUserAgent(rest.CopyConfig(cfg), "machine-config-controller/masters-controller"))
	if err != nil {
		return fmt.Errorf("config client: %w", err)
	}
	configInformers := configinformers.NewSharedInformerFactory(configClient, o.resync)
	mastersCtrl, err := masters.NewController(mastersKube, nodeInformer, configInformers.Config().V1().Schedulers())
	if err != nil {
		return fmt.Errorf("masters controller: %w", err)
	}
	drainMetrics, err := drain.NewMetrics(reg)
	if err != nil {
		return err
	}
	drainKube, _, err := clientsFor(cfg, "drain-controller")
	if err != nil {
		return err
	}
	drainCtrl, err := drain.NewController(drainKube, nodeInformer, drain.Options{Metrics: drainMetrics})
	if err != nil {
		return fmt.Errorf("drain controller: %w", err)
	}

	kubeInformers.Start(ctx.Done())
	mcoInformers.Start(ctx.Done())
	configInformers.Start(ctx.Done())
	defer kubeInformers.Shutdown()
	defer mcoInformers.Shutdown()
	defer configInformers.Shutdown()

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return nodeCtrl.Run(gctx, o.workers) })
	if renderRun != nil {
		g.Go(func() error { return renderRun(gctx) })
	}
	if o.upstream != nil {
		g.Go(func() error {
			return o.upstream.Run(gctx, UpstreamParams{Config: cfg, Templates: *o.templates, PayloadVersion: *o.payloadVersion})
		})
	}
	g.Go(func() error { return drainCtrl.Run(gctx, o.drainWorkers) })
	g.Go(func() error { return metaCtrl.Run(gctx, 1) })
	g.Go(func() error { return mastersCtrl.Run(gctx, 1) })
	for _, run := range gateRuns {
		g.Go(func() error { return run(gctx) })
	}
	for _, run := range dpuRuns {
		g.Go(func() error { return run(gctx) })
	}
	return g.Wait()
}

// etcdSource sets the node controller's etcd source: the flags' etcd, or
// (without --etcd-endpoints) the cluster's own, found from its objects
// (pkg/etcddiscovery) and read again every --etcd-discovery-interval; run
// (nil with flags) keeps reading them.
func etcdSource(ctx context.Context, o options, cfg *rest.Config, nodeOpts *node.Options, m *metrics.EtcdOrdering) (run func(context.Context) error, closeFn func(), err error) {
	if o.etcd.Enabled() {
		ec, err := etcd.New(o.etcd)
		if err != nil {
			return nil, nil, err
		}
		nodeOpts.Etcd = node.EtcdClientSource{Client: ec}
		m.Set("flags", node.EtcdOrderingFlags, true)
		klog.InfoS("etcd leader ordering on", "endpoints", o.etcd.Endpoints)
		return nil, func() { _ = ec.Close() }, nil
	}
	kube, _, err := clientsFor(cfg, "etcd-discovery")
	if err != nil {
		return nil, nil, err
	}
	src := etcddiscovery.New(kube, etcddiscovery.Options{Interval: o.etcdDiscoveryInterval, Etcd: o.etcd, Metrics: m})
	src.Sync(ctx) // the first plans see the cluster's etcd
	nodeOpts.Etcd = src
	return src.Run, func() { _ = src.Close() }, nil
}

// clientsFor returns clients for one controller, each with its own rate
// limiter (--kube-api-qps and --kube-api-burst) and user agent, as
// kube-controller-manager's client builder gives each of its controllers:
// one shared limiter made every controller's requests queue behind the
// others', and at 2,000 nodes the rollout was paced by it (make
// bench-scale: 41 requests/s for 570 s against a limit of 50).
func clientsFor(cfg *rest.Config, name string) (kubernetes.Interface, mcfgclientset.Interface, error) {
	c := rest.AddUserAgent(rest.CopyConfig(cfg), "machine-config-controller/"+name)
	kube, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, nil, fmt.Errorf("kube client for %s: %w", name, err)
	}
	mco, err := mcfgclientset.NewForConfig(c)
	if err != nil {
		return nil, nil, fmt.Errorf("machineconfiguration client for %s: %w", name, err)
	}
	return kube, mco, nil
}

func serveMetrics(ctx context.Context, o options, reg *prometheus.Registry) {
	addr, profiling := o.metricsAddr, o.profiling
	var gatherer prometheus.Gatherer = reg
	if o.upstream != nil {
		gatherer = firstFamilyWins{reg, o.upstream.Gatherer()}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{Registry: reg}))
	if profiling {
		// The handlers net/http/pprof registers on the default mux, on ours
		// (make bench-scale --controller-profile takes a CPU profile here).
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Addr: addr, Handler: mux, TLSConfig: o.tls.Config(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	klog.InfoS("Serving metrics", "address", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		klog.ErrorS(err, "Metrics server failed")
	}
}
