package framework

import (
	"context"
	"fmt"
	"net/url"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tandem-mco/tandem/pkg/etcddiscovery"
)

// PublishEtcdObjects writes what OpenShift's etcd operator publishes for a
// TLS cluster (openshift/cluster-etcd-operator release-4.21):
// openshift-etcd/etcd-endpoints as its EtcdEndpointsController writes it
// (member ID in hex -> the IP of its first peer URL, learners left out;
// pkg/operator/etcdendpointscontroller/etcdendpointscontroller.go), and the
// client certificate and CA bundle its resource sync copies to
// openshift-config (pkg/operator/resourcesynccontroller/resourcesynccontroller.go:
// etcd-client, etcd-ca-bundle and etcd-serving-ca).
func PublishEtcdObjects(ctx context.Context, kube kubernetes.Interface, cluster *EtcdCluster, cert, key []byte) error {
	if cluster.TLS() == nil {
		return fmt.Errorf("publishing etcd's objects: the cluster serves no TLS, OpenShift's etcd always does")
	}
	cli, err := cluster.Client()
	if err != nil {
		return err
	}
	defer cli.Close()
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	list, err := cli.MemberList(lctx)
	if err != nil {
		return fmt.Errorf("listing etcd members: %w", err)
	}
	endpoints := map[string]string{}
	for _, m := range list.Members {
		if m.IsLearner {
			continue
		}
		u, err := url.Parse(m.PeerURLs[0])
		if err != nil {
			return fmt.Errorf("member %x peer URL: %w", m.ID, err)
		}
		endpoints[fmt.Sprintf("%x", m.ID)] = u.Hostname()
	}
	ca := string(cluster.TLS().CAPEM)
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: etcddiscovery.EndpointsNamespace, Name: etcddiscovery.EndpointsName}, Data: endpoints},
		{ObjectMeta: metav1.ObjectMeta{Namespace: etcddiscovery.ConfigNamespace, Name: etcddiscovery.CABundleName}, Data: map[string]string{etcddiscovery.CABundleKey: ca}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: etcddiscovery.ConfigNamespace, Name: etcddiscovery.ServingCAName}, Data: map[string]string{etcddiscovery.CABundleKey: ca}},
	} {
		if err := ensureNamespace(ctx, kube, cm.Namespace); err != nil {
			return err
		}
		if _, err := kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s/%s: %w", cm.Namespace, cm.Name, err)
		}
	}
	return PutEtcdClientCert(ctx, kube, cert, key)
}

// PutEtcdClientCert creates or replaces openshift-config/etcd-client (a
// kubernetes.io/tls Secret, as the etcd operator's cert signer makes it).
func PutEtcdClientCert(ctx context.Context, kube kubernetes.Interface, cert, key []byte) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: etcddiscovery.ConfigNamespace, Name: etcddiscovery.ClientCertName},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key}}
	secrets := kube.CoreV1().Secrets(s.Namespace)
	_, err := secrets.Create(ctx, s, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing %s/%s: %w", s.Namespace, s.Name, err)
	}
	return nil
}

func ensureNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}
