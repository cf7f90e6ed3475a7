package mcoworld

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/test/framework"
)

// InstallerBootstrap is the MCO's part of an installer's bootstrap node, as
// bootkube.sh runs it (openshift/installer
// data/data/bootstrap/files/usr/local/bin/bootkube.sh.template,
// release-4.21): the operator's `bootstrap` renders the ControllerConfig,
// the pools and the bootstrap pod from the install's manifests; bootkube
// copies them to /etc/mcc/bootstrap, the server's certificate to
// /etc/ssl/mcs; the bootstrap pod's init container
// (`machine-config-controller bootstrap`, tandem's) renders each pool's
// first config into /etc/mcs/bootstrap, and its server
// (`machine-config-server bootstrap`) serves the masters their Ignition.
// The bootstrap node's root is a directory (Host); each container runs
// with the pod's hostPath volumes mounted at its paths (podns).
type InstallerBootstrap struct {
	Dir     string
	Fork    Fork
	Release Release
	// PodNS is the podns binary.
	PodNS string
	// Host is the bootstrap node's root; Assets is bootkube's /assets.
	Host, Assets string
	pki          installerPKI
	server       *framework.Process
	port         int
}

// bootstrapAPIURL is the install's API (its api-int host is loopback here:
// the server's certificate names it).
const bootstrapAPIURL = "https://127.0.0.1:6443"

// RunInstallerBootstrap renders and starts the bootstrap server for r; Stop
// ends it.
func RunInstallerBootstrap(ctx context.Context, dir string, fork Fork, r Release) (*InstallerBootstrap, error) {
	b := &InstallerBootstrap{Dir: dir, Fork: fork, Release: r, Host: filepath.Join(dir, "host"), Assets: filepath.Join(dir, "assets")}
	var err error
	if b.pki, err = newInstallerPKI(bootstrapAPIURL); err != nil {
		return nil, err
	}
	b.PodNS = filepath.Join(dir, "bin", "podns")
	if err := framework.GoBuild(ctx, b.PodNS, "./test/mcoworld/cmd/podns"); err != nil {
		return nil, err
	}
	if err := b.writeAssets(); err != nil {
		return nil, err
	}
	if err := b.renderMCO(ctx); err != nil {
		return nil, err
	}
	if err := b.layBootstrapNode(); err != nil {
		return nil, err
	}
	pod, err := b.bootstrapPod()
	if err != nil {
		return nil, err
	}
	if err := b.runInit(ctx, pod); err != nil {
		return nil, err
	}
	if err := b.startServer(ctx, pod); err != nil {
		return nil, err
	}
	return b, nil
}

