//go:build integration

// Package controller runs tandem's node controller, or the machine-config-controller
// command with the MCO's arguments, against a real kube-apiserver and a real etcd.
package controller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/pkg/metrics"
	"github.com/tandem-mco/tandem/test/framework"
)

// recordingEtcd wraps the real etcd source to note MoveLeader calls.
type recordingEtcd struct {
	node.EtcdClientSource
	tl *timeline
}

func (r recordingEtcd) MoveLeader(ctx context.Context, to string) error {
	from := r.Client.Snapshot(ctx).Leader()
	err := r.EtcdClientSource.MoveLeader(ctx, to)
	r.tl.addMove(moveSeen{From: from, To: to, At: time.Now(), Err: err})
	return err
}

// TestControlPlaneRolloutOrdering rolls a 3-master pool out on a real
// kube-apiserver backed by a real 3-member etcd whose members are the
// masters: the followers are granted before the leader, leadership moves
// before the leader's grant, and with a member down no master is granted.
func TestControlPlaneRolloutOrdering(t *testing.T) {
	cluster := framework.NewEtcdCluster(t, 3)
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "ordering", EtcdCluster: cluster})

	facts, err := etcd.New(etcd.Config{Endpoints: cluster.ClientURLs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = facts.Close() })
	// Cleanups run last-in first-out: the controller and the daemons stop
	// before the apiserver and etcd do.
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })

	const cfgA, cfgB, cfgC = "rendered-master-a", "rendered-master-b", "rendered-master-c"
	var masters []string
	for i := range 3 {
		masters = append(masters, cluster.MemberName(i))
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, masterNode(cluster.MemberName(i), cfgA), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pool := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: constants.MasterPool},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.MasterPool: ""}},
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: cfgA}},
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The controller, as cmd/machine-config-controller wires it.
	tl := &timeline{}
	reg := prometheus.NewRegistry()
	m := metrics.NewController(reg)
	kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	ctrl := node.NewController(cp.Kube, cp.MCO, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		node.Options{Etcd: recordingEtcd{EtcdClientSource: node.EtcdClientSource{Client: facts}, tl: tl}, Metrics: m, Resync: time.Second})
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	running.Add(1)
	go func() { defer running.Done(); _ = ctrl.Run(ctx, 2) }()

	power := make([]sync.Mutex, 3)
	for i := range 3 {
		d := &masterDaemon{kube: cp.Kube, cluster: cluster, member: i, facts: facts, tl: tl, reboot: 2 * time.Second, power: &power[i]}
		running.Add(1)
		go func() { defer running.Done(); d.run(ctx, t) }()
	}

	// Phase 1: roll a -> b.
	startLeader := waitLeader(ctx, t, facts)
	t.Logf("etcd leader before the rollout: %s", startLeader)
	setTarget(ctx, t, cp, cfgB)
	waitPoolUpdated(ctx, t, cp, cfgB)

	grants, moves := tl.snapshot()
	for _, g := range grants {
		t.Logf("grant: %s -> %s at %s, etcd leader then: %s", g.Node, g.Config, g.At.Format("15:04:05.000"), g.Leader)
	}
	for _, mv := range moves {
		t.Logf("MoveLeader: %s -> %s at %s (err %v)", mv.From, mv.To, mv.At.Format("15:04:05.000"), mv.Err)
	}
	if len(grants) != 3 {
		t.Fatalf("want 3 grants, got %+v", grants)
	}
	for _, g := range grants {
		if g.Node == g.Leader {
			t.Errorf("%s was granted while it led etcd", g.Node)
		}
	}
	last := grants[2]
	if last.Node != startLeader {
		t.Errorf("the leader at the start (%s) must be granted last; order: %s, %s, %s",
			startLeader, grants[0].Node, grants[1].Node, grants[2].Node)
	}
	i := slices.IndexFunc(moves, func(mv moveSeen) bool { return mv.Err == nil && mv.From == last.Node })
	switch {
	case i < 0:
		t.Errorf("no successful MoveLeader away from %s; moves: %+v", last.Node, moves)
	case !moves[i].At.Before(last.At):
		t.Errorf("leadership moved at %s, after %s's grant at %s", moves[i].At, last.Node, last.At)
	case !slices.Contains(grantedNodes(grants[:2]), moves[i].To):
		t.Errorf("leadership moved to %s, not to an updated follower (%v)", moves[i].To, grantedNodes(grants[:2]))
	}
	if got := testutil.ToFloat64(m.LeaderMoves.WithLabelValues(constants.MasterPool, "ok")); got < 1 {
		t.Errorf("leader moves metric = %v", got)
	}
	if got := testutil.ToFloat64(m.Grants.WithLabelValues(constants.MasterPool)); got != 3 {
		t.Errorf("grants metric = %v, want 3", got)
	}

	// Phase 2: a member is down; target c; nothing may be granted.
	down := 1
	power[down].Lock() // the member is down until the test says so
	if err := cluster.StopMember(down); err != nil {
		t.Fatal(err)
	}
	gen := setTarget(ctx, t, cp, cfgC)
	held := waitCondition(ctx, t, cp, gen, constants.PoolDisruptionHeldCondition, corev1.ConditionTrue)
	t.Logf("with %s down: DisruptionHeld reason=%s message=%q", masters[down], held.Reason, held.Message)
	if held.Reason != string(node.HoldEtcdUnhealthy) {
		t.Errorf("DisruptionHeld reason = %q, want %s", held.Reason, node.HoldEtcdUnhealthy)
	}
	nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Annotations[constants.DesiredConfigAnnotation] == cfgC {
			t.Errorf("%s was granted %s while etcd member %s was down", n.Name, cfgC, masters[down])
		}
		if n.Annotations[constants.StageConfigAnnotation] != cfgC {
			t.Errorf("%s was not allowed to stage %s (staging is not disruptive)", n.Name, cfgC)
		}
	}
	if !hasEvent(ctx, t, cp, node.EventDisruptionHeld) {
		t.Errorf("no %s event recorded", node.EventDisruptionHeld)
	}

	// The member comes back: the rollout resumes and finishes.
	err = cluster.StartMember(ctx, down)
	power[down].Unlock()
	if err != nil {
		t.Fatal(err)
	}
	waitPoolUpdated(ctx, t, cp, cfgC)
	grants, _ = tl.snapshot()
	for _, g := range grants[3:] {
		if g.Node == g.Leader {
			t.Errorf("%s was granted %s while it led etcd", g.Node, g.Config)
		}
	}
}

