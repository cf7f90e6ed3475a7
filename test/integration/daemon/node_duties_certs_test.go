//go:build integration

package daemon_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/pki"
)

// The certificate writer's contract, read from the MCO
// (openshift/machine-config-operator release-4.21, commit db84d8368ef7):
// pkg/daemon/certificate_writer.go syncControllerConfigHandler,
// syncInternalRegistryPullSecrets and writeToDisk; the paths in
// pkg/daemon/daemon.go (caBundleFilePath, cloudCABundleFilePath,
// kubeConfigPath, imageCAFilePath) and image_manager_helper.go
// (internalRegistryAuthFile); the annotations in
// pkg/daemon/constants/constants.go and pkg/controller/common/constants.go;
// the modes in update.go (defaultFilePermissions 0644). Written here from
// that source, not from pkg/daemon/certs.
const (
	mcoKubeletCA         = "/etc/kubernetes/kubelet-ca.crt"
	mcoCloudCA           = "/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem"
	mcoKubeconfig        = "/etc/kubernetes/kubeconfig"
	mcoKubeletKubeconfig = "/var/lib/kubelet/kubeconfig"
	mcoInternalPull      = "/etc/mco/internal-registry-pull-secret.json"
	mcoCertsD            = "/etc/docker/certs.d"
	mcoLastSynced        = "machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion"
	mcoLastObservedCA    = "machineconfiguration.openshift.io/lastObservedServerCAAnnotation"
	mcoRotate            = "machineconfiguration.openshift.io/service-ca-rotate"
	mcoNamespace         = "openshift-machine-config-operator"
)

// newlineEnded is writeToDisk's content: the data, with "\n" added when it
// does not end with one.
func newlineEnded(b []byte) string {
	if bytes.HasSuffix(b, []byte("\n")) {
		return string(b)
	}
	return string(b) + "\n"
}

// certDest is one place the certificate writer writes, with the check of
// what it must hold.
type certDest struct {
	name  string
	check func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error
}

// fileIs checks a host file's content and permission bits.
func fileIs(sn *framework.SimNode, p, want string, mode os.FileMode) error {
	fi, err := os.Stat(sn.HostPath(p))
	if err != nil {
		return err
	}
	got, err := os.ReadFile(sn.HostPath(p))
	if err != nil {
		return err
	}
	if string(got) != want {
		return fmt.Errorf("%s holds %q, want %q", p, got, want)
	}
	if fi.Mode().Perm() != mode {
		return fmt.Errorf("%s mode %o, want %o", p, fi.Mode().Perm(), mode)
	}
	return nil
}

// kubeconfigCA returns a kubeconfig's first cluster's CA and server.
func kubeconfigCA(sn *framework.SimNode, p string) (ca, server string, err error) {
	b, err := os.ReadFile(sn.HostPath(p))
	if err != nil {
		return "", "", err
	}
	var kc clientcmdv1.Config
	if err := yaml.Unmarshal(b, &kc); err != nil {
		return "", "", fmt.Errorf("%s: %w", p, err)
	}
	if len(kc.Clusters) == 0 {
		return "", "", fmt.Errorf("%s has no cluster", p)
	}
	return string(kc.Clusters[0].Cluster.CertificateAuthorityData), kc.Clusters[0].Cluster.Server, nil
}