// writeAssets writes what the installer gives bootkube: the root CA, the
// pull secret, the cluster's config manifests (platform None, HA), the
// release's image references.
func (b *InstallerBootstrap) writeAssets() error {
	typed := func(v any, apiVersion, kind string) ([]byte, error) {
		raw, err := yaml.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		m["apiVersion"], m["kind"] = apiVersion, kind
		return yaml.Marshal(m)
	}
	cluster := metav1.ObjectMeta{Name: "cluster"}
	// The release's image-references: an ImageStream whose tags name
	// each image (the operator's bootstrap reads spec.tags[].from.name).
	var tags []map[string]any
	for tag, ref := range b.Release.Images {
		tags = append(tags, map[string]any{"name": tag, "from": map[string]string{"kind": "DockerImage", "name": ref}})
	}
	images := map[string]any{"metadata": map[string]any{"name": "release"}, "spec": map[string]any{"tags": tags}}
	files := map[string]any{}
	add := func(path string, v any, apiVersion, kind string) {
		files[path] = [3]any{v, apiVersion, kind}
	}
	add("manifests/cluster-config.yaml", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cluster-config-v1"},
		Data: map[string]string{"install-config": "apiVersion: v1\nmetadata:\n  name: tandem\nbaseDomain: tandem.test\nplatform:\n  none: {}\n"}}, "v1", "ConfigMap")
	add("manifests/openshift-config-secret-pull-secret.yaml", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-config", Name: "pull-secret"},
		Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{}}`)}}, "v1", "Secret")
	add("manifests/cluster-infrastructure-02-config.yml", &configv1.Infrastructure{ObjectMeta: cluster,
		Spec: configv1.InfrastructureSpec{PlatformSpec: configv1.PlatformSpec{Type: configv1.NonePlatformType}},
		Status: configv1.InfrastructureStatus{InfrastructureName: "tandem", Platform: configv1.NonePlatformType, //nolint:staticcheck // the MCO still reads it
			PlatformStatus: &configv1.PlatformStatus{Type: configv1.NonePlatformType}, APIServerURL: bootstrapAPIURL, APIServerInternalURL: bootstrapAPIURL,
			ControlPlaneTopology: configv1.HighlyAvailableTopologyMode, InfrastructureTopology: configv1.HighlyAvailableTopologyMode}}, "config.openshift.io/v1", "Infrastructure")
	add("manifests/cluster-network-02-config.yml", &configv1.Network{ObjectMeta: cluster, Spec: configv1.NetworkSpec{
		ClusterNetwork: []configv1.ClusterNetworkEntry{{CIDR: "10.128.0.0/14", HostPrefix: 23}}, ServiceNetwork: []string{"172.30.0.0/16"}, NetworkType: "OVNKubernetes"}}, "config.openshift.io/v1", "Network")
	add("manifests/cluster-proxy-01-config.yaml", &configv1.Proxy{ObjectMeta: cluster}, "config.openshift.io/v1", "Proxy")
	add("manifests/cluster-dns-02-config.yml", &configv1.DNS{ObjectMeta: cluster, Spec: configv1.DNSSpec{BaseDomain: "tandem.test"}}, "config.openshift.io/v1", "DNS")
	add("image-references", images, "image.openshift.io/v1", "ImageStream")
	for path, v := range files {
		t := v.([3]any)
		raw, err := typed(t[0], t[1].(string), t[2].(string))
		if err != nil {
			return err
		}
		if err := writeNodeFile(b.Assets, path, raw); err != nil {
			return err
		}
	}
	if err := writeNodeFile(b.Assets, "tls/root-ca.crt", b.pki.RootCA); err != nil {
		return err
	}
	return writeNodeFile(b.Assets, "tls/kube-apiserver-complete-client-ca-bundle.crt", b.pki.RootCA)
}

// renderMCO runs the operator's bootstrap with bootkube's arguments.
func (b *InstallerBootstrap) renderMCO(ctx context.Context) error {
	bin, err := b.Fork.ImagePath("/usr/bin/machine-config-operator")
	if err != nil {
		return err
	}
	a := func(p string) string { return filepath.Join(b.Assets, p) }
	return b.run(ctx, "mco-render", append([]string{bin}, "bootstrap",
		"--root-ca="+a("tls/root-ca.crt"),
		"--kube-ca="+a("tls/kube-apiserver-complete-client-ca-bundle.crt"),
		"--config-file="+a("manifests/cluster-config.yaml"),
		"--dest-dir="+a("mco-bootstrap"),
		"--pull-secret="+a("manifests/openshift-config-secret-pull-secret.yaml"),
		"--release-image="+b.Release.Image,
		"--image-references="+a("image-references"),
		"--payload-version="+b.Release.Version,
		"--infra-config-file="+a("manifests/cluster-infrastructure-02-config.yml"),
		"--network-config-file="+a("manifests/cluster-network-02-config.yml"),
		"--proxy-config-file="+a("manifests/cluster-proxy-01-config.yaml"),
		"--dns-config-file="+a("manifests/cluster-dns-02-config.yml"),
		"--additional-trust-bundle-config-file="+a("manifests/user-ca-bundle-config.yaml")))
}

// layBootstrapNode plays bootkube's copies onto the bootstrap node: the
// rendered manifests and the release's FeatureGate (the installer's
// cluster-config-operator render) into /etc/mcc/bootstrap, the server's
// certificate into /etc/ssl/mcs, the bootstrap kubeconfig into
// /etc/mcs/kubeconfig.
func (b *InstallerBootstrap) layBootstrapNode() error {
	src := filepath.Join(b.Assets, "mco-bootstrap", "bootstrap", "manifests")
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("the operator's bootstrap render: %w", err)
	}
	for _, e := range ents {
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := writeNodeFile(b.Host, filepath.Join("/etc/mcc/bootstrap", e.Name()), raw); err != nil {
			return err
		}
	}
	enabled, disabled, err := DefaultFeatureGates()
	if err != nil {
		return err
	}
	fg, err := yaml.Marshal(map[string]any{"apiVersion": "config.openshift.io/v1", "kind": "FeatureGate", "metadata": map[string]any{"name": "cluster"},
		"spec": map[string]any{}, "status": configv1.FeatureGateStatus{FeatureGates: []configv1.FeatureGateDetails{{Version: b.Release.Version, Enabled: enabled, Disabled: disabled}}}})
	if err != nil {
		return err
	}
	kubeconfig := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: kubelet\n  user:\n    token: bootstrap-token\ncontexts:\n- name: kubelet\n  context:\n    cluster: local\n    user: kubelet\ncurrent-context: kubelet\n",
		bootstrapAPIURL, base64.StdEncoding.EncodeToString(b.pki.RootCA))
	for p, c := range map[string][]byte{
		"/etc/mcc/bootstrap/featuregate.yaml": fg,
		"/etc/ssl/mcs/tls.crt":                b.pki.Serving.CertPEM,
		"/etc/ssl/mcs/tls.key":                b.pki.Serving.KeyPEM,
		"/etc/mcs/kubeconfig":                 []byte(kubeconfig),
	} {
		if err := writeNodeFile(b.Host, p, c); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(b.Host, "etc/mcs/bootstrap"), 0o755)
}

// bootstrapPod is the bootstrap pod the operator rendered.
func (b *InstallerBootstrap) bootstrapPod() (*corev1.Pod, error) {
	raw, err := os.ReadFile(filepath.Join(b.Assets, "mco-bootstrap", "bootstrap", "machineconfigoperator-bootstrap-pod.yaml"))
	if err != nil {
		return nil, err
	}
	pod := &corev1.Pod{}
	if err := yaml.UnmarshalStrict(raw, pod); err != nil {
		return nil, fmt.Errorf("the bootstrap pod: %w", err)
	}
	if len(pod.Spec.InitContainers) != 1 || len(pod.Spec.Containers) != 1 {
		return nil, fmt.Errorf("the bootstrap pod has %d init containers and %d containers, want 1 and 1", len(pod.Spec.InitContainers), len(pod.Spec.Containers))
	}
	return pod, nil
}

// podArgv is a bootstrap pod container's command line on the bootstrap
// node: its hostPath volumes mounted at its paths, the image's templates
// at theirs.
func (b *InstallerBootstrap) podArgv(pod *corev1.Pod, c corev1.Container, extra ...string) ([]string, error) {
	vols := map[string]string{}
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name == m.Name && v.HostPath != nil {
				vols[m.MountPath] = filepath.Join(b.Host, v.HostPath.Path)
			}
		}
	}
	templates, err := b.Fork.ImagePath(imageTemplates)
	if err != nil {
		return nil, err
	}
	vols[imageTemplates] = templates
	bin, err := b.Fork.ImagePath(c.Command[0])
	if err != nil {
		return nil, err
	}
	scratch := filepath.Join(b.Dir, "scratch-"+c.Name)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return nil, err
	}
	id := Identity{PodNS: b.PodNS}
	return id.Wrap(Container{Secrets: "-", Volumes: vols, Scratch: scratch}, append(append(append([]string{bin}, c.Command[1:]...), c.Args...), extra...)...), nil
}

// runInit runs the pod's init container to its end.
func (b *InstallerBootstrap) runInit(ctx context.Context, pod *corev1.Pod) error {
	argv, err := b.podArgv(pod, pod.Spec.InitContainers[0])
	if err != nil {
		return err
	}
	return b.run(ctx, "mcc-bootstrap", argv)
}

// startServer starts the pod's server on ports of its own.
func (b *InstallerBootstrap) startServer(ctx context.Context, pod *corev1.Pod) error {
	additions, secure, err := serverAdditions()
	if err != nil {
		return err
	}
	argv, err := b.podArgv(pod, pod.Spec.Containers[0], additions...)
	if err != nil {
		return err
	}
	if b.server, err = framework.StartProcess("bootstrap machine-config-server", argv[0], filepath.Join(b.Dir, "mcs-bootstrap.log"), nil, argv[1:]...); err != nil {
		return err
	}
	b.port = secure
	return nil
}

// run runs argv to its end (bounded), with its log in the directory.
func (b *InstallerBootstrap) run(ctx context.Context, name string, argv []string) error {
	log := filepath.Join(b.Dir, name+".log")
	p, err := framework.StartProcess(name, argv[0], log, nil, argv[1:]...)
	if err != nil {
		return err
	}
	err = framework.Await(ctx, name+" to finish", 5*time.Minute, 500*time.Millisecond, func(context.Context) (bool, string, error) {
		done, err := p.Exited()
		if done && err != nil {
			return false, "", fmt.Errorf("%s: %w; log %s:\n%s", name, err, log, p.LogTail())
		}
		return done, "running", nil
	})
	if err != nil {
		_ = p.Kill()
	}
	return err
}

// Fetch is a master's first boot from the bootstrap server: the pointer
// config the installer gives it (the MCO's PointerConfig form), fetched
// as Ignition does.
func (b *InstallerBootstrap) Fetch(ctx context.Context, pool string) ([]byte, error) {
	pointer := fmt.Sprintf(`{"ignition":{"version":"3.5.0","config":{"merge":[{"source":"https://127.0.0.1:%s/config/%s"}]},"security":{"tls":{"certificateAuthorities":[{"source":%q}]}}}}`,
		ignitionPort, pool, dataURL(b.pki.RootCA))
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !strings.HasSuffix(addr, ":"+ignitionPort) {
			return nil, fmt.Errorf("dial %s: only the server's port is routed", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", b.port))
	}
	return FetchPointed(ctx, []byte(pointer), dial)
}

// Rendered is the config the bootstrap render made for pool (the pool's
// status in /etc/mcs/bootstrap/machine-pools).
func (b *InstallerBootstrap) Rendered(pool string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(b.Host, "etc/mcs/bootstrap/machine-pools", pool+".yaml"))
	if err != nil {
		return "", err
	}
	var p struct {
		Status struct {
			Configuration struct{ Name string } `json:"configuration"`
		} `json:"status"`
	}
	if err := yaml.Unmarshal(raw, &p); err != nil {
		return "", err
	}
	return p.Status.Configuration.Name, nil
}

// RenderedConfig is the Ignition of a rendered config the bootstrap
// render wrote.
func (b *InstallerBootstrap) RenderedConfig(name string) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(b.Host, "etc/mcs/bootstrap/machine-configs", name+".yaml"))
	if err != nil {
		return nil, err
	}
	var mc struct {
		Spec struct {
			Config map[string]any `json:"config"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &mc); err != nil {
		return nil, err
	}
	return json.Marshal(mc.Spec.Config)
}

// Stop stops the bootstrap server.
func (b *InstallerBootstrap) Stop() error {
	if b.server == nil {
		return nil
	}
	return b.server.Stop(10 * time.Second)
}
