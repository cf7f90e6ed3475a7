//go:build integration

package controller

import (
	"context"
	"fmt"
	"maps"
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

const taintA, taintB = "rendered-worker-a", "rendered-worker-b"

// taintScene is a worker pool on config a with the node and node metadata
// controllers, and every change of a node object from the apiserver's
// watch: each change is one write.
type taintScene struct {
	t     *testing.T
	cp    *framework.ControlPlane
	names []string
	mu    sync.Mutex
	seen  map[string][]*corev1.Node
	// taintedAt is when each node was first seen tainted without a stage
	// write (the node metadata controller's taint).
	taintedAt map[string]time.Time
	start     map[string]*corev1.Node // each node before the watch
}

func newTaintScene(ctx context.Context, t *testing.T, name string, names []string, poolAnnotations map[string]string) *taintScene {
	s := &taintScene{t: t, cp: framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: name}), names: names,
		seen: map[string][]*corev1.Node{}, taintedAt: map[string]time.Time{}, start: map[string]*corev1.Node{}}
	createWorkers(ctx, t, s.cp, taintA, false, names...)
	if len(poolAnnotations) > 0 {
		p, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Annotations = poolAnnotations
		if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// run watches the nodes and starts the controllers until ctx ends.
func (s *taintScene) run(ctx context.Context, metaOpts nodemeta.Options) {
	t := s.t
	list, err := s.cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		s.start[list.Items[i].Name] = &list.Items[i]
	}
	w, err := s.cp.Kube.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if n, ok := ev.Object.(*corev1.Node); ok && ev.Type == watch.Modified {
				s.mu.Lock()
				s.seen[n.Name] = append(s.seen[n.Name], n)
				if _, ok := s.taintedAt[n.Name]; !ok && tainted(n) && n.Annotations[constants.StageConfigAnnotation] != taintB {
					s.taintedAt[n.Name] = time.Now()
				}
				s.mu.Unlock()
			}
		}
	}()
	var running sync.WaitGroup
	t.Cleanup(running.Wait)
	kubeInf := informers.NewSharedInformerFactory(s.cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(s.cp.MCO, 0)
	nodeCtrl := node.NewController(s.cp.Kube, s.cp.MCO, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		node.Options{Resync: time.Hour})
	metaCtrl, err := nodemeta.NewController(s.cp.Kube, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		mcoInf.Machineconfiguration().V1().ControllerConfigs(), metaOpts)
	if err != nil {
		t.Fatal(err)
	}
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	running.Add(2)
	go func() { defer running.Done(); _ = nodeCtrl.Run(ctx, 1) }()
	go func() { defer running.Done(); _ = metaCtrl.Run(ctx, 1) }()
}

// retarget moves the pool to config b.
func (s *taintScene) retarget(ctx context.Context) {
	p, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	p.Spec.Configuration.Name = taintB
	if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

func tainted(n *corev1.Node) bool {
	for _, tn := range n.Spec.Taints {
		if tn.MatchTaint(&nodemeta.UpdateInProgressTaint) {
			return true
		}
	}
	return false
}

func (s *taintScene) history() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, name := range s.names {
		fmt.Fprintf(&b, "\n  %s:", name)
		for _, n := range s.seen[name] {
			fmt.Fprintf(&b, " [stage=%s desired=%s tainted=%v]", n.Annotations[constants.StageConfigAnnotation],
				n.Annotations[constants.DesiredConfigAnnotation], tainted(n))
		}
	}
	return b.String()
}

