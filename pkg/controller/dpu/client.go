package dpu

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// HostMaintenances is a small typed client for HostMaintenance objects (a
// cluster-scoped resource), over client-go's REST client. It is all the
// infra identity and the tenant controller need, without generated clients.
type HostMaintenances struct {
	rc rest.Interface
}

// NewHostMaintenances makes a client for the cluster cfg points at.
func NewHostMaintenances(cfg *rest.Config) (*HostMaintenances, error) {
	scheme := runtime.NewScheme()
	if err := dpuv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &dpuv1.GroupVersion
	c.APIPath = "/apis"
	c.ContentType = runtime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("hostmaintenance client: %w", err)
	}
	return &HostMaintenances{rc: rc}, nil
}

const resource = dpuv1.HostMaintenanceResource

// Get returns one request.
func (c *HostMaintenances) Get(ctx context.Context, name string) (*dpuv1.HostMaintenance, error) {
	out := &dpuv1.HostMaintenance{}
	err := c.rc.Get().Resource(resource).Name(name).Do(ctx).Into(out)
	return out, err
}

// List lists requests.
func (c *HostMaintenances) List(ctx context.Context, opts metav1.ListOptions) (*dpuv1.HostMaintenanceList, error) {
	out := &dpuv1.HostMaintenanceList{}
	err := c.rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
	return out, err
}

// Watch watches requests.
func (c *HostMaintenances) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
}

// Create creates a request.
func (c *HostMaintenances) Create(ctx context.Context, hm *dpuv1.HostMaintenance) (*dpuv1.HostMaintenance, error) {
	out := &dpuv1.HostMaintenance{}
	err := c.rc.Post().Resource(resource).Body(hm).Do(ctx).Into(out)
	return out, err
}

// Delete deletes a request; opts may carry a UID precondition.
func (c *HostMaintenances) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return c.rc.Delete().Resource(resource).Name(name).Body(&opts).Do(ctx).Error()
}

// UpdateStatus writes a request's status (optimistic concurrency on resourceVersion).
func (c *HostMaintenances) UpdateStatus(ctx context.Context, hm *dpuv1.HostMaintenance) (*dpuv1.HostMaintenance, error) {
	out := &dpuv1.HostMaintenance{}
	err := c.rc.Put().Resource(resource).Name(hm.Name).SubResource("status").Body(hm).Do(ctx).Into(out)
	return out, err
}

// IndexByNode indexes requests by spec.nodeName.
const IndexByNode = "nodeName"

// NewInformer returns a shared informer of every HostMaintenance, indexed by
// spec.nodeName. The caller runs it.
func (c *HostMaintenances) NewInformer(resync time.Duration) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, o)
		},
	}
	return cache.NewSharedIndexInformer(lw, &dpuv1.HostMaintenance{}, resync, cache.Indexers{
		IndexByNode: func(obj any) ([]string, error) {
			if hm, ok := obj.(*dpuv1.HostMaintenance); ok {
				return []string{hm.Spec.NodeName}, nil
			}
			return nil, nil
		},
	})
}
