package render

import (
	"context"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// sync renders one pool: plan, then create the rendered config, point the
// pool at it, report the condition, and collect garbage.
func (c *Controller) sync(ctx context.Context, name string) error {
	logger := klog.FromContext(ctx).WithValues("pool", name)
	cached, err := c.poolLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting pool %s: %w", name, err)
	}
	pool := cached.DeepCopy()
	all, err := c.mcLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing MachineConfigs: %w", err)
	}

	cc, err := c.controllerConfig()
	if err != nil {
		return err
	}
	res := Plan(pool, all, PlanOptions{ControllerConfig: cc, Defaults: c.opts.Defaults, ControllerVersion: c.opts.ControllerVersion})
	if res.SelectsAll {
		c.recorder.Event(pool, corev1.EventTypeWarning, "SelectingAll",
			"This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.")
		return nil
	}
	if res.Degraded() {
		// Invalid input does not heal by retrying; a MachineConfig or pool
		// change requeues the pool. The current rendered config stays.
		logger.Info("Rendering failed; keeping the current rendered config", "reason", res.Reason, "err", res.Err.Error(),
			"current", pool.Spec.Configuration.Name)
		changed, err := c.updateStatus(ctx, pool, res)
		if changed {
			c.recorder.Eventf(pool, corev1.EventTypeWarning, "RenderDegraded", "%s: %v", res.Reason, res.Err)
		}
		return err
	}

	if err := c.ensureRendered(ctx, pool, res.Rendered); err != nil {
		return err
	}
	if want, changed := DesiredSpecConfiguration(pool, res); changed {
		pool.Spec.Configuration = want
		updated, err := c.mcfg.MachineconfigurationV1().MachineConfigPools().Update(ctx, pool, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("pointing pool %s at %s: %w", pool.Name, want.Name, err)
		}
		pool = updated
		logger.Info("Pool now targets rendered config", "config", want.Name, "sources", len(want.Source))
	}
	if _, err := c.updateStatus(ctx, pool, res); err != nil {
		return err
	}
	return c.collectGarbage(ctx, pool)
}

// ensureRendered creates the rendered config if it is missing, and repairs
// its spec if someone edited it (its name promises its content).
func (c *Controller) ensureRendered(ctx context.Context, pool *mcfgv1.MachineConfigPool, rendered *mcfgv1.MachineConfig) error {
	client := c.mcfg.MachineconfigurationV1().MachineConfigs()
	existing, err := c.mcLister.Get(rendered.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := client.Create(ctx, rendered, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s: %w", rendered.Name, err)
		}
		klog.FromContext(ctx).Info("Generated rendered config", "pool", pool.Name, "config", rendered.Name)
		c.recorder.Eventf(pool, corev1.EventTypeNormal, "RenderedConfigGenerated", "%s successfully generated", rendered.Name)
		return nil
	case err != nil:
		return fmt.Errorf("getting %s: %w", rendered.Name, err)
	}
	if h, err := mcfg.RenderedName(pool.Name, existing.Spec); err == nil && h == rendered.Name {
		return nil
	}
	fixed := existing.DeepCopy()
	fixed.Spec = rendered.Spec
	if _, err := client.Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("restoring the content of %s: %w", rendered.Name, err)
	}
	klog.FromContext(ctx).Info("Restored edited rendered config", "config", rendered.Name)
	return nil
}

// updateStatus writes the status DesiredStatus asks for and tells whether it changed.
func (c *Controller) updateStatus(ctx context.Context, pool *mcfgv1.MachineConfigPool, res Result) (bool, error) {
	st, changed := DesiredStatus(pool, res, metav1.NewTime(c.now()))
	if !changed {
		return false, nil
	}
	pool = pool.DeepCopy()
	pool.Status = st
	if _, err := c.mcfg.MachineconfigurationV1().MachineConfigPools().UpdateStatus(ctx, pool, metav1.UpdateOptions{}); err != nil {
		return true, fmt.Errorf("updating status of pool %s: %w", pool.Name, err)
	}
	return true, nil
}

// collectGarbage deletes the pool's rendered configs that no pool and no
// node uses, once they are past the grace period; it requeues the pool for
// the ones still in it. pool is the object just written, which the informer
// cache may not show yet: its configurations are protected whatever the
// cache says.
func (c *Controller) collectGarbage(ctx context.Context, pool *mcfgv1.MachineConfigPool) error {
	if c.opts.GCGracePeriod < 0 {
		return nil
	}
	pools, err := c.poolLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing pools: %w", err)
	}
	nodes, err := c.nodeLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	configs, err := c.mcLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing MachineConfigs: %w", err)
	}
	garbage, recheck := Garbage(pool.Name, configs, ConfigsInUse(append(pools, pool), nodes), c.now(), c.opts.GCGracePeriod)
	if len(garbage) > 0 {
		// Deleting is final: confirm with fresh lists that no node or pool
		// took one of these configs since the cache was filled.
		inUse, err := c.liveConfigsInUse(ctx)
		if err != nil {
			return err
		}
		garbage, recheck = Garbage(pool.Name, configs, inUse.Union(ConfigsInUse([]*mcfgv1.MachineConfigPool{pool}, nil)), c.now(), c.opts.GCGracePeriod)
	}
	for _, name := range garbage {
		err := c.mcfg.MachineconfigurationV1().MachineConfigs().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting unused rendered config %s: %w", name, err)
		}
		klog.FromContext(ctx).Info("Deleted unused rendered config", "pool", pool.Name, "config", name)
		c.recorder.Eventf(pool, corev1.EventTypeNormal, "RenderedConfigDeleted", "%s is used by no pool or node and was deleted", name)
	}
	if recheck > 0 {
		c.queue.AddAfter(pool.Name, recheck)
	}
	return nil
}

// liveConfigsInUse is ConfigsInUse over pools and nodes read from the API.
func (c *Controller) liveConfigsInUse(ctx context.Context) (sets.Set[string], error) {
	poolList, err := c.mcfg.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing pools: %w", err)
	}
	nodeList, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	pools := make([]*mcfgv1.MachineConfigPool, 0, len(poolList.Items))
	for i := range poolList.Items {
		pools = append(pools, &poolList.Items[i])
	}
	nodes := make([]*corev1.Node, 0, len(nodeList.Items))
	for i := range nodeList.Items {
		nodes = append(nodes, &nodeList.Items[i])
	}
	return ConfigsInUse(pools, nodes), nil
}
