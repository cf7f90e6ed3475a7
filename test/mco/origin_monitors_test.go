//go:build mco

package mco

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
	"github.com/tandem-mco/tandem/test/originmon"
)

// originMonitors watch an upgrade as openshift/origin's monitors do
// (test/originmon holds the rules and their sources): kube-api over new
// and over reused connections, the etcd leader, each node's Ready
// condition, and the guarded workload's Ready pods against its budget.
type originMonitors struct {
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	samplers []*originmon.Sampler
	// perMaster sample each master's own kube-apiserver, past the load
	// balancer: each must be seen down while its master reboots.
	perMaster []*originmon.Sampler

	mu          sync.Mutex
	transitions []originmon.ReadyTransition
	ready       map[string]bool
	leader      string
	changes     int
	leaderErr   string
	// webReady is each workload pod's Ready; budgetBroken counts the
	// episodes with fewer Ready pods than the budget's minAvailable.
	webReady     map[string]bool
	minAvailable int
	budgetBroken int
	broken       bool
}

// startOriginMonitors begins sampling; stop ends it. minAvailable is the
// workload's budget.
func startOriginMonitors(ctx context.Context, t *testing.T, w *mcoworld.World, etcd *framework.EtcdCluster, minAvailable int) *originMonitors {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	m := &originMonitors{cancel: cancel, ready: map[string]bool{}, webReady: map[string]bool{}, minAvailable: minAvailable}
	// origin polls kube-api about once a second, each request bounded.
	for _, reuse := range []bool{false, true} {
		s, err := originmon.NewSampler(kubeAPIName(reuse), rest.CopyConfig(w.CP.RESTConfig), reuse)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		m.samplers = append(m.samplers, s)
		m.wg.Go(func() { s.Run(ctx) })
	}
	for i := range w.CP.APIServers() {
		if w.CP.APIServers() < 2 {
			break
		}
		cfg := rest.CopyConfig(w.CP.RESTConfig)
		cfg.Host = w.CP.APIServerURL(i)
		s, err := originmon.NewSampler(fmt.Sprintf("kube-apiserver-%d", i), cfg, false)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		m.perMaster = append(m.perMaster, s)
		m.wg.Go(func() { s.Run(ctx) })
	}
	m.wg.Go(func() { m.pollLeader(ctx, etcd) })

	factory := informers.NewSharedInformerFactoryWithOptions(w.CP.Kube, 0)
	nodes := factory.Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.nodeSeen(obj.(*corev1.Node)) },
		UpdateFunc: func(_, cur any) { m.nodeSeen(cur.(*corev1.Node)) },
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.podSeen(obj.(*corev1.Pod), false) },
		UpdateFunc: func(_, cur any) { m.podSeen(cur.(*corev1.Pod), false) },
		DeleteFunc: func(obj any) {
			if p, ok := obj.(*corev1.Pod); ok {
				m.podSeen(p, true)
			} else if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				if p, ok := d.Obj.(*corev1.Pod); ok {
					m.podSeen(p, true)
				}
			}
		},
	}); err != nil {
		cancel()
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced, pods.HasSynced) {
		cancel()
		t.Fatal("origin's monitors: the watches of Nodes and Pods did not sync")
	}
	return m
}

func kubeAPIName(reuse bool) string {
	if reuse {
		return "kube-api-reused-connections"
	}
	return "kube-api-new-connections"
}

// stop ends sampling and waits for the monitors' goroutines.
func (m *originMonitors) stop() {
	m.cancel()
	m.wg.Wait()
}

// nodeSeen records a change of a node's Ready condition (the first sight
// of a node only sets its state).
func (m *originMonitors) nodeSeen(n *corev1.Node) {
	now := time.Now()
	ready := framework.NodeReady(n)
	m.mu.Lock()
	defer m.mu.Unlock()
	was, seen := m.ready[n.Name]
	m.ready[n.Name] = ready
	if seen && was != ready {
		m.transitions = append(m.transitions, originmon.ReadyTransition{Node: n.Name, Ready: ready, At: now})
	}
}

// podSeen keeps the workload's Ready pods and counts each episode below
// the budget's minAvailable.
func (m *originMonitors) podSeen(p *corev1.Pod, deleted bool) {
	if p.Namespace != workloadNamespace || p.Labels["app"] != "web" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if deleted {
		delete(m.webReady, p.Name)
	} else {
		m.webReady[p.Name] = podReady(p)
	}
	n := 0
	for _, r := range m.webReady {
		if r {
			n++
		}
	}
	below := n < m.minAvailable
	if below && !m.broken {
		m.budgetBroken++
	}
	m.broken = below
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// pollLeader reads etcd's leader every second and counts changes from one
// known leader to another.
func (m *originMonitors) pollLeader(ctx context.Context, etcd *framework.EtcdCluster) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		leader, err := etcdLeader(lctx, etcd)
		cancel()
		m.mu.Lock()
		switch {
		case err != nil:
			m.leaderErr = err.Error()
		case m.leader != "" && leader != m.leader:
			m.changes++
			m.leader = leader
		default:
			m.leader = leader
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// originVerdict is what the monitors saw, judged by origin's rules.
type originVerdict struct {
	newS, reusedS float64
	leaderChanges int
	unready       originmon.UnreadyVerdict
	budgetBroken  int
	// apiserversDown counts the masters whose own apiserver was seen
	// failing (it stopped for the reboot), of apiservers.
	apiserversDown, apiservers int
}

func (m *originMonitors) verdict(nodes []string) originVerdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := originVerdict{leaderChanges: m.changes, budgetBroken: m.budgetBroken,
		unready: originmon.UnreadyOnce(m.transitions, nodes)}
	for _, s := range m.perMaster {
		v.apiservers++
		if s.Result().Failed > 0 {
			v.apiserversDown++
		}
	}
	for _, s := range m.samplers {
		r := s.Result()
		if s.Name() == kubeAPIName(true) {
			v.reusedS = r.DisruptedSeconds
		} else {
			v.newS = r.DisruptedSeconds
		}
	}
	return v
}

func (v originVerdict) line(world string, events string) string {
	return fmt.Sprintf("origin-monitors: world=%s kube_api_new_s=%.0f kube_api_reused_s=%.0f leader_changes=%d unready_once=%d/%d events=%s pdb_violations=%d apiservers_down=%d/%d",
		world, v.newS, v.reusedS, v.leaderChanges, v.unready.Once, v.unready.Total, events, v.budgetBroken, v.apiserversDown, v.apiservers)
}
