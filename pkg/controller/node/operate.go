package node

import (
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// recordOperational sets the series the alerts read: how long disruption
// has been held and why, the breaker, failed nodes, and the MCO's
// mcc_sub_controller_state and mcc_pool_alert.
func (c *Controller) recordOperational(pool *mcfgv1.MachineConfigPool, views []NodeView, r Result, now time.Time) {
	m := c.opts.Metrics
	m.DisruptionHeldSeconds.DeletePartialMatch(map[string]string{"pool": pool.Name})
	if held := FindCondition(r.Status.Conditions, constants.PoolDisruptionHeldCondition); held != nil && held.Status == corev1.ConditionTrue {
		m.DisruptionHeldSeconds.WithLabelValues(pool.Name, held.Reason).Set(now.Sub(held.LastTransitionTime.Time).Seconds())
	}
	open := 0.0
	if conditionTrue(r.Status.Conditions, constants.PoolRolloutHaltedCondition) {
		open = 1
	}
	m.BreakerOpen.WithLabelValues(pool.Name).Set(open)
	m.FailedNodes.WithLabelValues(pool.Name).Set(float64(len(r.Breaker.Failed)))
	// The MCO's node controller marks each pool sync (node_controller.go syncMachineConfigPool).
	m.MCO.SubControllerState.WithLabelValues("machine-config-controller-node", "Sync Machine Config Pool", pool.Name).SetToCurrentTime()
	if pool.Name != constants.MasterPool {
		return
	}
	pools, err := c.pools.List(labels.Everything())
	if err != nil {
		return
	}
	for _, v := range views {
		n, err := c.nodes.Get(v.Name)
		if err != nil {
			continue
		}
		m.MCO.PoolAlert.WithLabelValues(v.Name).Set(PoolAlert(pools, n))
	}
}

// PoolAlert is the MCO's mcc_pool_alert value for a node (helpers.go
// GetPoolsForNode at release-4.20): 1 when it matches the master pool and a
// custom pool, so the custom pool's config is not applied; else 0.
func PoolAlert(pools []*mcfgv1.MachineConfigPool, n *corev1.Node) float64 {
	master, custom := false, 0
	for _, p := range pools {
		ok, err := selects(p, n)
		if err != nil || !ok {
			continue
		}
		switch p.Name {
		case constants.MasterPool:
			master = true
		case constants.WorkerPool:
		default:
			custom++
		}
	}
	if master && custom == 1 {
		return 1
	}
	return 0
}

func forgetOperational(m *metrics.Controller, pool string) {
	m.DisruptionHeldSeconds.DeletePartialMatch(map[string]string{"pool": pool})
	m.BreakerOpen.DeletePartialMatch(map[string]string{"pool": pool})
	m.FailedNodes.DeletePartialMatch(map[string]string{"pool": pool})
}
