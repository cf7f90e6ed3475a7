package main

import (
	"context"
	"fmt"
	"sync"

	features "github.com/openshift/api/features"
	bootimagecontroller "github.com/openshift/machine-config-operator/pkg/controller/bootimage"
	"github.com/openshift/machine-config-operator/pkg/controller/bootstrap"
	certrotationcontroller "github.com/openshift/machine-config-operator/pkg/controller/certrotation"
	ctrlcommon "github.com/openshift/machine-config-operator/pkg/controller/common"
	containerruntimeconfig "github.com/openshift/machine-config-operator/pkg/controller/container-runtime-config"
	"github.com/openshift/machine-config-operator/pkg/controller/internalreleaseimage"
	kubeletconfig "github.com/openshift/machine-config-operator/pkg/controller/kubelet-config"
	"github.com/openshift/machine-config-operator/pkg/controller/pinnedimageset"
	"github.com/openshift/machine-config-operator/pkg/controller/render"
	"github.com/openshift/machine-config-operator/pkg/controller/template"
	mcoversion "github.com/openshift/machine-config-operator/pkg/version"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/cli/mcc"
)

// workers per MCO controller, as the MCO's start.go runs them.
const workers = 2

// mcoControllers runs the MCO's controllers that tandem does not replace,
// wired as cmd/machine-config-controller/start.go wires them at the pinned
// commit: template, kubelet-config, container-runtime-config and render
// always, pinnedimageset and internalreleaseimage behind their feature
// gates, bootimage where the platform has boot images to manage, and
// certrotation. The MCO's node and drain controllers are not run: tandem's
// replace them.
type mcoControllers struct{}

var _ mcc.Upstream = mcoControllers{}

func (mcoControllers) RendersPools() bool { return true }

// Gatherer is the registry the MCO's controllers report to (the default).
func (mcoControllers) Gatherer() prometheus.Gatherer { return prometheus.DefaultGatherer }

// registerMetrics registers the MCO controller's series once per process.
var registerMetrics = sync.OnceValue(ctrlcommon.RegisterMCCMetrics)

func (mcoControllers) Run(ctx context.Context, p mcc.UpstreamParams) error {
	// The MCO's controllers read the release version from their package
	// (its --payload-version flag writes it there).
	mcoversion.ReleaseVersion = p.PayloadVersion
	klog.InfoS("Starting the MCO's controllers", "mcoVersion", mcoversion.Raw, "hash", mcoversion.Hash, "payloadVersion", p.PayloadVersion)
	if err := registerMetrics(); err != nil {
		return fmt.Errorf("MCO controller metrics: %w", err)
	}
	c, err := newMCOContext(ctx, p.Config, p.PayloadVersion)
	if err != nil {
		return err
	}
	stop := ctx.Done()
	c.configInformers.Start(stop)
	if err := c.featureGates.Connect(ctx); err != nil {
		return fmt.Errorf("feature gates of release %s: %w", p.PayloadVersion, err)
	}
	controllers, err := c.controllers(p.Templates)
	if err != nil {
		return err
	}
	certs, err := c.certRotation()
	if err != nil {
		return fmt.Errorf("cert rotation controller: %w", err)
	}
	c.start(stop)
	if c.featureGates.Enabled(features.FeatureGatePinnedImages) && c.featureGates.Enabled(features.FeatureGateMachineConfigNodes) {
		controllers = append(controllers, pinnedimageset.New(
			c.mcfgInformers.Machineconfiguration().V1().PinnedImageSets(),
			c.mcfgInformers.Machineconfiguration().V1().MachineConfigPools(),
			kubeClient(c, "pinned-image-set-controller"), mcfgClient(c, "pinned-image-set-controller")))
	}
	if c.featureGates.Enabled(features.FeatureGateNoRegistryClusterInstall) {
		controllers = append(controllers, internalreleaseimage.New(
			c.mcfgInformers.Machineconfiguration().V1alpha1().InternalReleaseImages(),
			c.mcfgInformers.Machineconfiguration().V1().ControllerConfigs(),
			c.mcfgInformers.Machineconfiguration().V1().MachineConfigs(),
			c.configInformers.Config().V1().ClusterVersions(),
			c.kubeInformers.Core().V1().Secrets(),
			kubeClient(c, "internalreleaseimage-controller"), mcfgClient(c, "internalreleaseimage-controller")))
	}
	if c.bootImagesManaged(ctx) {
		boot := bootimagecontroller.New(
			kubeClient(c, "machine-set-boot-image-controller"), machineClient(c, "machine-set-boot-image-controller"),
			c.kubeMCONamespaceInformers.Core().V1().ConfigMaps(),
			c.machineInformers.Machine().V1beta1().MachineSets(),
			c.machineInformers.Machine().V1().ControlPlaneMachineSets(),
			c.configInformers.Config().V1().Infrastructures(),
			operatorClient(c, "machine-config-controller"),
			c.operatorInformers.Operator().V1().MachineConfigurations(),
			c.configInformers.Config().V1().ClusterVersions(),
			c.featureGates)
		go boot.Run(stop)
	}
	// Gated controllers asked for informers after the first start.
	c.start(stop)
	for _, ctrl := range controllers {
		go ctrl.Run(workers, stop)
	}
	go certs.Run(ctx, 1)
	<-ctx.Done()
	return nil
}

