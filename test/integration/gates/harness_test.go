//go:build integration

package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
)

const cfgA, cfgB = "rendered-worker-a", "rendered-worker-b"

// poolWorld is a real kube-apiserver with worker nodes on cfgA and a worker
// pool whose target is cfgB, for the node controller to plan.
type poolWorld struct {
	t   *testing.T
	ctx context.Context
	cp  *framework.ControlPlane
	// kubeInf feeds the controller and the gates that read the cluster.
	kubeInf informers.SharedInformerFactory
	mcoInf  mcfginformers.SharedInformerFactory
	running *sync.WaitGroup
}

// newPoolWorld creates the nodes (in order, a second apart, so their
// creation times order them), each with its own extra annotations, and the
// pool with maxUnavailable and poolAnnotations.
func newPoolWorld(t *testing.T, name string, nodes []string, nodeAnn map[string]map[string]string, maxUnavailable int, poolAnnotations map[string]string) *poolWorld {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: name})
	ctx, cancel := context.WithCancel(context.Background())
	w := &poolWorld{t: t, ctx: ctx, cp: cp, running: &sync.WaitGroup{},
		kubeInf: informers.NewSharedInformerFactory(cp.Kube, 0), mcoInf: mcfginformers.NewSharedInformerFactory(cp.MCO, 0)}
	t.Cleanup(func() { cancel(); w.running.Wait() })
	for i, n := range nodes {
		if i > 0 && nodeAnn != nil {
			time.Sleep(1100 * time.Millisecond) // creationTimestamp has seconds
		}
		ann := map[string]string{constants.CurrentConfigAnnotation: cfgA, constants.DesiredConfigAnnotation: cfgA,
			constants.StateAnnotation: constants.MachineConfigDaemonStateDone}
		for k, v := range nodeAnn[n] {
			ann[k] = v
		}
		nd := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}, Annotations: ann}}
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, nd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	maxU := intstr.FromInt(maxUnavailable)
	pool := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool, Annotations: poolAnnotations},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}},
			Configuration:  mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: cfgB}},
			MaxUnavailable: &maxU,
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// start runs the node controller, wired as cmd/machine-config-controller
// wires it, with the given cluster gates.
func (w *poolWorld) start(gates ...node.DisruptionGate) {
	ctrl := node.NewController(w.cp.Kube, w.cp.MCO, w.kubeInf.Core().V1().Nodes(), w.mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		node.Options{Gates: gates, Resync: 300 * time.Millisecond})
	w.kubeInf.Start(w.ctx.Done())
	w.mcoInf.Start(w.ctx.Done())
	w.goRun(func(ctx context.Context) { _ = ctrl.Run(ctx, 1) })
}

// goRun runs f until the test ends, and waits for it at cleanup.
func (w *poolWorld) goRun(f func(context.Context)) {
	w.running.Add(1)
	go func() { defer w.running.Done(); f(w.ctx) }()
}

// state waits (bounded) until the pool's DisruptionHeld shows reason (""
// for False) with msg in its message and the nodes' (stageConfig,
// desiredConfig) are as wanted; it fails with what it saw last.
func (w *poolWorld) state(step, reason, msg string, want map[string][2]string) {
	w.t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(w.ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		var held mcfgv1.MachineConfigPoolCondition
		for _, c := range p.Status.Conditions {
			if c.Type == constants.PoolDisruptionHeldCondition {
				held = c
			}
		}
		last = fmt.Sprintf("DisruptionHeld=%s/%s %q", held.Status, held.Reason, held.Message)
		ok := held.Reason == reason && strings.Contains(held.Message, msg)
		if reason == "" {
			ok = held.Status == corev1.ConditionFalse
		}
		for name, want := range want {
			n, err := w.cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			stage, desired := n.Annotations[constants.StageConfigAnnotation], n.Annotations[constants.DesiredConfigAnnotation]
			last += fmt.Sprintf(" %s(stage=%s desired=%s)", name, stage, desired)
			ok = ok && stage == want[0] && desired == want[1]
		}
		return ok, nil
	})
	if err != nil {
		w.t.Fatalf("%s: last seen %s", step, last)
	}
	w.t.Logf("%s: %s", step, last)
}

// patch merges annotations (nil removes one) into the pool, or into a node
// when name is not "".
func (w *poolWorld) patch(nodeName string, annotations map[string]any) {
	w.t.Helper()
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	var err error
	if nodeName == "" {
		_, err = w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Patch(w.ctx, constants.WorkerPool, types.MergePatchType, b, metav1.PatchOptions{})
	} else {
		_, err = w.cp.Kube.CoreV1().Nodes().Patch(w.ctx, nodeName, types.MergePatchType, b, metav1.PatchOptions{})
	}
	if err != nil {
		w.t.Fatal(err)
	}
}
