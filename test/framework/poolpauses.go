package framework

import (
	"context"
	"fmt"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"k8s.io/client-go/tools/cache"
)

// PoolPauses counts the MachineConfigPools seen going paused (or paused
// when the watch starts) in some clusters: a rollout that must coalesce
// or order updates by itself is judged to have had no pool paused by
// anyone.
type PoolPauses struct {
	mu     sync.Mutex
	pauses int
}

// WatchPoolPauses watches the pools of each cluster until ctx ends; it
// returns once the watches have synced.
func WatchPoolPauses(ctx context.Context, clusters ...mcfgclientset.Interface) (*PoolPauses, error) {
	p := &PoolPauses{}
	var synced []cache.InformerSynced
	for _, c := range clusters {
		f := mcfginformers.NewSharedInformerFactory(c, 0)
		pools := f.Machineconfiguration().V1().MachineConfigPools().Informer()
		if _, err := pools.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { p.changed(nil, obj.(*mcfgv1.MachineConfigPool)) },
			UpdateFunc: func(old, cur any) { p.changed(old.(*mcfgv1.MachineConfigPool), cur.(*mcfgv1.MachineConfigPool)) },
		}); err != nil {
			return nil, err
		}
		f.Start(ctx.Done())
		synced = append(synced, pools.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil, fmt.Errorf("pool pause watch: caches did not sync")
	}
	return p, nil
}

func (p *PoolPauses) changed(old, cur *mcfgv1.MachineConfigPool) {
	if cur.Spec.Paused && (old == nil || !old.Spec.Paused) {
		p.mu.Lock()
		p.pauses++
		p.mu.Unlock()
	}
}

// Count is the number of pauses seen so far.
func (p *PoolPauses) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pauses
}
