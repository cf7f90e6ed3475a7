package mcoworld

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tandem-mco/tandem/test/pki"
)

// installerPKI is what the installer gives the machine-config-server: its
// root CA (kube-system/root-ca, which the operator puts in the nodes'
// pointer configs while the MCO's cert rotation does not manage the
// server's certificate: it does not on platform None, see
// pkg/controller/certrotation, release-4.21) and the server's serving
// certificate for the API's internal host (machine-config-server-tls).
type installerPKI struct {
	RootCA  []byte
	Serving pki.Pair
}

// newInstallerPKI makes the root CA and the server's certificate for the
// host of apiInternalURL (the Infrastructure's apiServerInternalURL: nodes
// fetch their Ignition from that host's port 22623).
func newInstallerPKI(apiInternalURL string) (installerPKI, error) {
	u, err := url.Parse(apiInternalURL)
	if err != nil {
		return installerPKI{}, fmt.Errorf("API internal URL %q: %w", apiInternalURL, err)
	}
	ca, err := pki.NewCA("root-ca")
	if err != nil {
		return installerPKI{}, err
	}
	leaf := pki.Leaf{CommonName: "system:machine-config-server", Server: true}
	if ip := net.ParseIP(u.Hostname()); ip != nil {
		leaf.IPs = []net.IP{ip}
	} else {
		leaf.DNSNames = []string{u.Hostname()}
	}
	serving, err := ca.Issue(leaf)
	if err != nil {
		return installerPKI{}, err
	}
	return installerPKI{RootCA: ca.CertPEM, Serving: serving}, nil
}

// install writes the server's certificate where the installer's manifests
// put it, in the MCO's namespace (made here, as the installer's manifests
// make it before the CVO applies the MCO's).
func (p installerPKI) install(ctx context.Context, kube kubernetes.Interface) error {
	if err := ensure(kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("namespace %s: %w", Namespace, err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: "machine-config-server-tls"},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: p.Serving.CertPEM, corev1.TLSPrivateKeyKey: p.Serving.KeyPEM}}
	if err := ensure(kube.CoreV1().Secrets(Namespace).Create(ctx, s, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("secret machine-config-server-tls: %w", err)
	}
	return nil
}

// serverProcess is one master's machine-config-server: while it runs, the
// world's load balancer for api-int:22623 may send to it.
type serverProcess struct {
	hostProcess
	w   *World
	pod types.UID
}

func (s serverProcess) Stop() error {
	s.w.mu.Lock()
	delete(s.w.mcs, s.pod)
	s.w.mu.Unlock()
	return s.hostProcess.Stop()
}

// startMCS runs a master's machine-config-server pod.
func (w *World) startMCS(ctx context.Context, c Container) (Process, error) {
	additions, secure, err := serverAdditions()
	if err != nil {
		return nil, err
	}
	p, err := w.startProcess(ctx, "server", c, additions)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.mcs[c.Pod.UID] = fmt.Sprintf("127.0.0.1:%d", secure)
	w.mu.Unlock()
	return serverProcess{p.(hostProcess), w, c.Pod.UID}, nil
}

// mcsBackends are the secure addresses of the running servers, as the load
// balancer in front of api-int:22623 has them.
func (w *World) mcsBackends() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, a := range w.mcs {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