// controllers are the ones the MCO always runs, but its node controller.
func (c *mcoContext) controllers(templates string) ([]ctrlcommon.Controller, error) {
	mcfg := c.mcfgInformers.Machineconfiguration().V1()
	cfg := c.configInformers.Config().V1()
	return []ctrlcommon.Controller{
		template.New(templates, mcfg.ControllerConfigs(), mcfg.MachineConfigs(),
			c.kubeOpenShiftConfigInformers.Core().V1().Secrets(), cfg.APIServers(),
			kubeClient(c, "template-controller"), mcfgClient(c, "template-controller")),
		kubeletconfig.New(templates, mcfg.MachineConfigPools(), mcfg.ControllerConfigs(), mcfg.KubeletConfigs(),
			cfg.FeatureGates(), cfg.Nodes(), cfg.APIServers(),
			kubeClient(c, "kubelet-config-controller"), mcfgClient(c, "kubelet-config-controller"),
			configClient(c, "kubelet-config-controller"), c.featureGates),
		containerruntimeconfig.New(templates, mcfg.MachineConfigPools(), mcfg.ControllerConfigs(), mcfg.ContainerRuntimeConfigs(),
			cfg.Images(), cfg.ImageDigestMirrorSets(), cfg.ImageTagMirrorSets(), c.configInformers,
			c.operatorInformers.Operator().V1alpha1().ImageContentSourcePolicies(), cfg.ClusterVersions(),
			kubeClient(c, "container-runtime-config-controller"), mcfgClient(c, "container-runtime-config-controller"),
			configClient(c, "container-runtime-config-controller"), c.featureGates),
		render.New(mcfg.MachineConfigPools(), mcfg.MachineConfigs(), mcfg.ControllerConfigs(), mcfg.ContainerRuntimeConfigs(),
			mcfg.KubeletConfigs(), c.operatorInformers.Operator().V1().MachineConfigurations(),
			c.mcfgInformers.Machineconfiguration().V1alpha1().OSImageStreams(),
			kubeClient(c, "render-controller"), mcfgClient(c, "render-controller"), c.featureGates),
	}, nil
}

func (c *mcoContext) certRotation() (*certrotationcontroller.CertRotationController, error) {
	aro, err := c.aroClient("cert-rotation-controller")
	if err != nil {
		return nil, err
	}
	return certrotationcontroller.New(kubeClient(c, "cert-rotation-controller"), configClient(c, "cert-rotation-controller"),
		machineClient(c, "cert-rotation-controller"), aro,
		c.kubeMachineAPIInformers.Core().V1().Secrets(),
		c.kubeMCONamespaceInformers.Core().V1().Secrets(),
		c.kubeMCONamespaceInformers.Core().V1().ConfigMaps(),
		c.configInformers.Config().V1().Infrastructures())
}

// bootImagesManaged is the MCO's IsBootImageControllerRequired, which takes
// the MCO's context: the Infrastructure's platform supports boot image
// updates under this release's feature gates.
func (c *mcoContext) bootImagesManaged(ctx context.Context) bool {
	infra, err := c.config.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil || infra.Status.PlatformStatus == nil {
		klog.ErrorS(err, "No Infrastructure platform status: the boot image controller does not run")
		return false
	}
	supported, _, _ := ctrlcommon.CheckBootImagePlatform(infra, c.featureGates)
	return supported
}

func (mcoControllers) Bootstrap(_ context.Context, p mcc.BootstrapParams) error {
	// As in Run: the MCO's bootstrap reads the release version from its
	// package (for the feature gates of that release).
	mcoversion.ReleaseVersion = p.PayloadVersion
	klog.InfoS("MCC bootstrap", "mcoVersion", mcoversion.Raw, "hash", mcoversion.Hash, "payloadVersion", p.PayloadVersion)
	if err := bootstrap.New(p.Templates, p.ManifestDir, p.PullSecretFile).Run(p.DestDir); err != nil {
		return fmt.Errorf("MCC bootstrap: %w", err)
	}
	return nil
}
