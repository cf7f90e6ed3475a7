//go:build integration

package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/controller/nodemeta"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestTaintRidesOnStageAndGrant: the MCO's UpdateInProgress taint goes on
// with a node's stageConfig write and comes off with its desiredConfig
// grant, in the same write, so it costs no node write of its own; the node
// metadata controller, which still owns the taint, then finds nothing to
// do. Judged from the apiserver's watch: every change of a node object is
// one write.
func TestTaintRidesOnStageAndGrant(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "taint-fold"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const a, b = "rendered-worker-a", "rendered-worker-b"
	names := []string{"w0", "w1", "w2", "w3"}
	createWorkers(ctx, t, cp, a, false, names...)
	pool, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The apiserver's own behaviour the fold relies on: its JSON patch
	// tests a missing taint list as null, and refuses a patch whose test
	// fails, changing nothing.
	fresh, err := cp.Kube.CoreV1().Nodes().Get(ctx, "w3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target := pool.DeepCopy()
	target.Spec.Configuration.Name = b
	stale := fresh.DeepCopy()
	stale.Spec.Taints = []corev1.Taint{{Key: "example.com/gone", Effect: corev1.TaintEffectNoSchedule}}
	patch, ok := nodemeta.FoldTaint(stale, target, constants.StageConfigAnnotation, b)
	if !ok {
		t.Fatal("FoldTaint folds nothing into a stage write for a node that needs the taint")
	}
	if _, err := cp.Kube.CoreV1().Nodes().Patch(ctx, "w3", types.JSONPatchType, patch, metav1.PatchOptions{}); err == nil {
		t.Fatalf("the apiserver applied a folded patch whose taint test fails: %s", patch)
	} else {
		t.Logf("a stale fold is refused: %v (invalid: %v)", err, apierrors.IsInvalid(err))
	}
	if after, err := cp.Kube.CoreV1().Nodes().Get(ctx, "w3", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if after.ResourceVersion != fresh.ResourceVersion {
		t.Fatalf("a refused patch changed node w3: %v", after.Annotations)
	}

	// Every change of a node object, from here on.
	w, err := cp.Kube.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: fresh.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	seen := map[string][]*corev1.Node{}
	go func() {
		for ev := range w.ResultChan() {
			if n, ok := ev.Object.(*corev1.Node); ok && ev.Type == watch.Modified {
				mu.Lock()
				seen[n.Name] = append(seen[n.Name], n)
				mu.Unlock()
			}
		}
	}()

	cctx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() { stop(); running.Wait() }()
	kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	nodeCtrl := node.NewController(cp.Kube, cp.MCO, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		node.Options{Resync: time.Hour})
	metaCtrl, err := nodemeta.NewController(cp.Kube, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		mcoInf.Machineconfiguration().V1().ControllerConfigs(), nodemeta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kubeInf.Start(cctx.Done())
	mcoInf.Start(cctx.Done())
	running.Add(2)
	go func() { defer running.Done(); _ = nodeCtrl.Run(cctx, 1) }()
	go func() { defer running.Done(); _ = metaCtrl.Run(cctx, 1) }()

	p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Configuration.Name = b
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	tainted := func(n *corev1.Node) bool {
		for _, tn := range n.Spec.Taints {
			if tn.MatchTaint(&nodemeta.UpdateInProgressTaint) {
				return true
			}
		}
		return false
	}
	history := func() string {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		for _, name := range names {
			fmt.Fprintf(&b, "\n  %s:", name)
			for _, n := range seen[name] {
				fmt.Fprintf(&b, " [stage=%s desired=%s tainted=%v]", n.Annotations[constants.StageConfigAnnotation],
					n.Annotations[constants.DesiredConfigAnnotation], tainted(n))
			}
		}
		return b.String()
	}
	// waitWrites waits until each node's writes settle (the node metadata
	// controller's delay, DefaultDelay, is over) and returns them.
	waitWrites := func(what string, want func(map[string][]*corev1.Node) bool) map[string][]*corev1.Node {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			mu.Lock()
			ok := want(seen)
			mu.Unlock()
			if ok {
				time.Sleep(nodemeta.DefaultDelay + 2*time.Second) // nothing more may come
				mu.Lock()
				defer mu.Unlock()
				out := map[string][]*corev1.Node{}
				for k, v := range seen {
					out[k] = append([]*corev1.Node(nil), v...)
				}
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen in 2 minutes; node writes so far:%s", what, history())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	// One node granted (maxUnavailable 1), three staged and tainted.
	var granted string
	got := waitWrites("a grant and three stages", func(s map[string][]*corev1.Node) bool {
		grants, stages := 0, 0
		for _, name := range names {
			for _, n := range s[name] {
				switch {
				case n.Annotations[constants.DesiredConfigAnnotation] == b:
					grants++
					granted = name
				case n.Annotations[constants.StageConfigAnnotation] == b:
					stages++
				}
			}
		}
		return grants == 1 && stages >= 3
	})
	// A taint-only write: the node's taint changed and its stage and
	// desired configs did not (what the node metadata controller writes).
	prev := map[string]*corev1.Node{}
	taintOnly := 0
	countTaintOnly := func(got map[string][]*corev1.Node) {
		for _, name := range names {
			for _, n := range got[name] {
				if p := prev[name]; p != nil && tainted(p) != tainted(n) &&
					p.Annotations[constants.StageConfigAnnotation] == n.Annotations[constants.StageConfigAnnotation] &&
					p.Annotations[constants.DesiredConfigAnnotation] == n.Annotations[constants.DesiredConfigAnnotation] {
					taintOnly++
				}
				prev[name] = n
			}
		}
	}
	for _, name := range names {
		prev[name] = fresh.DeepCopy() // every node starts as w3 does: on a, untainted
		prev[name].Name = name
	}
	countTaintOnly(got)
	writes := 0
	for _, name := range names {
		writes += len(got[name])
		if len(got[name]) != 1 {
			t.Errorf("node %s: %d writes after the new target, want 1 (the taint rides on it):%s", name, len(got[name]), history())
			continue
		}
		n := got[name][0]
		if name == granted {
			if tainted(n) {
				t.Errorf("granted node %s is tainted:%s", name, history())
			}
		} else if !tainted(n) {
			t.Errorf("staged node %s has no UpdateInProgress taint in its stage write:%s", name, history())
		}
	}

	// The granted node finishes: the next grant goes to a tainted node and
	// takes the taint off in the same write.
	mu.Lock()
	seen = map[string][]*corev1.Node{}
	mu.Unlock()
	done := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`, constants.CurrentConfigAnnotation, b,
		constants.StateAnnotation, constants.MachineConfigDaemonStateDone)
	if _, err := cp.Kube.CoreV1().Nodes().Patch(ctx, granted, types.MergePatchType, []byte(done), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var next string
	got = waitWrites("the next grant", func(s map[string][]*corev1.Node) bool {
		for _, name := range names {
			for _, n := range s[name] {
				if name != granted && n.Annotations[constants.DesiredConfigAnnotation] == b {
					next = name
					return true
				}
			}
		}
		return false
	})
	countTaintOnly(got)
	if len(got[next]) != 1 || tainted(got[next][0]) {
		t.Errorf("the grant to %s: %d writes, want 1 that also removes the taint:%s", next, len(got[next]), history())
	}
	for _, ws := range got {
		writes += len(ws)
	}
	writes-- // the test's own "done" write
	fmt.Printf("taint-fold: nodes=%d node_writes=%d taint_only_writes=%d\n", len(names), writes, taintOnly)
}
