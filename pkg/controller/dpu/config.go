package dpu

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// Config is the machine-config-controller's DPU configuration (flags).
type Config struct {
	// Tenant: serve HostMaintenance requests in this cluster (needs the CRD).
	Tenant bool
	// TenantKubeconfig, when set, runs the infra side against the tenant
	// cluster it points at (the tandem-dpu-infra identity).
	TenantKubeconfig string
	// TenantKubeconfigSecret names a Secret in the controller's namespace
	// whose key "kubeconfig" is the tenant cluster's kubeconfig: the infra
	// side's credentials where no file can be mounted (the MCO's Deployment).
	// The caller reads it into TenantRESTConfig.
	TenantKubeconfigSecret string
	// TenantRESTConfig, when set, runs the infra side against that cluster
	// (read from TenantKubeconfigSecret); not a flag.
	TenantRESTConfig *rest.Config
	// Mode: leader or external.
	Mode string
	// UpdateDelay: TenantOptions.UpdateDelay (the controller's
	// --node-update-delay, shared with the node controller).
	UpdateDelay time.Duration
	// RebootHost: ask for the host's reboot after its DPU rebooted.
	RebootHost bool
	// DrainOnDemand: ask for a host's drain only when its DPU's grant is due.
	DrainOnDemand bool
	// HoldThreshold: report a tenant holding an infra update back longer.
	HoldThreshold time.Duration
	// PairingConfigMap: "<namespace>/<name>" of the dpu-network-operator's
	// env-overrides ConfigMap in the infra cluster; empty: annotations only.
	PairingConfigMap string
	// AnnounceWait (tenant): how long a paired host's new update waits for
	// its DPU to ask for maintenance, so that one drain serves both.
	AnnounceWait time.Duration
	// NodeMaintenance (tenant): serve the dpu-network-operator's medik8s
	// NodeMaintenance objects: "auto" (when the API is served), "true", "false".
	NodeMaintenance string
	// OutageGrace and OutageRecovery (infra): a DPU down this long gets its
	// host tainted; back this long, the taint goes.
	OutageGrace, OutageRecovery time.Duration
	// RequiredDaemonSets (infra): comma-separated namespace/name of the
	// DaemonSets a DPU must run a Ready pod of to count as up.
	RequiredDaemonSets string
}

// BindFlags registers the DPU flags on fs.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.Tenant, "dpu-tenant", false, "serve HostMaintenance requests (tenant side of a DPU cluster pair)")
	fs.StringVar(&c.TenantKubeconfig, "dpu-tenant-kubeconfig", "", "kubeconfig of the tenant cluster (infra side of a DPU cluster pair); empty disables the infra side")
	fs.StringVar(&c.TenantKubeconfigSecret, TenantKubeconfigSecretFlag, "", "name of a Secret in the controller's namespace (--resourcelock-namespace) whose key kubeconfig is a self-contained kubeconfig of the tenant cluster (infra side, instead of --dpu-tenant-kubeconfig)")
	fs.StringVar(&c.Mode, "dpu-mode", string(ModeLeader), "infra side: leader (tandem writes HostMaintenance requests) or external (a coordinator does)")
	fs.BoolVar(&c.RebootHost, "dpu-reboot-host", true, "infra side, leader mode: reboot the tenant host after its DPU rebooted")
	fs.BoolVar(&c.DrainOnDemand, "dpu-drain-on-demand", false, "infra side, leader mode: request a host's drain only when its DPU's grant is due (default: as soon as the DPU needs an update)")
	fs.DurationVar(&c.HoldThreshold, "dpu-hold-threshold", time.Hour, "report a tenant host that holds an infra update back longer than this")
	fs.StringVar(&c.PairingConfigMap, "dpu-pairing-configmap", "", "namespace/name of the dpu-network-operator env-overrides ConfigMap to import TENANT_K8S_NODE pairings from")
	fs.DurationVar(&c.AnnounceWait, "dpu-announce-wait", 2*time.Minute, "tenant side: how long a DPU host's new update waits for its DPU to ask for maintenance, so that one drain and one reboot serve both (0: no wait)")
	fs.StringVar(&c.NodeMaintenance, "dpu-node-maintenance", "auto", "tenant side: serve the dpu-network-operator's NodeMaintenance objects (dpu-tenant-<host>) as Drain holds: auto (if the API is served), true or false")
	fs.DurationVar(&c.OutageGrace, "dpu-outage-grace", time.Minute, "infra side: taint the tenant host NoSchedule once its DPU has been down this long (0: never)")
	fs.DurationVar(&c.OutageRecovery, "dpu-outage-recovery", 30*time.Second, "infra side: remove the taint once the DPU has been back this long")
	fs.StringVar(&c.RequiredDaemonSets, "dpu-required-daemonsets", "", "infra side: comma-separated namespace/name of DaemonSets that must run a Ready pod on a DPU for it to count as up")
}

