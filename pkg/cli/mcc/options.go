package mcc

import (
	goflag "flag"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/cli/clicommon"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/pkg/etcddiscovery"
)

type options struct {
	// The MCO's (cmd/machine-config-controller/start.go, release-4.21).
	kubeconfig     string
	leaseNamespace string
	metricsAddr    string
	tls            clicommon.TLSFlags
	templates      *string
	payloadVersion *string

	// settingsName is tandem's ConfigMap of settings, in leaseNamespace.
	// Command line only: it says where the other settings are.
	settingsName string

	// tandem's settings: flags, or keys of the settings ConfigMap (bindTandem).
	kubeAPIQPS            float64
	kubeAPIBurst          int
	workers               int
	drainWorkers          int
	profiling             bool
	updateDelay           time.Duration
	resync                time.Duration
	leaderElect           bool
	leaseDuration         time.Duration
	renewDeadline         time.Duration
	retryPeriod           time.Duration
	etcdDiscoveryInterval time.Duration
	etcd                  etcd.Config
	dpu                   dpu.Config
	gates                 gateFlags

	upstream Upstream
	// cli is the parsed command line: which settings it gave (they
	// override the ConfigMap's).
	cli *pflag.FlagSet
}

// bindMCO binds the MCO's flags, which only the command line sets (its
// operator's Deployment does), and --tandem-settings.
func (o *options) bindMCO(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "Kubeconfig file to access a remote cluster (testing only); empty: in-cluster config")
	f.StringVar(&o.leaseNamespace, "resourcelock-namespace", metav1.NamespaceSystem, "namespace of the leader Lease "+leaseName+" and of tandem's settings ConfigMap")
	f.StringVar(&o.metricsAddr, "metrics-listen-address", "127.0.0.1:8797", "Listen address for the Prometheus metrics listener (plain HTTP; the Deployment's kube-rbac-proxy serves it with TLS); empty disables it")
	o.tls.Bind(cmd)
	f.StringVar(&o.settingsName, settingsFlag, DefaultSettingsName, "ConfigMap in --resourcelock-namespace whose keys set tandem's settings (its flags' names without the dashes); flags given here override it; a change restarts the controller; empty: none (docs/controller-settings.md)")
}

// bindTandem binds tandem's settings: the flags the settings ConfigMap may
// set too. It sets every one to its default.
func (o *options) bindTandem(f *pflag.FlagSet) {
	// kube-controller-manager's defaults: client-go's own (5 QPS, burst 10)
	// would pace a 1,000-node stage wave at 200 s (make bench-scale).
	f.Float64Var(&o.kubeAPIQPS, "kube-api-qps", 50, "queries per second to the apiserver")
	f.IntVar(&o.kubeAPIBurst, "kube-api-burst", 100, "burst of queries to the apiserver")
	f.IntVar(&o.workers, "workers", 5, "workers per controller (but the drain controller's)")
	f.IntVar(&o.drainWorkers, "drain-workers", 32, "drain controller workers: drains and uncordons served at once (a drain waits on evictions, holding its worker up to 90s when a PodDisruptionBudget refuses one)")
	f.BoolVar(&o.profiling, "profiling", false, "also serve Go's profiles under /debug/pprof/ on --metrics-listen-address (as kube-controller-manager's --profiling; off by default, since a profile is expensive to take)")
	f.DurationVar(&o.updateDelay, "node-update-delay", 500*time.Millisecond, "how long a node's change waits before its pool is planned, so that the changes of one moment are planned together (the MCO's node controller waits 5s); 0 plans at once")
	f.DurationVar(&o.resync, "informer-resync", 10*time.Minute, "informer resync period")
	f.BoolVar(&o.leaderElect, "leader-elect", true, "run only while holding the leader Lease")
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 137*time.Second, "leader Lease duration (OpenShift's recommended values)")
	f.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 107*time.Second, "leader renew deadline")
	f.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 26*time.Second, "leader retry period")
	f.DurationVar(&o.etcdDiscoveryInterval, "etcd-discovery-interval", etcddiscovery.DefaultInterval, "without --etcd-endpoints: how often the cluster's etcd objects (openshift-etcd/etcd-endpoints, openshift-config/etcd-client, openshift-config/etcd-ca-bundle) are read again")
	// etcd, DPU and gate flags are Go flag sets of their packages.
	gofs := goflag.NewFlagSet("start", goflag.ContinueOnError)
	o.etcd.BindFlags(gofs)
	o.dpu.BindFlags(gofs)
	o.gates.bind(gofs)
	f.AddGoFlagSet(gofs)
}

// clone copies o so that changing the copy's settings leaves o alone: the
// slices are copied too (keep this in step with the fields).
func (o options) clone() options {
	c := o
	c.tls.CipherSuites = slices.Clone(o.tls.CipherSuites)
	c.etcd.Endpoints = slices.Clone(o.etcd.Endpoints)
	c.gates.blockingPodSelectors = slices.Clone(o.gates.blockingPodSelectors)
	return c
}