func testKubeconfig(t *testing.T, server, user, ca string) string {
	t.Helper()
	b, err := yaml.Marshal(clientcmdv1.Config{
		Clusters:       []clientcmdv1.NamedCluster{{Name: "cluster", Cluster: clientcmdv1.Cluster{Server: server, CertificateAuthorityData: []byte(ca)}}},
		AuthInfos:      []clientcmdv1.NamedAuthInfo{{Name: user, AuthInfo: clientcmdv1.AuthInfo{Token: user + "-token"}}},
		Contexts:       []clientcmdv1.NamedContext{{Name: user, Context: clientcmdv1.Context{Cluster: "cluster", AuthInfo: user}}},
		CurrentContext: user,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newCAPEM(t *testing.T, cn string) []byte {
	t.Helper()
	ca, err := pki.NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM
}

// nodeDutiesCertificates: the MCO's certificate writer on a node. A
// ControllerConfig carries the kubelet's CA, the cloud CA, the internal
// registry's pull secret and two registries' CAs, and is marked as a
// service CA rotation (the operator's annotation, with the rotated bundle
// in kubeconfig-data) that adds a new signer. The node must hold each as
// the MCO writes it, with the node's kubeconfig and the kubelet's merged
// and the kubelet restarted; then the bundles rotate and each is
// rewritten, the kubeconfigs left alone. It returns how many destinations
// held in both rounds, of how many were checked.
func nodeDutiesCertificates(t *testing.T, w *world) (ok, checked int) {
	ctx := context.Background()
	a := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "certs\n", 0o644}}, nil)
	const cfg = "rendered-worker-certs"
	w.createMC(cfg, w.imageA, a)

	oldServerCA := newCAPEM(t, "kube-apiserver-service-network-signer")
	newServerCA := newCAPEM(t, "kube-apiserver-service-network-signer-rotated")
	const apiServer = "https://api.test:6443"
	sn := w.installNode("node-duties-certs", cfg, a, w.imageA, framework.SimNodeOptions{
		Files: map[string]string{
			// The rendered configs create certs.d (templates/common/_base/
			// files/etc-docker-certs.d.yaml); the MCO writes no registry CA
			// without it.
			mcoCertsD + "/.create": "",
			// A registry the ControllerConfig no longer names.
			mcoCertsD + "/stale.example.com/ca.crt": "stale\n",
			// An existing bundle keeps its mode (writeToDisk).
			mcoKubeletCA:         "install-time kubelet CA\n",
			mcoKubeconfig:        testKubeconfig(t, apiServer, "node", string(oldServerCA)),
			mcoKubeletKubeconfig: testKubeconfig(t, apiServer, "kubelet", string(oldServerCA)),
		},
		FileModes: map[string]os.FileMode{mcoKubeletCA: 0o600, mcoKubeconfig: 0o600, mcoKubeletKubeconfig: 0o600},
	})

	// The rotated bundle as the operator publishes it (pkg/operator/sync.go).
	if _, err := w.cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mcoNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	rotatedBundle := append(append([]byte{}, oldServerCA...), newServerCA...)
	if _, err := w.cp.Kube.CoreV1().ConfigMaps(mcoNamespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kubeconfig-data"},
		BinaryData: map[string][]byte{"ca-bundle.crt": rotatedBundle},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The MCO's merge keeps the bundle's certificates as text, joined:
	// the trimmed bundle when each is a valid certificate.
	wantServerCA := strings.TrimSpace(string(rotatedBundle))

	registry := "image-registry.openshift-image-registry.svc..5000"
	registryDir := "image-registry.openshift-image-registry.svc:5000" // ".." stands for ":"
	spec := mcfgv1.ControllerConfigSpec{
		ClusterDNSIP: "172.30.0.10", IPFamilies: mcfgv1.IPFamiliesIPv4,
		BaseOSContainerImage: w.imageA, ReleaseImage: "registry.test/release:1",
		RootCAData: []byte("root"), AdditionalTrustBundle: []byte("bundle"),
		DNS: &configv1.DNS{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "DNS"}},
		Infra: &configv1.Infrastructure{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "Infrastructure"},
			Status: configv1.InfrastructureStatus{ControlPlaneTopology: configv1.HighlyAvailableTopologyMode, InfrastructureTopology: configv1.HighlyAvailableTopologyMode}},
		Network: &mcfgv1.NetworkInfo{}, Proxy: &configv1.ProxyStatus{}, Images: map[string]string{},

		KubeAPIServerServingCAData: newCAPEM(t, "kube-apiserver-serving-ca-1"),
		// Without a trailing newline: the MCO adds one.
		CloudProviderCAData:         bytes.TrimSpace(newCAPEM(t, "cloud-ca-1")),
		InternalRegistryPullSecret:  w.registry.AuthJSON(),
		ImageRegistryBundleData:     []mcfgv1.ImageRegistryBundle{{File: registry, Data: newCAPEM(t, "image-registry-1")}},
		ImageRegistryBundleUserData: []mcfgv1.ImageRegistryBundle{{File: "mirror.example.com", Data: newCAPEM(t, "mirror-1")}},
	}
	cc := &mcfgv1.ControllerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "machine-config-controller", Annotations: map[string]string{mcoRotate: "true"}},
		Spec:       spec,
	}
	cc, err := w.cp.MCO.MachineconfigurationV1().ControllerConfigs().Create(ctx, cc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	unitLog := filepath.Join(sn.Dir, "unit-actions.log")
	kubeletRestarts := func() int {
		b, _ := os.ReadFile(unitLog)
		return strings.Count(string(b), "restart kubelet.service")
	}
	dests := []certDest{
		{"kubelet-ca", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			return fileIs(sn, mcoKubeletCA, newlineEnded(cc.Spec.KubeAPIServerServingCAData), 0o600)
		}},
		{"cloud-ca", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			return fileIs(sn, mcoCloudCA, newlineEnded(cc.Spec.CloudProviderCAData), 0o644)
		}},
		{"internal-registry-pull-secret", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			return fileIs(sn, mcoInternalPull, newlineEnded(cc.Spec.InternalRegistryPullSecret), 0o644)
		}},
		{"certs.d operator bundle", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			return fileIs(sn, mcoCertsD+"/"+registryDir+"/ca.crt", string(cc.Spec.ImageRegistryBundleData[0].Data), 0o644)
		}},
		{"certs.d user bundle", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			return fileIs(sn, mcoCertsD+"/mirror.example.com/ca.crt", string(cc.Spec.ImageRegistryBundleUserData[0].Data), 0o644)
		}},
		{"certs.d stale registry removed", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			if _, err := os.Stat(sn.HostPath(mcoCertsD + "/stale.example.com")); !os.IsNotExist(err) {
				return fmt.Errorf("stale.example.com still in certs.d (%v)", err)
			}
			if _, err := os.Stat(sn.HostPath(mcoCertsD + "/.create")); err != nil {
				return fmt.Errorf("certs.d/.create: %w", err)
			}
			return nil
		}},
		{"kubeconfig CA", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			ca, server, err := kubeconfigCA(sn, mcoKubeconfig)
			if err != nil {
				return err
			}
			if ca != wantServerCA || server != apiServer {
				return fmt.Errorf("kubeconfig CA %q server %q, want the rotated bundle %q and %q", ca, server, wantServerCA, apiServer)
			}
			fi, err := os.Stat(sn.HostPath(mcoKubeconfig))
			if err != nil || fi.Mode().Perm() != 0o600 {
				return fmt.Errorf("kubeconfig mode changed: %v %v", fi, err)
			}
			return nil
		}},
		{"kubelet re-bootstrap", func(t *testing.T, sn *framework.SimNode, cc *mcfgv1.ControllerConfig) error {
			ca, server, err := kubeconfigCA(sn, mcoKubeletKubeconfig)
			if err != nil {
				return err
			}
			if ca != wantServerCA || server != apiServer {
				return fmt.Errorf("kubelet kubeconfig CA %q server %q, want the rotated bundle and %q", ca, server, apiServer)
			}
			b, _ := os.ReadFile(unitLog)
			log := string(b)
			if n := kubeletRestarts(); n != 1 {
				return fmt.Errorf("kubelet restarted %d times, want once (the rotation added a new signer; the later sync is no rotation):\n%s", n, log)
			}
			if r, d := strings.Index(log, "restart kubelet.service"), strings.Index(log, "daemon-reload"); d < 0 || d > r {
				return fmt.Errorf("want daemon-reload before the kubelet's start:\n%s", log)
			}
			return nil
		}},
	}
	held := make([]bool, len(dests))
	for i := range held {
		held[i] = true
	}
	round := func(what string, cc *mcfgv1.ControllerConfig, observedCA string) {
		t.Helper()
		n := w.waitFor(sn, what+": the node synced ControllerConfig "+cc.ResourceVersion, 2*time.Minute, func(n *corev1.Node) bool {
			return n.Annotations[mcoLastSynced] == cc.ResourceVersion
		})
		if got := n.Annotations[mcoLastObservedCA]; got != observedCA {
			t.Errorf("%s: %s = %q, want %q", what, mcoLastObservedCA, got, observedCA)
		}
		for i, d := range dests {
			if err := d.check(t, sn, cc); err != nil {
				held[i] = false
				t.Errorf("%s: %s: %v", what, d.name, err)
			}
		}
	}
	round("first sync (a service CA rotation)", cc, "true")

	// Rotate the bundles; the operator marks the ControllerConfig as no
	// rotation of the server CA.
	cc.Annotations[mcoRotate] = "false"
	cc.Spec.KubeAPIServerServingCAData = newCAPEM(t, "kube-apiserver-serving-ca-2")
	cc.Spec.CloudProviderCAData = newCAPEM(t, "cloud-ca-2")
	cc.Spec.ImageRegistryBundleData[0].Data = newCAPEM(t, "image-registry-2")
	cc.Spec.ImageRegistryBundleUserData[0].Data = newCAPEM(t, "mirror-2")
	cc.Spec.InternalRegistryPullSecret = w.registry.AuthJSON(w.registry.Host(), "other.example.com")
	cc, err = w.cp.MCO.MachineconfigurationV1().ControllerConfigs().Update(ctx, cc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	round("after the bundles rotated", cc, "false")

	for _, h := range held {
		if h {
			ok++
		}
	}
	return ok, len(dests)
}