// TenantKubeconfigSecretFlag is the flag (and ConfigMap key) naming the
// tenant kubeconfig's Secret; TenantKubeconfigSecretKey its key.
const (
	TenantKubeconfigSecretFlag = "dpu-tenant-kubeconfig-secret"
	TenantKubeconfigSecretKey  = "kubeconfig"
)

// Validate checks the values without I/O; each error names its flag
// (flagerr).
func (c Config) Validate() error {
	var errs []error
	switch Mode(c.Mode) {
	case ModeLeader, ModeExternal:
	default:
		errs = append(errs, flagerr.New("dpu-mode", "%q: want %s or %s", c.Mode, ModeLeader, ModeExternal))
	}
	switch c.NodeMaintenance {
	case "auto", "true", "false", "":
	default:
		errs = append(errs, flagerr.New("dpu-node-maintenance", "%q: want auto, true or false", c.NodeMaintenance))
	}
	if _, err := c.requiredDaemonSets(); err != nil {
		errs = append(errs, flagerr.New("dpu-required-daemonsets", "%q: want namespace/name[,namespace/name...]", c.RequiredDaemonSets))
	}
	if c.PairingConfigMap != "" {
		if ns, name, ok := strings.Cut(c.PairingConfigMap, "/"); !ok || ns == "" || name == "" {
			errs = append(errs, flagerr.New("dpu-pairing-configmap", "%q: want namespace/name", c.PairingConfigMap))
		}
	}
	if c.TenantKubeconfig != "" && c.TenantKubeconfigSecret != "" {
		errs = append(errs, flagerr.New(TenantKubeconfigSecretFlag, "give the tenant's kubeconfig as a file (--dpu-tenant-kubeconfig) or a Secret, not both"))
	}
	for name, d := range map[string]time.Duration{"dpu-hold-threshold": c.HoldThreshold, "dpu-announce-wait": c.AnnounceWait,
		"dpu-outage-grace": c.OutageGrace, "dpu-outage-recovery": c.OutageRecovery} {
		if d < 0 {
			errs = append(errs, flagerr.New(name, "%s is negative", d))
		}
	}
	return errors.Join(errs...)
}

// infraSide reports whether the infra side is configured.
func (c Config) infraSide() bool { return c.TenantKubeconfig != "" || c.TenantRESTConfig != nil }

// announceWait maps the flag's 0 ("no wait") to the options' negative.
func (c Config) announceWait() time.Duration {
	if c.AnnounceWait == 0 {
		return -1
	}
	return c.AnnounceWait
}

// outageGrace maps the flag's 0 ("never") to the options' negative.
func (c Config) outageGrace() time.Duration {
	if c.OutageGrace == 0 {
		return -1
	}
	return c.OutageGrace
}

// requiredDaemonSets parses RequiredDaemonSets.
func (c Config) requiredDaemonSets() ([]types.NamespacedName, error) {
	var out []types.NamespacedName
	for _, s := range strings.Split(c.RequiredDaemonSets, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		ns, name, ok := strings.Cut(s, "/")
		if !ok || ns == "" || name == "" {
			return nil, fmt.Errorf("--dpu-required-daemonsets %q: want namespace/name[,namespace/name...]", c.RequiredDaemonSets)
		}
		out = append(out, types.NamespacedName{Namespace: ns, Name: name})
	}
	return out, nil
}

