package mcc

import (
	"context"
	"errors"
	"fmt"

	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	served, err := discovery.IsResourceEnabled(d, etcdsGVR)
	if err != nil {
		return nil, nil, fmt.Errorf("discovering %s: %w", etcdsGVR.GroupVersion(), err)
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

// etcdsGVR is the etcd operator's resource the revision gate watches.
var etcdsGVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "etcds"}
