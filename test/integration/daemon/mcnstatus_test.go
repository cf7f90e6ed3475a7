//go:build integration

package daemon_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcooracle"
)

// TestMachineConfigNodeAsTheMCOReadsIt runs a node through three moments
// the MCO's node controller reads from its MachineConfigNode, and judges
// every version the daemon wrote with the MCO's own reading
// (mcooracle.MCNPoolCounts, transcribed from status.go calculateStatus with
// the ImageModeStatusReporting gate on, where the MachineConfigNode decides
// the pool's updated count), against the node and pool as they were when
// that version was written:
//
//  1. the MCO's operator created the MachineConfigNode without conditions
//     (sync.go syncMachineConfigNodes) before the daemon started, on a node
//     settled on the pool's config: the node must come to count updated;
//  2. the node is granted a config that does not exist yet: it degrades,
//     and must count degraded, never updated;
//  3. the config appears: the node updates, and must count updated only
//     once it is Done on it.
func TestMachineConfigNodeAsTheMCOReadsIt(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	a, b := w.standardConfigs()
	// The pool the MCO's node controller would judge; the test moves its target.
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool}}
	pool.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}}
	pool.Spec.Configuration.Name = cfgA
	if _, err := w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const name = "mcn-reader"
	// The operator's MachineConfigNode: spec only, no status.
	op := &mcfgv1.MachineConfigNode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: mcfgv1.MachineConfigNodeSpec{
		Node: mcfgv1.MCOObjectReference{Name: name}, Pool: mcfgv1.MCOObjectReference{Name: constants.WorkerPool},
		ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: "not-yet-set"},
	}}
	if _, err := w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Create(ctx, op, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// cfgB is the granted config that does not exist yet (phase 2).
	if err := w.cp.MCO.MachineconfigurationV1().MachineConfigs().Delete(ctx, cfgB, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	h := &history{}
	byName := fields.OneTermEqualSelector("metadata.name", name)
	h.record(t, "Node", cache.NewListWatchFromClient(w.cp.Kube.CoreV1().RESTClient(), "nodes", "", byName))
	h.record(t, "MachineConfigNode", listWatch(
		func(o metav1.ListOptions) (runtime.Object, error) {
			return w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().List(ctx, o)
		},
		func(o metav1.ListOptions) (watch.Interface, error) {
			return w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Watch(ctx, o)
		}))
	h.record(t, "MachineConfigPool", listWatch(
		func(o metav1.ListOptions) (runtime.Object, error) {
			return w.cp.MCO.MachineconfigurationV1().MachineConfigPools().List(ctx, o)
		},
		func(o metav1.ListOptions) (watch.Interface, error) {
			return w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Watch(ctx, o)
		}))

	sn := w.installNode(name, cfgA, a, w.imageA, framework.SimNodeOptions{})
	verdict := func(ctx context.Context) (mcooracle.PoolCounts, string, error) {
		m, err := w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return mcooracle.PoolCounts{}, "", err
		}
		p, err := w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
		if err != nil {
			return mcooracle.PoolCounts{}, "", err
		}
		n, err := w.cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return mcooracle.PoolCounts{}, "", err
		}
		pc := mcooracle.MCNPoolCounts([]*mcfgv1.MachineConfigNode{m}, p, []*corev1.Node{n}, true)
		return pc, fmt.Sprintf("MCO reads %+v from %s", pc, describeMCN(m)), nil
	}
	awaitVerdict := func(what string, ok func(mcooracle.PoolCounts) bool) {
		t.Helper()
		err := framework.Await(ctx, what, updateTimeout, 50*time.Millisecond, func(ctx context.Context) (bool, string, error) {
			pc, state, err := verdict(ctx)
			if err != nil {
				return false, "", nil // the last verdict stays the one reported
			}
			return ok(pc), state, nil
		})
		if err != nil {
			t.Fatalf("%v\ndaemon log tail:\n%s", err, sn.DaemonLogTail())
		}
	}

	// 1. Settled on the pool's config.
	awaitVerdict("the MCO to count the settled node updated on "+cfgA, func(pc mcooracle.PoolCounts) bool {
		return len(pc.Updated) == 1 && pc.StoppedAt == ""
	})

	// 2. The pool moves on to a config that does not exist; the node is granted it.
	setPoolTarget(t, w, cfgB)
	w.annotate(name, map[string]string{constants.DesiredConfigAnnotation: cfgB})
	w.waitFor(sn, "state=Degraded", updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded
	})
	awaitVerdict("the MCO to count the degraded node degraded", func(pc mcooracle.PoolCounts) bool {
		return len(pc.Degraded) == 1
	})

	// 3. The config appears: the node updates to it.
	w.createMC(cfgB, w.imageB, b, "tandem.test=1")
	w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	awaitVerdict("the MCO to count the node updated on "+cfgB, func(pc mcooracle.PoolCounts) bool {
		return len(pc.Updated) == 1 && len(pc.Degraded) == 0
	})
	m := w.mcn(name)
	if m.Spec.ConfigVersion.Desired != cfgB || m.Status.ConfigVersion == nil || m.Status.ConfigVersion.Current != cfgB {
		t.Errorf("MachineConfigNode spec/status configVersion: %+v / %+v, want %s", m.Spec.ConfigVersion, m.Status.ConfigVersion, cfgB)
	}

	// Every version the daemon wrote, judged against the node and pool of its moment.
	rvOf := func(get func() (metav1.Object, error)) func() (uint64, error) {
		return func() (uint64, error) {
			o, err := get()
			if err != nil {
				return 0, err
			}
			return strconv.ParseUint(o.GetResourceVersion(), 10, 64)
		}
	}
	h.catchUp(t, map[string]func() (uint64, error){
		"Node": rvOf(func() (metav1.Object, error) { return w.cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}) }),
		"MachineConfigNode": rvOf(func() (metav1.Object, error) {
			return w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Get(ctx, name, metav1.GetOptions{})
		}),
	})
	judged, violations := judgeMCNHistory(h)
	for _, v := range violations {
		t.Error(v)
	}
	if judged < 3 {
		t.Errorf("only %d MachineConfigNode versions judged", judged)
	}
	fmt.Printf("mcn-status: versions=%d violations=%d\n", judged, len(violations))
}