func grantedNodes(gs []grantSeen) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Node)
	}
	return out
}

func waitLeader(ctx context.Context, t *testing.T, facts *etcd.Client) string {
	t.Helper()
	var leader string
	poll(ctx, t, "an etcd leader", func() (bool, string) {
		st := facts.Snapshot(ctx)
		leader = st.Leader()
		return st.Err() == nil, st.String()
	})
	return leader
}

// setTarget points the master pool at cfg and returns the new generation.
func setTarget(ctx context.Context, t *testing.T, cp *framework.ControlPlane, cfg string) int64 {
	t.Helper()
	var gen int64
	poll(ctx, t, "pool target "+cfg, func() (bool, string) {
		p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.MasterPool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		p.Spec.Configuration.Name = cfg
		p, err = cp.MCO.MachineconfigurationV1().MachineConfigPools().Update(ctx, p, metav1.UpdateOptions{})
		if err != nil {
			return false, err.Error()
		}
		gen = p.Generation
		return true, ""
	})
	return gen
}

func poolStatus(ctx context.Context, cp *framework.ControlPlane) (*mcfgv1.MachineConfigPool, string) {
	p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.MasterPool, metav1.GetOptions{})
	if err != nil {
		return nil, err.Error()
	}
	s := p.Status
	return p, fmt.Sprintf("pool %s: generation %d observed %d, configuration %s, machines %d updated %d ready %d unavailable %d, conditions %v",
		p.Name, p.Generation, s.ObservedGeneration, s.Configuration.Name, s.MachineCount, s.UpdatedMachineCount, s.ReadyMachineCount,
		s.UnavailableMachineCount, s.Conditions)
}

func waitPoolUpdated(ctx context.Context, t *testing.T, cp *framework.ControlPlane, cfg string) {
	t.Helper()
	poll(ctx, t, "pool updated to "+cfg, func() (bool, string) {
		p, state := poolStatus(ctx, cp)
		if p == nil {
			return false, state
		}
		s := p.Status
		return s.Configuration.Name == cfg && s.UpdatedMachineCount == 3 && s.MachineCount == 3 && s.ReadyMachineCount == 3, state
	})
}

// waitCondition waits until the controller has reported generation gen
// with the condition at status.
func waitCondition(ctx context.Context, t *testing.T, cp *framework.ControlPlane, gen int64,
	typ mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus) mcfgv1.MachineConfigPoolCondition {
	t.Helper()
	var out mcfgv1.MachineConfigPoolCondition
	poll(ctx, t, string(typ)+"="+string(status), func() (bool, string) {
		p, state := poolStatus(ctx, cp)
		if p == nil || p.Status.ObservedGeneration < gen {
			return false, state
		}
		for _, c := range p.Status.Conditions {
			if c.Type == typ && c.Status == status {
				out = c
				return true, state
			}
		}
		return false, state
	})
	return out
}

func hasEvent(ctx context.Context, t *testing.T, cp *framework.ControlPlane, reason string) bool {
	t.Helper()
	found := false
	poll(ctx, t, "event "+reason, func() (bool, string) {
		evs, err := cp.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var reasons []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == constants.MasterPool {
				reasons = append(reasons, e.Reason)
			}
			if e.Reason == reason && e.InvolvedObject.Name == constants.MasterPool {
				found = true
			}
		}
		return found, fmt.Sprintf("pool events %v", reasons)
	})
	return found
}

// poll waits for cond, at most framework.DefaultWait; on timeout it fails
// with the state cond last reported.
func poll(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	err := framework.Await(ctx, what, framework.DefaultWait, 200*time.Millisecond, func(context.Context) (bool, string, error) {
		ok, state := cond()
		return ok, state, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
