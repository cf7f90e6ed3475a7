//go:build integration

package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/metrics"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestUpdateDelayPlansABurstOnce: with node.Options.UpdateDelay a burst of
// node changes is planned together, as the MCO's node controller does with
// its 5 s delay; without it every change is planned (the figure it saves
// at scale is in docs/benchmarks.md, make bench-scale). The count comes
// from tandem_mcc_plan_duration_seconds, which times every plan.
func TestUpdateDelayPlansABurstOnce(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "update-delay"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const nodes = 20
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("w%02d", i)
	}
	createWorkers(ctx, t, cp, "rendered-worker-a", true, names...)

	plansOfABurst := func(delay time.Duration, round int) uint64 {
		cctx, stop := context.WithCancel(ctx)
		var running sync.WaitGroup
		defer func() { stop(); running.Wait() }()
		reg := prometheus.NewRegistry()
		pm := metrics.NewPlan(reg)
		kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
		mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
		ctrl := node.NewController(cp.Kube, cp.MCO, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
			node.Options{PlanMetrics: pm, UpdateDelay: delay, Resync: time.Hour})
		kubeInf.Start(cctx.Done())
		mcoInf.Start(cctx.Done())
		running.Add(1)
		go func() { defer running.Done(); _ = ctrl.Run(cctx, 1) }()
		count := func() uint64 {
			var m dto.Metric
			if err := pm.Duration.WithLabelValues(constants.WorkerPool).(prometheus.Histogram).Write(&m); err != nil {
				t.Fatal(err)
			}
			return m.GetHistogram().GetSampleCount()
		}
		// Settled: the start's plans are done when the count stops moving.
		settle := func(what string) uint64 {
			last, still := count(), 0
			for deadline := time.Now().Add(time.Minute); still < 10; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("plans still moving 1m after %s (count %d)", what, last)
				}
				if c := count(); c == last {
					still++
				} else {
					last, still = c, 0
				}
			}
			return last
		}
		before := settle("the start")
		// One change per node, in quick succession: a label the planner reads.
		for i := range nodes {
			patch := fmt.Sprintf(`{"metadata":{"labels":{"topology.kubernetes.io/zone":"zone-%d-%d"}}}`, round, i)
			if _, err := cp.Kube.CoreV1().Nodes().Patch(ctx, fmt.Sprintf("w%02d", i), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(delay)
		return settle("the burst") - before
	}

	at0 := plansOfABurst(0, 0)
	delayed := plansOfABurst(3*time.Second, 1)
	t.Logf("update-delay: plans for a burst of %d node changes: %d at once, %d with a 3s delay", nodes, at0, delayed)
	if delayed > 2 {
		t.Errorf("with a 3s update delay the burst took %d plans, want at most 2 (changes planned together)", delayed)
	}
	if at0 < 5 {
		t.Errorf("without a delay the burst took only %d plans: the test's burst no longer shows the difference", at0)
	}
}
