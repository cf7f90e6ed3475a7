// Package layering tells which pools use the MCO's on-cluster layering,
// which tandem does not roll out: a pool is layered when a MachineOSConfig
// (machineconfiguration.openshift.io/v1) names it in
// spec.machineConfigPool.name. That is the MCO's rule
// (openshift/machine-config-operator release-4.21 at
// db84d8368ef78e50f3bc0961dcf2b27a7975e053: pkg/controller/common/mos_state.go
// IsLayeredPool, "mosc != nil || mosb != nil", where the node controller's
// getConfigAndBuild in pkg/controller/node/node_controller.go finds a
// MachineOSBuild only through the pool's MachineOSConfig, so the
// MachineOSConfig decides). The MCO's node controller then neither writes a
// node's desiredConfig nor touches its taints and annotations until the
// pool's image is built (syncMachineConfigPool returns with syncStatusOnly);
// tandem, which builds no image, holds such a pool for as long as the
// MachineOSConfig is there and says so in the pool's status.
package layering

import (
	"fmt"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// ConfigFor returns the name of the MachineOSConfig that makes pool layered,
// "" when none does. The CRD allows one per pool, named as the pool (its
// rule "MachineOSConfig name must match the referenced MachineConfigPool
// name"); should several name the pool anyway, the first by name is
// returned, so the answer does not depend on the order of the list.
func ConfigFor(moscs []*mcfgv1.MachineOSConfig, pool string) string {
	var names []string
	for _, m := range moscs {
		if m != nil && m.Spec.MachineConfigPool.Name == pool {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

// Source reads the MachineOSConfigs from an informer's cache. A nil Source
// reads nothing: no pool is layered.
type Source struct {
	lister mcfglisters.MachineOSConfigLister
	synced cache.InformerSynced
}

// NewSource watches the MachineOSConfigs; onPool is called with the pool a
// MachineOSConfig names when one is added, changed (both the old and the
// new pool) or deleted. A nil informer gives a nil Source.
func NewSource(inf mcfginformers.MachineOSConfigInformer, onPool func(pool string)) (*Source, error) {
	if inf == nil {
		return nil, nil
	}
	pool := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if m, ok := obj.(*mcfgv1.MachineOSConfig); ok && m.Spec.MachineConfigPool.Name != "" {
			onPool(m.Spec.MachineConfigPool.Name)
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    pool,
		UpdateFunc: func(old, cur any) { pool(old); pool(cur) },
		DeleteFunc: pool,
	}); err != nil {
		return nil, fmt.Errorf("watching MachineOSConfigs: %w", err)
	}
	return &Source{lister: inf.Lister(), synced: inf.Informer().HasSynced}, nil
}

// Synced is the informer's HasSynced; nil for a nil Source.
func (s *Source) Synced() cache.InformerSynced {
	if s == nil {
		return nil
	}
	return s.synced
}

// ConfigFor is ConfigFor over the cached MachineOSConfigs.
func (s *Source) ConfigFor(pool string) (string, error) {
	if s == nil {
		return "", nil
	}
	moscs, err := s.lister.List(labels.Everything())
	if err != nil {
		return "", fmt.Errorf("listing MachineOSConfigs: %w", err)
	}
	return ConfigFor(moscs, pool), nil
}
