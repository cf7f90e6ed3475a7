//go:build integration

package breaker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/world"
)

// blipNode is a tenant worker without a DPU (its update is the planner's
// alone).
func blipNode(t *testing.T, w *world.World) string {
	t.Helper()
	for _, name := range slices.Backward(w.Order) {
		if n := w.Nodes[name]; n.Cluster == w.Tenant && n.Pool == constants.WorkerPool && n.Pair == "" {
			return name
		}
	}
	t.Fatal("no tenant worker without a DPU")
	return ""
}

func setPoolGrace(ctx context.Context, t *testing.T, c *world.Cluster, pool string, grace time.Duration) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		constants.FailedNodeGraceAnnotation: grace.String()}}})
	if _, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, pool, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("setting %s on pool %s: %v", constants.FailedNodeGraceAnnotation, pool, err)
	}
}

// placeObstacle makes a directory (not empty) where the update's file goes
// on node's root: the daemon's backup of that path, and so its WriteFiles
// step, fails until the directory is gone.
func placeObstacle(w *world.World, node string) (string, error) {
	dir := filepath.Join(w.Nodes[node].Sim.Root, world.UpdateFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "in-the-way"), []byte("a blip\n"), 0o644)
}

// blipSeen is what the blip fault saw.
type blipSeen struct {
	degradedSince time.Time // the node's NodeDegraded condition turned True
	pending       string    // the pool's RolloutHalted message while the failure was pending
	removedAt     time.Time
}

// blipFault waits, from the moment the update is published, for node to
// fail its WriteFiles (Degraded on its node and its MachineConfigNode) and
// for the controller to show the failure as pending on the pool, then
// removes the obstacle: the node was Degraded for a few seconds.
func blipFault(node, obstacle string, seen *blipSeen) world.Fault {
	return world.Fault{
		ID: "write-blip", Name: "a transient WriteFiles failure on " + node,
		When: func(*world.World, []world.Row) bool { return true },
		Do: func(ctx context.Context, w *world.World) error {
			c := w.Tenant
			last := ""
			err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
				n, err := c.CP.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
				if err != nil {
					last = err.Error()
					return false, nil
				}
				since, degraded, err := world.DegradedSince(ctx, c, node)
				if err != nil {
					last = err.Error()
					return false, nil
				}
				last = fmt.Sprintf("state=%s reason=%q NodeDegraded=%v", n.Annotations[constants.StateAnnotation],
					n.Annotations[constants.ReasonAnnotation], degraded)
				seen.degradedSince = since
				return degraded, nil
			})
			if err != nil {
				_ = os.RemoveAll(obstacle)
				return fmt.Errorf("%s never turned Degraded on its MachineConfigNode: last %s: %w", node, last, err)
			}
			// Well within the grace: a controller that did not show the
			// failure as pending by then fails the test. The obstacle goes
			// either way, so the rollout can end.
			halted := "none seen"
			err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, blipGrace/3, true, func(ctx context.Context) (bool, error) {
				p, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				for _, cd := range p.Status.Conditions {
					if cd.Type == constants.PoolRolloutHaltedCondition {
						halted = fmt.Sprintf("%s %s %q", cd.Status, cd.Reason, cd.Message)
						if cd.Status == corev1.ConditionFalse && cd.Reason == "FailurePending" && strings.Contains(cd.Message, node) {
							seen.pending = cd.Message
							return true, nil
						}
					}
				}
				return false, nil
			})
			seen.removedAt = time.Now()
			if rmErr := os.RemoveAll(obstacle); rmErr != nil {
				return rmErr
			}
			if err != nil {
				return fmt.Errorf("the pool never showed %s's failure as pending: RolloutHalted last %s: %w", node, halted, err)
			}
			return nil
		},
	}
}

// poolWatch records, from watches, whether the pool's RolloutHalted ever
// turned True and which nodes lost their stageConfig before their grant
// (the breaker's unstaging).
type poolWatch struct {
	mu        sync.Mutex
	halted    string
	withdrawn []string
}

func (p *poolWatch) results() (string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.halted, slices.Clone(p.withdrawn)
}

func watchPool(ctx context.Context, t *testing.T, c *world.Cluster, pool string) *poolWatch {
	t.Helper()
	pw := &poolWatch{}
	ctx, cancel := context.WithCancel(ctx)
	kf := informers.NewSharedInformerFactory(c.CP.Kube, 0)
	mf := mcfginformers.NewSharedInformerFactory(c.CP.MCO, 0)
	onPool := func(obj any) {
		p, ok := obj.(*mcfgv1.MachineConfigPool)
		if !ok || p.Name != pool {
			return
		}
		for _, cd := range p.Status.Conditions {
			if cd.Type == constants.PoolRolloutHaltedCondition && cd.Status == corev1.ConditionTrue {
				pw.mu.Lock()
				pw.halted = cd.Message
				pw.mu.Unlock()
			}
		}
	}
	if _, err := mf.Machineconfiguration().V1().MachineConfigPools().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onPool, UpdateFunc: func(_, cur any) { onPool(cur) },
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := kf.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(old, cur any) {
			o, n := old.(*corev1.Node), cur.(*corev1.Node)
			stage := o.Annotations[constants.StageConfigAnnotation]
			if _, still := n.Annotations[constants.StageConfigAnnotation]; stage != "" && !still &&
				n.Annotations[constants.DesiredConfigAnnotation] != stage {
				pw.mu.Lock()
				pw.withdrawn = append(pw.withdrawn, n.Name)
				pw.mu.Unlock()
			}
		},
	}); err != nil {
		t.Fatal(err)
	}
	kf.Start(ctx.Done())
	mf.Start(ctx.Done())
	sctx, scancel := context.WithTimeout(ctx, time.Minute)
	defer scancel()
	for typ, ok := range kf.WaitForCacheSync(sctx.Done()) {
		if !ok {
			t.Fatalf("the watch of %v did not sync within a minute", typ)
		}
	}
	for typ, ok := range mf.WaitForCacheSync(sctx.Done()) {
		if !ok {
			t.Fatalf("the watch of %v did not sync within a minute", typ)
		}
	}
	t.Cleanup(func() { cancel(); kf.Shutdown(); mf.Shutdown() })
	return pw
}

// countPoolEvents counts the events of reason recorded on the pool.
func countPoolEvents(ctx context.Context, t *testing.T, c *world.Cluster, pool, reason string) int {
	t.Helper()
	evs, err := c.CP.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=MachineConfigPool,involvedObject.name=" + pool + ",reason=" + reason})
	if err != nil {
		t.Fatalf("listing the pool's events: %v", err)
	}
	return len(evs.Items)
}
