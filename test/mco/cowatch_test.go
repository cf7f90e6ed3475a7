//go:build mco

package mco

import (
	"context"
	"fmt"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/test/mcoworld"
)

// coWatch follows the machine-config ClusterOperator's conditions over the
// whole upgrade, as an e2e-upgrade job's monitor does (origin's
// clusteroperator intervals): a moment Degraded or not Available counts,
// not only the state at the end. Progressing must be seen True: the MCO's
// operator reports an upgrade it works on (pkg/operator/status.go,
// syncProgressingStatus, release-4.21).
type coWatch struct {
	cancel context.CancelFunc

	mu                                   sync.Mutex
	degraded, unavailable, progressing   int
	degradedWas, unavailableWas, progWas bool
	lastDegraded, lastProgressing        string
}

func startCOWatch(ctx context.Context, t *testing.T, w *mcoworld.World) *coWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	c := &coWatch{cancel: cancel}
	factory := configinformers.NewSharedInformerFactory(w.Config, 0)
	informer := factory.Config().V1().ClusterOperators().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.seen(obj.(*configv1.ClusterOperator)) },
		UpdateFunc: func(_, cur any) { c.seen(cur.(*configv1.ClusterOperator)) },
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		cancel()
		t.Fatal("the watch of the ClusterOperators did not sync")
	}
	t.Cleanup(factory.Shutdown)
	return c
}

func (c *coWatch) stop() { c.cancel() }

// seen counts each episode that starts (a condition turning bad or
// Progressing turning True).
func (c *coWatch) seen(co *configv1.ClusterOperator) {
	if co.Name != "machine-config" {
		return
	}
	degraded, available, progressing := coCondition(co, configv1.OperatorDegraded), coCondition(co, configv1.OperatorAvailable), coCondition(co, configv1.OperatorProgressing)
	c.mu.Lock()
	defer c.mu.Unlock()
	if degraded && !c.degradedWas {
		c.degraded++
		c.lastDegraded = coMessage(co, configv1.OperatorDegraded)
	}
	if !available && !c.unavailableWas {
		c.unavailable++
	}
	if progressing && !c.progWas {
		c.progressing++
		c.lastProgressing = coMessage(co, configv1.OperatorProgressing)
	}
	c.degradedWas, c.unavailableWas, c.progWas = degraded, !available, progressing
}

// judge reports the episodes and fails on a Degraded or unavailable one, or
// on an upgrade the operator never reported Progressing.
func (c *coWatch) judge(t *testing.T) string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.degraded > 0 {
		t.Errorf("the machine-config ClusterOperator went Degraded %d times during the upgrade (last: %s)", c.degraded, c.lastDegraded)
	}
	if c.unavailable > 0 {
		t.Errorf("the machine-config ClusterOperator was not Available %d times during the upgrade", c.unavailable)
	}
	if c.progressing == 0 {
		t.Error("the machine-config ClusterOperator never reported Progressing during the upgrade")
	}
	return fmt.Sprintf("co_degraded_seen=%d co_unavailable_seen=%d co_progressing_seen=%d", c.degraded, c.unavailable, c.progressing)
}
