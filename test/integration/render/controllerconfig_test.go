//go:build integration

package render_test

import (
	"context"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/render"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcooracle"
)

// TestRenderWithControllerConfig: without a ControllerConfig the pool renders
// standalone and its status says so; once the MCO's ControllerConfig exists,
// the pool re-renders with it, under the name the MCO gives that input
// (test/mcooracle), and gets the certificate expiries; when it goes, the
// pool falls back and says so again.
func TestRenderWithControllerConfig(t *testing.T) {
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "render-cc"})
	e := env{t: t, cp: cp}
	mco := cp.MCO.MachineconfigurationV1()
	mcfgFactory := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	kubeFactory := informers.NewSharedInformerFactory(cp.Kube, 0)
	ctrl, err := render.NewController(cp.Kube, cp.MCO,
		mcfgFactory.Machineconfiguration().V1().MachineConfigPools(),
		mcfgFactory.Machineconfiguration().V1().MachineConfigs(),
		kubeFactory.Core().V1().Nodes(),
		render.Options{RenderDelay: -1, GCGracePeriod: -1, ControllerConfigs: mcfgFactory.Machineconfiguration().V1().ControllerConfigs()})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	t.Cleanup(func() { stop(); <-done })
	mcfgFactory.Start(runCtx.Done())
	kubeFactory.Start(runCtx.Done())
	go func() { done <- ctrl.Run(runCtx, 1) }()

	src := machineConfig("00-worker", "worker", fileConfig("/etc/tandem/a", "one"), "nosmt")
	if _, err := mco.MachineConfigs().Create(ctx, src, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := mco.MachineConfigPools().Create(ctx, pool("worker", "worker"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	inputs := func(p *mcfgv1.MachineConfigPool) *mcfgv1.MachineConfigPoolCondition {
		return render.GetCondition(&p.Status, constants.PoolControllerConfigCondition)
	}
	standalone, err := mcooracle.Render("worker", []*mcfgv1.MachineConfig{src}, mcfgv1.ControllerConfigSpec{})
	if err != nil {
		t.Fatal(err)
	}
	p := e.waitPool(within(t, 2*time.Minute), "worker", "standalone render, said so", func(p *mcfgv1.MachineConfigPool) bool {
		c := inputs(p)
		return p.Spec.Configuration.Name != "" && c != nil && c.Status == corev1.ConditionFalse && c.Reason == render.ReasonControllerConfigNotFound
	})
	if p.Spec.Configuration.Name != standalone.Name {
		t.Fatalf("standalone name %s, the MCO's for an empty ControllerConfig %s", p.Spec.Configuration.Name, standalone.Name)
	}

	notAfter := metav1.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	cc := &mcfgv1.ControllerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: render.ControllerConfigName},
		Spec: mcfgv1.ControllerConfigSpec{
			ClusterDNSIP: "172.30.0.10", IPFamilies: mcfgv1.IPFamiliesIPv4,
			BaseOSContainerImage:           "registry.test/rhcos@sha256:" + repeat("1"),
			BaseOSExtensionsContainerImage: "registry.test/ext@sha256:" + repeat("2"),
			ReleaseImage:                   "registry.test/release@sha256:" + repeat("3"),
			KubeAPIServerServingCAData:     []byte("ca"), RootCAData: []byte("root"), AdditionalTrustBundle: []byte("b"), CloudProviderCAData: []byte("c"),
			DNS: &configv1.DNS{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "DNS"}},
			Infra: &configv1.Infrastructure{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "Infrastructure"},
				Status: configv1.InfrastructureStatus{ControlPlaneTopology: configv1.HighlyAvailableTopologyMode, InfrastructureTopology: configv1.HighlyAvailableTopologyMode}},
			Network: &mcfgv1.NetworkInfo{}, Proxy: &configv1.ProxyStatus{}, Images: map[string]string{},
		},
	}
	created, err := mco.ControllerConfigs().Create(ctx, cc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.ControllerCertificates = []mcfgv1.ControllerCertificate{{Subject: "CN=lb", Signer: "CN=lb", BundleFile: "KubeAPIServerServingCAData", NotAfter: &notAfter}}
	if _, err := mco.ControllerConfigs().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	withCC, err := mcooracle.Render("worker", []*mcfgv1.MachineConfig{src}, cc.Spec)
	if err != nil {
		t.Fatal(err)
	}
	p = e.waitPool(within(t, 2*time.Minute), "worker", "re-render with the ControllerConfig", func(p *mcfgv1.MachineConfigPool) bool {
		c := inputs(p)
		return p.Spec.Configuration.Name == withCC.Name && c != nil && c.Status == corev1.ConditionTrue && len(p.Status.CertExpirys) == 1
	})
	if ce := p.Status.CertExpirys[0]; ce.Subject != "CN=lb" || ce.Expiry == nil || !ce.Expiry.Equal(&notAfter) {
		t.Fatalf("certExpirys = %+v", p.Status.CertExpirys)
	}
	rendered, err := mco.MachineConfigs().Get(ctx, withCC.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rendered.Spec.OSImageURL != cc.Spec.BaseOSContainerImage || rendered.Spec.BaseOSExtensionsContainerImage != cc.Spec.BaseOSExtensionsContainerImage {
		t.Fatalf("rendered images %q / %q", rendered.Spec.OSImageURL, rendered.Spec.BaseOSExtensionsContainerImage)
	}

	if err := mco.ControllerConfigs().Delete(ctx, render.ControllerConfigName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitPool(within(t, 2*time.Minute), "worker", "standalone again after the ControllerConfig went", func(p *mcfgv1.MachineConfigPool) bool {
		c := inputs(p)
		return p.Spec.Configuration.Name == standalone.Name && c != nil && c.Status == corev1.ConditionFalse
	})
}

// within bounds one wait; the wait fails with what it last saw.
func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func repeat(s string) string {
	out := ""
	for range 64 {
		out += s
	}
	return out
}
