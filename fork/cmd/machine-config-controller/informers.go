package main

import (
	"context"
	"fmt"
	"time"

	aroclientset "github.com/Azure/ARO-RP/pkg/operator/clientset/versioned"
	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	machineclientset "github.com/openshift/client-go/machine/clientset/versioned"
	machineinformers "github.com/openshift/client-go/machine/informers/externalversions"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"github.com/openshift/library-go/pkg/operator/configobserver/featuregates"
	"github.com/openshift/library-go/pkg/operator/events"
	ctrlcommon "github.com/openshift/machine-config-operator/pkg/controller/common"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// resync is the MCO's minimum informer resync (pkg/controller/common
// controller_context.go, release-4.21: 20 minutes, jittered up to 2x there).
const resync = 20 * time.Minute

// mcoContext is the part of the MCO's ControllerContext that its
// non-node controllers use. The MCO builds it from a clients.Builder in an
// internal package, which another module cannot import; this builds the
// same factories (same namespaces and filters) from a rest.Config.
type mcoContext struct {
	cfg *rest.Config

	kube     kubernetes.Interface
	mcfg     mcfgclientset.Interface
	config   configclientset.Interface
	operator operatorclientset.Interface
	machine  machineclientset.Interface

	mcfgInformers                mcfginformers.SharedInformerFactory
	kubeInformers                informers.SharedInformerFactory
	kubeMCONamespaceInformers    informers.SharedInformerFactory
	kubeOpenShiftConfigInformers informers.SharedInformerFactory
	kubeMachineAPIInformers      informers.SharedInformerFactory
	configInformers              configinformers.SharedInformerFactory
	operatorInformers            operatorinformers.SharedInformerFactory
	machineInformers             machineinformers.SharedInformerFactory
	featureGates                 ctrlcommon.FeatureGatesHandler
}

// client returns a config with the MCO's user agent for one controller.
func (c *mcoContext) client(name string) *rest.Config {
	return rest.AddUserAgent(rest.CopyConfig(c.cfg), name)
}

func newMCOContext(ctx context.Context, cfg *rest.Config, releaseVersion string) (*mcoContext, error) {
	c := &mcoContext{cfg: cfg}
	var err error
	if c.kube, err = kubernetes.NewForConfig(c.client("kube-shared-informer")); err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	if c.mcfg, err = mcfgclientset.NewForConfig(c.client("machine-config-shared-informer")); err != nil {
		return nil, fmt.Errorf("machineconfiguration client: %w", err)
	}
	if c.config, err = configclientset.NewForConfig(c.client("config-shared-informer")); err != nil {
		return nil, fmt.Errorf("config client: %w", err)
	}
	if c.operator, err = operatorclientset.NewForConfig(c.client("operator-shared-informer")); err != nil {
		return nil, fmt.Errorf("operator client: %w", err)
	}
	if c.machine, err = machineclientset.NewForConfig(c.client("machine-shared-informer")); err != nil {
		return nil, fmt.Errorf("machine client: %w", err)
	}
	c.mcfgInformers = mcfginformers.NewSharedInformerFactory(c.mcfg, resync)
	c.kubeInformers = informers.NewSharedInformerFactory(c.kube, resync)
	c.kubeMCONamespaceInformers = informers.NewSharedInformerFactoryWithOptions(c.kube, resync, informers.WithNamespace(ctrlcommon.MCONamespace))
	c.kubeOpenShiftConfigInformers = informers.NewSharedInformerFactoryWithOptions(c.kube, resync, informers.WithNamespace(ctrlcommon.OpenshiftConfigNamespace))
	// The MCO watches the machine API's user-data secrets, which it manages.
	c.kubeMachineAPIInformers = informers.NewSharedInformerFactoryWithOptions(c.kube, resync, informers.WithNamespace("openshift-machine-api"))
	c.configInformers = configinformers.NewSharedInformerFactory(c.config, resync)
	c.operatorInformers = operatorinformers.NewSharedInformerFactory(c.operator, resync)
	c.machineInformers = machineinformers.NewSharedInformerFactoryWithOptions(c.machine, resync, machineinformers.WithNamespace("openshift-machine-api"))

	// The feature gates of this release, as the MCO's context reads them
	// (the FeatureGate's status for the release version; the accessor exits
	// the process when they change, and the new process reads them again).
	// As the MCO's context: the pod's controller (POD_NAME), else a guess,
	// else the namespace; the recorder needs an object either way.
	ref, err := events.GetControllerReferenceForCurrentPod(ctx, c.kube, ctrlcommon.MCONamespace, nil)
	if err != nil {
		klog.InfoS("No owner reference for events; they name the namespace", "err", err)
	}
	recorder := events.NewKubeRecorder(c.kube.CoreV1().Events(ctrlcommon.MCONamespace), "machine-config-operator", ref, clock.RealClock{})
	accessor := featuregates.NewFeatureGateAccess(releaseVersion, "0.0.1-snapshot",
		c.configInformers.Config().V1().ClusterVersions(), c.configInformers.Config().V1().FeatureGates(), recorder)
	go accessor.Run(ctx)
	c.featureGates = ctrlcommon.NewFeatureGatesAccessHandler(accessor)
	return c, nil
}

func (c *mcoContext) aroClient(name string) (aroclientset.Interface, error) {
	return aroclientset.NewForConfig(c.client(name))
}

// start starts every factory; a factory started again starts only the
// informers asked for since (the MCO starts them again after gated
// controllers are made).
func (c *mcoContext) start(stop <-chan struct{}) {
	c.mcfgInformers.Start(stop)
	c.kubeInformers.Start(stop)
	c.kubeMCONamespaceInformers.Start(stop)
	c.kubeOpenShiftConfigInformers.Start(stop)
	c.kubeMachineAPIInformers.Start(stop)
	c.configInformers.Start(stop)
	c.operatorInformers.Start(stop)
	c.machineInformers.Start(stop)
}
