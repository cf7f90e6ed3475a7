package mcoworld

import (
	"context"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Namespaces an installed cluster has before the MCO's manifests apply:
// the MCO writes into openshift-config-managed and openshift-machine-api,
// and reads openshift-config (notes: the operator's sync.go, release-4.21).
var clusterNamespaces = []string{"openshift-config", "openshift-config-managed", "openshift-machine-api", "openshift-etcd"}

// Cluster describes the installed cluster's identity.
type Cluster struct {
	// APIServerURL is the kube-apiserver (Infrastructure status); the MCO
	// renders it into the nodes' kubeconfigs and the server's flags.
	APIServerURL string
	// CAPEM is the cluster's root CA (kube-system/root-ca and the client CA
	// bundle the operator reads).
	CAPEM []byte
	// RootCAPEM is the installer's root CA (kube-system/root-ca), which
	// signed the machine-config-server's certificate; CAPEM when empty.
	RootCAPEM []byte
	// PullSecret is the cluster's pull secret (.dockerconfigjson).
	PullSecret []byte
	// InfraName names the cluster (Infrastructure infrastructureName).
	InfraName string
}

// InstallCluster creates what an installed OpenShift cluster has and the
// MCO's operator reads before it can sync: the namespaces, the
// config.openshift.io singletons with their status (platform None, HA
// topology), the pull secret and the CA ConfigMaps. The release's own
// objects come from ApplyRelease.
func InstallCluster(ctx context.Context, kube kubernetes.Interface, cfg configclientset.Interface, c Cluster) error {
	for _, ns := range clusterNamespaces {
		if err := ensure(kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})); err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	if err := installConfig(ctx, cfg, c); err != nil {
		return err
	}
	pull := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-config", Name: "pull-secret"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: c.PullSecret},
	}
	if err := ensure(kube.CoreV1().Secrets(pull.Namespace).Create(ctx, pull, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("pull secret: %w", err)
	}
	ca, root := string(c.CAPEM), string(c.RootCAPEM)
	if root == "" {
		root = ca
	}
	for _, cm := range []*corev1.ConfigMap{
		// The MCS CA when the controller's cert rotation has not made one.
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "root-ca"}, Data: map[string]string{"ca.crt": root}},
		// Present once the bootstrap control plane is gone.
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "bootstrap"}, Data: map[string]string{"status": "complete"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-config-managed", Name: "kube-apiserver-client-ca"}, Data: map[string]string{"ca-bundle.crt": ca}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-config-managed", Name: "kube-apiserver-server-ca"}, Data: map[string]string{"ca-bundle.crt": ca}},
		// The CVO's admin acknowledgements (none required here).
		{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-config-managed", Name: "admin-gates"}},
	} {
		if err := ensure(kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})); err != nil {
			return fmt.Errorf("configmap %s/%s: %w", cm.Namespace, cm.Name, err)
		}
	}
	return nil
}

func installConfig(ctx context.Context, cfg configclientset.Interface, c Cluster) error {
	v1 := cfg.ConfigV1()
	cluster := metav1.ObjectMeta{Name: "cluster"}
	infra, err := v1.Infrastructures().Create(ctx, &configv1.Infrastructure{ObjectMeta: cluster,
		Spec: configv1.InfrastructureSpec{PlatformSpec: configv1.PlatformSpec{Type: configv1.NonePlatformType}}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("infrastructure: %w", err)
	}
	infra.Status = configv1.InfrastructureStatus{
		InfrastructureName:     c.InfraName,
		Platform:               configv1.NonePlatformType, //nolint:staticcheck // the MCO still reads it
		PlatformStatus:         &configv1.PlatformStatus{Type: configv1.NonePlatformType},
		EtcdDiscoveryDomain:    "",
		APIServerURL:           c.APIServerURL,
		APIServerInternalURL:   c.APIServerURL,
		ControlPlaneTopology:   configv1.HighlyAvailableTopologyMode,
		InfrastructureTopology: configv1.HighlyAvailableTopologyMode,
		CPUPartitioning:        configv1.CPUPartitioningNone,
	}
	if _, err := v1.Infrastructures().UpdateStatus(ctx, infra, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("infrastructure status: %w", err)
	}
	network, err := v1.Networks().Create(ctx, &configv1.Network{ObjectMeta: cluster, Spec: configv1.NetworkSpec{
		ClusterNetwork: []configv1.ClusterNetworkEntry{{CIDR: "10.128.0.0/14", HostPrefix: 23}},
		ServiceNetwork: []string{"172.30.0.0/16"},
		NetworkType:    "OVNKubernetes",
	}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	network.Status = configv1.NetworkStatus{NetworkType: "OVNKubernetes", ClusterNetworkMTU: 1400,
		ClusterNetwork: network.Spec.ClusterNetwork, ServiceNetwork: network.Spec.ServiceNetwork}
	// The Network CRD has no status subresource: status is written with the object.
	if _, err := v1.Networks().Update(ctx, network, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("network status: %w", err)
	}
	for what, create := range map[string]func() error{
		"dns": func() error {
			_, err := v1.DNSes().Create(ctx, &configv1.DNS{ObjectMeta: cluster, Spec: configv1.DNSSpec{BaseDomain: c.InfraName + ".tandem.test"}}, metav1.CreateOptions{})
			return err
		},
		"image": func() error {
			_, err := v1.Images().Create(ctx, &configv1.Image{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"proxy": func() error {
			_, err := v1.Proxies().Create(ctx, &configv1.Proxy{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"apiserver": func() error {
			_, err := v1.APIServers().Create(ctx, &configv1.APIServer{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"node": func() error {
			_, err := v1.Nodes().Create(ctx, &configv1.Node{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"scheduler": func() error {
			_, err := v1.Schedulers().Create(ctx, &configv1.Scheduler{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"featuregate": func() error {
			_, err := v1.FeatureGates().Create(ctx, &configv1.FeatureGate{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		"clusterversion": func() error {
			_, err := v1.ClusterVersions().Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"},
				Spec: configv1.ClusterVersionSpec{ClusterID: configv1.ClusterID("c0ffee00-0000-4000-8000-" + fmt.Sprintf("%012x", len(c.InfraName)))}}, metav1.CreateOptions{})
			return err
		},
	} {
		if err := ensureErr(create()); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// ensure treats an object that exists already as made.
func ensure[T any](_ T, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func ensureErr(err error) error { return ensure(struct{}{}, err) }
