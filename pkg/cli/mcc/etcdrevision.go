package mcc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// etcdOperatorObject is the etcd operator's one object; its status tells
// the revision rollout (node.EtcdRevisionVerdict).
const etcdOperatorObject = "cluster"

// etcdRevisionGate returns the gate that holds the control plane's grants
// while the etcd operator rolls a revision, and the Run that feeds it (a
// watch of etcds.operator.openshift.io/cluster); nil, nil when the API is
// not served (no etcd operator: nothing rolls).
func etcdRevisionGate(cfg *rest.Config) (node.DisruptionGate, func(context.Context) error, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	served, err := etcdsServed(d)
	if err != nil {
		return nil, nil, err
	}
	if !served {
		klog.InfoS("The etcd operator's API is not served; the control plane's grants do not wait for etcd revisions", "api", "etcds.operator.openshift.io/v1")
		return nil, nil, nil
	}
	client, err := operatorclientset.NewForConfig(rest.AddUserAgent(rest.CopyConfig(cfg), "machine-config-controller/etcd-revision-gate"))
	if err != nil {
		return nil, nil, fmt.Errorf("operator client: %w", err)
	}
	factory := operatorinformers.NewSharedInformerFactoryWithOptions(client, 0, operatorinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", etcdOperatorObject).String()
	}))
	etcds := factory.Operator().V1().Etcds()
	informer := etcds.Informer()
	gate := node.EtcdRevisionGate{Read: func() (node.EtcdRevisionState, error) {
		if !informer.HasSynced() {
			return node.EtcdRevisionState{}, errors.New("the watch of etcds.operator.openshift.io has not synced yet")
		}
		e, err := etcds.Lister().Get(etcdOperatorObject)
		if apierrors.IsNotFound(err) {
			return node.EtcdRevisionState{}, nil
		}
		if err != nil {
			return node.EtcdRevisionState{}, err
		}
		return node.EtcdRevisionState{Etcd: e}, nil
	}}
	run := func(ctx context.Context) error {
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
		return nil
	}
	return gate, run, nil
}

// etcdsServed reports whether the API server serves etcds.operator.openshift.io/v1.
func etcdsServed(d discovery.DiscoveryInterface) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion("operator.openshift.io/v1")
	if err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) || strings.Contains(err.Error(), "could not find the requested resource") {
			return false, nil
		}
		return false, fmt.Errorf("discovering operator.openshift.io/v1: %w", err)
	}
	for _, r := range list.APIResources {
		if r.Name == "etcds" {
			return true, nil
		}
	}
	return false, nil
}