// nodeMaintenances returns the client to serve NodeMaintenance objects
// with, or nil when they are not served.
func (c Config) nodeMaintenances(cfg *rest.Config) (dynamic.Interface, error) {
	switch c.NodeMaintenance {
	case "false":
		return nil, nil
	case "true", "auto", "":
	default:
		return nil, fmt.Errorf("--dpu-node-maintenance %q: want auto, true or false", c.NodeMaintenance)
	}
	if c.NodeMaintenance != "true" {
		d, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return nil, err
		}
		served, err := discovery.IsResourceEnabled(d, NodeMaintenanceGVR)
		if err != nil {
			return nil, fmt.Errorf("discovering %s: %w", NodeMaintenanceGVR.GroupVersion(), err)
		}
		if !served {
			klog.InfoS("The NodeMaintenance API is not served; not serving the dpu-network-operator's NodeMaintenance objects",
				"api", NodeMaintenanceGVR.GroupVersion().String())
			return nil, nil
		}
	}
	return dynamic.NewForConfig(cfg)
}

// Setup builds the DPU controllers this configuration asks for on the
// cluster cfg points at. It returns the gates to add to the node
// controller's Options.Gates and the controllers' Run functions (run each
// until ctx ends, e.g. in the caller's errgroup); both empty when neither
// side is configured. Call it before starting the
// informer factories; mcns tell the breakers since when a node is Degraded
// (nil: not read). admission is the cluster's, shared with the node
// controller (node.Options.Admission): the tenant side admits disruption
// against the same maxUnavailable as the planner. updateGates are the
// cluster's other gates, which a host update coalesced with a maintenance
// must pass too (TenantOptions.UpdateGates).
func (c Config) Setup(cfg *rest.Config, kube kubernetes.Interface, nodes coreinformers.NodeInformer,
	pools mcfginformers.MachineConfigPoolInformer, configs mcfginformers.MachineConfigInformer,
	mcns mcfginformers.MachineConfigNodeInformer, admission *node.Admission,
	updateGates []node.DisruptionGate, reg prometheus.Registerer) (gates []node.DisruptionGate, runs []func(context.Context) error, err error) {
	required, err := c.requiredDaemonSets()
	if err != nil {
		return nil, nil, err
	}
	if c.Tenant {
		hm, err := NewHostMaintenances(cfg)
		if err != nil {
			return nil, nil, err
		}
		nms, err := c.nodeMaintenances(cfg)
		if err != nil {
			return nil, nil, err
		}
		release, err := ClusterVersionRelease(cfg)
		if err != nil {
			return nil, nil, err
		}
		t, err := NewTenantController(kube, hm, nodes, pools, TenantOptions{Registerer: reg, Admission: admission,
			AnnounceWait: c.announceWait(), MachineConfigs: configs, MachineConfigNodes: mcns, NodeMaintenances: nms, UpdateGates: updateGates,
			UpdateDelay: c.UpdateDelay, DesiredRelease: release})
		if err != nil {
			return nil, nil, fmt.Errorf("hostmaintenance controller: %w", err)
		}
		gates = append(gates, t.Gate())
		runs = append(runs, t.Run)
	}
	if c.infraSide() {
		tcfg := c.TenantRESTConfig
		if tcfg == nil {
			if tcfg, err = clientcmd.BuildConfigFromFlags("", c.TenantKubeconfig); err != nil {
				return nil, nil, fmt.Errorf("tenant kubeconfig %s: %w", c.TenantKubeconfig, err)
			}
		}
		hm, err := NewHostMaintenances(tcfg)
		if err != nil {
			return nil, nil, err
		}
		var cm types.NamespacedName
		if c.PairingConfigMap != "" {
			ns, name, ok := strings.Cut(c.PairingConfigMap, "/")
			if !ok || ns == "" || name == "" {
				return nil, nil, fmt.Errorf("--dpu-pairing-configmap %q: want namespace/name", c.PairingConfigMap)
			}
			cm = types.NamespacedName{Namespace: ns, Name: name}
		}
		i, err := NewInfraController(kube, hm, nodes, pools, InfraOptions{Mode: Mode(c.Mode), DisableHostReboot: !c.RebootHost,
			DrainOnDemand: c.DrainOnDemand, HoldThreshold: c.HoldThreshold, PairingConfigMap: cm, Registerer: reg,
			OutageGrace: c.outageGrace(), OutageRecovery: c.OutageRecovery, RequiredDaemonSets: required})
		if err != nil {
			return nil, nil, fmt.Errorf("dpu pairing controller: %w", err)
		}
		gates = append(gates, i.Gate())
		runs = append(runs, func(ctx context.Context) error { return i.Run(ctx, 2) })
	}
	return gates, runs, nil
}
