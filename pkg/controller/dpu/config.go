package dpu

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// Config is the machine-config-controller's DPU configuration (flags).
type Config struct {
	// Tenant: serve HostMaintenance requests in this cluster (needs the CRD).
	Tenant bool
	// TenantKubeconfig, when set, runs the infra side against the tenant
	// cluster it points at (the tandem-dpu-infra identity).
	TenantKubeconfig string
	// Mode: leader or external.
	Mode string
	// RebootHost: ask for the host's reboot after its DPU rebooted.
	RebootHost bool
	// DrainOnDemand: ask for a host's drain only when its DPU's grant is due.
	DrainOnDemand bool
	// HoldThreshold: report a tenant holding an infra update back longer.
	HoldThreshold time.Duration
	// PairingConfigMap: "<namespace>/<name>" of the dpu-network-operator's
	// env-overrides ConfigMap in the infra cluster; empty: annotations only.
	PairingConfigMap string
}

// BindFlags registers the DPU flags on fs.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.Tenant, "dpu-tenant", false, "serve HostMaintenance requests (tenant side of a DPU cluster pair)")
	fs.StringVar(&c.TenantKubeconfig, "dpu-tenant-kubeconfig", "", "kubeconfig of the tenant cluster (infra side of a DPU cluster pair); empty disables the infra side")
	fs.StringVar(&c.Mode, "dpu-mode", string(ModeLeader), "infra side: leader (tandem writes HostMaintenance requests) or external (a coordinator does)")
	fs.BoolVar(&c.RebootHost, "dpu-reboot-host", true, "infra side, leader mode: reboot the tenant host after its DPU rebooted")
	fs.BoolVar(&c.DrainOnDemand, "dpu-drain-on-demand", false, "infra side, leader mode: request a host's drain only when its DPU's grant is due (default: as soon as the DPU needs an update)")
	fs.DurationVar(&c.HoldThreshold, "dpu-hold-threshold", time.Hour, "report a tenant host that holds an infra update back longer than this")
	fs.StringVar(&c.PairingConfigMap, "dpu-pairing-configmap", "", "namespace/name of the dpu-network-operator env-overrides ConfigMap to import TENANT_K8S_NODE pairings from")
}

// Setup builds the DPU controllers this configuration asks for on the
// cluster cfg points at. It returns the gates to add to the node
// controller's Options.Gates and the controllers' Run functions (run each
// until ctx ends, e.g. in the caller's errgroup); both empty when neither
// side is configured. Call it before starting the
// informer factories. admission is the cluster's, shared with the node
// controller (node.Options.Admission): the tenant side admits disruption
// against the same maxUnavailable as the planner.
func (c Config) Setup(cfg *rest.Config, kube kubernetes.Interface, nodes coreinformers.NodeInformer,
	pools mcfginformers.MachineConfigPoolInformer, admission *node.Admission, reg prometheus.Registerer) (gates []node.DisruptionGate, runs []func(context.Context) error, err error) {
	if c.Tenant {
		hm, err := NewHostMaintenances(cfg)
		if err != nil {
			return nil, nil, err
		}
		t, err := NewTenantController(kube, hm, nodes, pools, TenantOptions{Registerer: reg, Admission: admission})
		if err != nil {
			return nil, nil, fmt.Errorf("hostmaintenance controller: %w", err)
		}
		gates = append(gates, t.Gate())
		runs = append(runs, t.Run)
	}
	if c.TenantKubeconfig != "" {
		tcfg, err := clientcmd.BuildConfigFromFlags("", c.TenantKubeconfig)
		if err != nil {
			return nil, nil, fmt.Errorf("tenant kubeconfig %s: %w", c.TenantKubeconfig, err)
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
			DrainOnDemand: c.DrainOnDemand, HoldThreshold: c.HoldThreshold, PairingConfigMap: cm, Registerer: reg})
		if err != nil {
			return nil, nil, fmt.Errorf("dpu pairing controller: %w", err)
		}
		gates = append(gates, i.Gate())
		runs = append(runs, func(ctx context.Context) error { return i.Run(ctx, 2) })
	}
	return gates, runs, nil
}