func listWatch(list func(metav1.ListOptions) (runtime.Object, error), wch func(metav1.ListOptions) (watch.Interface, error)) cache.ListerWatcher {
	return &cache.ListWatch{ListFunc: list, WatchFunc: wch}
}

func setPoolTarget(t *testing.T, w *world, target string) {
	t.Helper()
	ctx := context.Background()
	p, err := w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Configuration.Name = target
	if _, err := w.cp.MCO.MachineconfigurationV1().MachineConfigPools().Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// judgeMCNHistory replays the recorded writes in order and judges each
// MachineConfigNode status the daemon wrote (the operator's first version
// has none) with the MCO's reading of it against the node and pool of that
// moment: counted updated only when the node is Done on the pool's config,
// counted degraded whenever the node says Degraded, never without
// conditions. A version that only changed the spec carries the status of an
// earlier moment, judged there.
func judgeMCNHistory(h *history) (int, []string) {
	vs, errs := h.timeline()
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	var node *corev1.Node
	var pool *mcfgv1.MachineConfigPool
	var last *mcfgv1.MachineConfigNodeStatus
	judged := 0
	for _, v := range vs {
		switch o := v.obj.(type) {
		case *corev1.Node:
			node = o
		case *mcfgv1.MachineConfigPool:
			pool = o
		case *mcfgv1.MachineConfigNode:
			if o.Status.ConfigVersion == nil && len(o.Status.Conditions) == 0 && judged == 0 {
				continue // the operator's, before the daemon's first write
			}
			if last != nil && equality.Semantic.DeepEqual(*last, o.Status) {
				continue
			}
			last = &o.Status
			if node == nil || pool == nil {
				out = append(out, fmt.Sprintf("rv %d: MachineConfigNode written before its node or pool existed", v.rv))
				continue
			}
			judged++
			out = append(out, judgeMCN(v.rv, o, node, pool)...)
		}
	}
	return judged, out
}

func judgeMCN(rv uint64, m *mcfgv1.MachineConfigNode, n *corev1.Node, p *mcfgv1.MachineConfigPool) []string {
	a := n.Annotations
	target := p.Spec.Configuration.Name
	state := fmt.Sprintf("node current=%s desired=%s state=%s, pool target %s; %s", a[constants.CurrentConfigAnnotation],
		a[constants.DesiredConfigAnnotation], a[constants.StateAnnotation], target, describeMCN(m))
	pc := mcooracle.MCNPoolCounts([]*mcfgv1.MachineConfigNode{m}, p, []*corev1.Node{n}, true)
	var out []string
	if pc.StoppedAt != "" {
		out = append(out, fmt.Sprintf("rv %d: the MCO stops reading the pool's MachineConfigNodes here (%s): %s", rv, pc.Why, state))
	}
	doneOnTarget := a[constants.CurrentConfigAnnotation] == target && a[constants.DesiredConfigAnnotation] == target &&
		a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	if len(pc.Updated) > 0 && !doneOnTarget {
		out = append(out, fmt.Sprintf("rv %d: the MCO counts the node updated, but it is not Done on the pool's config: %s", rv, state))
	}
	if a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded && len(pc.Degraded) == 0 {
		out = append(out, fmt.Sprintf("rv %d: the node is Degraded but the MCO does not count it degraded: %s", rv, state))
	}
	return out
}

func describeMCN(m *mcfgv1.MachineConfigNode) string {
	var cs []string
	for _, c := range m.Status.Conditions {
		if c.Status != metav1.ConditionFalse {
			cs = append(cs, c.Type+"="+string(c.Status))
		}
	}
	return fmt.Sprintf("MachineConfigNode rv %s spec.desired=%s status.configVersion=%+v conditions=%d non-False=[%s]",
		m.ResourceVersion, m.Spec.ConfigVersion.Desired, m.Status.ConfigVersion, len(m.Status.Conditions), strings.Join(cs, " "))
}
