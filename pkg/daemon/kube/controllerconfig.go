package kube

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/certs"
)

// WatchControllerConfig calls changed with ControllerConfig
// machine-config-controller whenever it is added or updated (nil when it is
// deleted), until ctx ends; the certificate writer's trigger, as the MCO's
// daemon's ControllerConfig informer is (pkg/daemon/daemon.go, release-4.21).
func (c *Client) WatchControllerConfig(ctx context.Context, changed func(*mcfgv1.ControllerConfig)) {
	api := c.MCO.MachineconfigurationV1().ControllerConfigs()
	lw := oneNamed(certs.ControllerConfigName, api.List, api.Watch)
	give := func(obj any) {
		cc, _ := obj.(*mcfgv1.ControllerConfig)
		changed(cc)
	}
	_, inf := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &mcfgv1.ControllerConfig{},
		// A resync hands the same object again: the writer does nothing
		// when the node has synced it, and heals a sync that failed.
		ResyncPeriod: 10 * time.Minute,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    give,
			UpdateFunc: func(_, n any) { give(n) },
			DeleteFunc: func(any) { changed(nil) },
		},
	})
	klog.FromContext(ctx).V(2).Info("watching the ControllerConfig", "name", certs.ControllerConfigName)
	inf.RunWithContext(ctx)
}

// ServerCABundle returns the rotated kube-apiserver serving CA bundle the
// MCO's operator keeps in ConfigMap openshift-machine-config-operator/
// kubeconfig-data, key ca-bundle.crt: binaryData first, else data (base64
// decoded when it decodes, else as it is), as the MCO's cmToData reads it
// (certificate_writer.go, release-4.21). nil, nil when the ConfigMap or the
// key is not there.
func (c *Client) ServerCABundle(ctx context.Context) ([]byte, error) {
	cm, err := c.Kube.CoreV1().ConfigMaps(certs.ServerCANamespace).Get(ctx, certs.ServerCAConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting ConfigMap %s/%s: %w", certs.ServerCANamespace, certs.ServerCAConfigMap, err)
	}
	if b, ok := cm.BinaryData[certs.ServerCAKey]; ok {
		return b, nil
	}
	if s, ok := cm.Data[certs.ServerCAKey]; ok {
		if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
			return raw, nil
		}
		return []byte(s), nil
	}
	return nil, nil
}