// waitWrites waits (at most 2 minutes) until want holds of the writes seen,
// then quiet for settle (nothing more may come), and returns them.
func (s *taintScene) waitWrites(what string, settle time.Duration, want func(map[string][]*corev1.Node) bool) map[string][]*corev1.Node {
	s.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s.mu.Lock()
		ok := want(s.seen)
		s.mu.Unlock()
		if ok {
			time.Sleep(settle)
			s.mu.Lock()
			defer s.mu.Unlock()
			out := map[string][]*corev1.Node{}
			for k, v := range s.seen {
				out[k] = append([]*corev1.Node(nil), v...)
			}
			return out
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: not seen in 2 minutes; node writes so far:%s", what, s.history())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// taintOnly counts the writes that changed a node's taint and neither its
// stage nor its desired config (the node metadata controller's own), from
// each node's state before the watch.
func (s *taintScene) taintOnly(got map[string][]*corev1.Node) int {
	count := 0
	for _, name := range s.names {
		prev := s.start[name]
		for _, n := range got[name] {
			if tainted(prev) != tainted(n) &&
				prev.Annotations[constants.StageConfigAnnotation] == n.Annotations[constants.StageConfigAnnotation] &&
				prev.Annotations[constants.DesiredConfigAnnotation] == n.Annotations[constants.DesiredConfigAnnotation] {
				count++
			}
			prev = n
		}
	}
	return count
}

// TestTaintRidesOnStageAndGrant: the MCO's UpdateInProgress taint goes on
// with a node's stageConfig write and comes off with its desiredConfig
// grant, in the same write, so it costs no node write of its own; the node
// metadata controller, which still owns the taint, then finds nothing to
// do.
func TestTaintRidesOnStageAndGrant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := newTaintScene(ctx, t, "taint-fold", []string{"w0", "w1", "w2", "w3"}, nil)
	cp := s.cp

	// The apiserver's own behaviour the fold relies on: its JSON patch
	// refuses a patch whose taint test fails, changing nothing.
	fresh, err := cp.Kube.CoreV1().Nodes().Get(ctx, "w3", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool.Spec.Configuration.Name = taintB
	stale := fresh.DeepCopy()
	stale.Spec.Taints = []corev1.Taint{{Key: "example.com/gone", Effect: corev1.TaintEffectNoSchedule}}
	patch, ok := nodemeta.FoldTaint(stale, pool, constants.StageConfigAnnotation, taintB)
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

	cctx, stop := context.WithCancel(ctx)
	defer stop()
	s.run(cctx, nodemeta.Options{})
	s.retarget(ctx)

	// One node granted (maxUnavailable 1), three staged and tainted; the
	// node metadata controller's delay passes with nothing more.
	settle := nodemeta.DefaultDelay + 2*time.Second
	var granted string
	got := s.waitWrites("a grant and three stages", settle, func(seen map[string][]*corev1.Node) bool {
		grants, stages := 0, 0
		for _, name := range s.names {
			for _, n := range seen[name] {
				switch {
				case n.Annotations[constants.DesiredConfigAnnotation] == taintB:
					grants++
					granted = name
				case n.Annotations[constants.StageConfigAnnotation] == taintB:
					stages++
				}
			}
		}
		return grants == 1 && stages >= 3
	})
	writes := 0
	for _, name := range s.names {
		writes += len(got[name])
		if len(got[name]) != 1 {
			t.Errorf("node %s: %d writes after the new target, want 1 (the taint rides on it):%s", name, len(got[name]), s.history())
			continue
		}
		if n := got[name][0]; name == granted && tainted(n) {
			t.Errorf("granted node %s is tainted:%s", name, s.history())
		} else if name != granted && !tainted(n) {
			t.Errorf("staged node %s has no UpdateInProgress taint in its stage write:%s", name, s.history())
		}
	}

	// The granted node finishes: the next grant goes to a tainted node and
	// takes the taint off in the same write.
	done := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`, constants.CurrentConfigAnnotation, taintB,
		constants.StateAnnotation, constants.MachineConfigDaemonStateDone)
	if _, err := cp.Kube.CoreV1().Nodes().Patch(ctx, granted, types.MergePatchType, []byte(done), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var next string
	got = s.waitWrites("the next grant", settle, func(seen map[string][]*corev1.Node) bool {
		for _, name := range s.names {
			for _, n := range seen[name] {
				if name != granted && n.Annotations[constants.DesiredConfigAnnotation] == taintB {
					next = name
					return true
				}
			}
		}
		return false
	})
	if len(got[next]) != 2 || tainted(got[next][1]) {
		t.Errorf("the grant to %s: %d writes in all, want its stage and then one grant that also removes the taint:%s",
			next, len(got[next]), s.history())
	}
	writes += len(got[next]) - 1
	fmt.Printf("taint-fold: nodes=%d node_writes=%d taint_only_writes=%d\n", len(s.names), writes, s.taintOnly(got))
}

// TestTaintReachesNodesTheStageWaveSkips: a node the node controller does
// not stage yet (stageConcurrency) has no stage write to carry the taint;
// the node metadata controller sets it once the fold window of the new
// target is over, and not before, as the MCO's rule wants it on every node
// still to move.
func TestTaintReachesNodesTheStageWaveSkips(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := newTaintScene(ctx, t, "taint-window", []string{"w0", "w1", "w2", "w3"},
		map[string]string{constants.StageConcurrencyAnnotation: "1"})
	const window = 8 * time.Second
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	s.run(cctx, nodemeta.Options{FoldWindow: window})
	retargeted := time.Now()
	s.retarget(ctx)

	got := s.waitWrites("every node tainted or granted", 0, func(seen map[string][]*corev1.Node) bool {
		for _, name := range s.names {
			ws := seen[name]
			if len(ws) == 0 || (!tainted(ws[len(ws)-1]) && ws[len(ws)-1].Annotations[constants.DesiredConfigAnnotation] != taintB) {
				return false
			}
		}
		return true
	})
	s.mu.Lock()
	taintedAt := maps.Clone(s.taintedAt)
	s.mu.Unlock()
	if len(taintedAt) == 0 {
		t.Errorf("no node was tainted without a stage write: the nodes the stage wave skips have no taint:%s", s.history())
	}
	for name, at := range taintedAt {
		if early := at.Sub(retargeted); early < window {
			t.Errorf("node %s tainted %s after the new target, inside the %s fold window:%s", name, early.Round(time.Millisecond), window, s.history())
		}
	}
	if n := s.taintOnly(got); n != len(taintedAt) {
		t.Errorf("%d taint-only writes for %d nodes tainted without a stage write, want one each:%s", n, len(taintedAt), s.history())
	}
	t.Logf("taint-window: %d nodes tainted without a stage write, the first %s after the new target (window %s)",
		len(taintedAt), firstAfter(taintedAt, retargeted), window)
}

func firstAfter(ts map[string]time.Time, from time.Time) time.Duration {
	first := time.Duration(0)
	for _, at := range ts {
		if d := at.Sub(from); first == 0 || d < first {
			first = d
		}
	}
	return first.Round(time.Millisecond)
}
