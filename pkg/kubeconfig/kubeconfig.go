// Package kubeconfig loads the REST config both tandem binaries use: a
// kubeconfig file when one is named, else the in-cluster service account.
package kubeconfig

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Load returns the config of path, or the in-cluster config when path is empty.
func Load(path string) (*rest.Config, error) {
	if path == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster config (or pass --kubeconfig): %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return cfg, nil
}

// The service account files every pod has (client-go rest.InClusterConfig).
const (
	serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	serviceAccountCA    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// LoadForNode is the daemon's config: the file at path when one is named;
// else the pod's service account against the API server the node's kubelet
// uses, read from kubeletKubeconfig (the MCO's daemon reads
// /etc/kubernetes/kubeconfig for it in cmd/machine-config-daemon/start.go,
// release-4.21: a hostNetwork pod may not reach the service network before
// the node's network is up); without that file, the plain in-cluster
// config.
func LoadForNode(path, kubeletKubeconfig string) (*rest.Config, error) {
	if path != "" {
		return Load(path)
	}
	host, err := apiServerOf(kubeletKubeconfig)
	if errors.Is(err, os.ErrNotExist) {
		klog.InfoS("No kubelet kubeconfig; using the in-cluster API address", "path", kubeletKubeconfig)
		return Load("")
	}
	if err != nil {
		return nil, err
	}
	token, err := os.ReadFile(serviceAccountToken)
	if err != nil {
		return nil, fmt.Errorf("in-cluster config (or pass --kubeconfig): %w", err)
	}
	klog.InfoS("Using the kubelet's API server with the pod's service account", "server", host, "from", kubeletKubeconfig)
	return &rest.Config{
		Host:            host,
		TLSClientConfig: rest.TLSClientConfig{CAFile: serviceAccountCA},
		BearerToken:     string(token),
		BearerTokenFile: serviceAccountToken,
	}, nil
}

// apiServerOf returns the https://host:port of the current context's
// cluster in a kubeconfig file; only the address is taken, as the MCO does
// (it sets KUBERNETES_SERVICE_HOST and _PORT from it).
func apiServerOf(path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("kubelet kubeconfig %s: %w", path, err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		return "", fmt.Errorf("kubelet kubeconfig %s: no cluster for its current context %q", path, cfg.CurrentContext)
	}
	u, err := url.Parse(cfg.Clusters[ctx.Cluster].Server)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("kubelet kubeconfig %s: server %q: want https://host:port (%v)", path, cfg.Clusters[ctx.Cluster].Server, err)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return "https://" + net.JoinHostPort(u.Hostname(), port), nil
}

// KubeletKubeconfig is the node's kubelet credentials, which the MCO's
// daemon writes its Node with (pkg/daemon/writer.go
// nodeWriterKubeconfigPath, release-4.21).
const KubeletKubeconfig = "/var/lib/kubelet/kubeconfig"

// LoadNodeWriter is the config the daemon writes its Node with: path's
// when one is named (tests: the same identity for everything); else the
// kubelet's credentials at kubeletKubeconfig (system:node:<name>, which
// OpenShift's Node authorizer lets write its own Node); without that file,
// ok is false and the caller keeps its service account (a cluster whose
// RBAC grants it nodes patch, as manifests/rbac does for the standalone
// deployment).
func LoadNodeWriter(path, kubeletKubeconfig string) (cfg *rest.Config, ok bool, err error) {
	if path != "" {
		cfg, err = Load(path)
		return cfg, err == nil, err
	}
	if _, err := os.Stat(kubeletKubeconfig); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	cfg, err = clientcmd.BuildConfigFromFlags("", kubeletKubeconfig)
	if err != nil {
		return nil, false, fmt.Errorf("kubelet kubeconfig %s: %w", kubeletKubeconfig, err)
	}
	return cfg, true, nil
}
