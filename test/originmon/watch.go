package originmon

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// WatchOptions say what Watch samples.
type WatchOptions struct {
	// Kube and REST reach the cluster's API the way its clients do
	// (through the load balancer when there is one).
	Kube kubernetes.Interface
	REST *rest.Config
	// APIServerURLs are each master's own kube-apiserver, past the load
	// balancer; sampled when there are two or more, so that a check can
	// see each stop while its master reboots.
	APIServerURLs []string
	// Leader names the etcd leader; polled each second.
	Leader func(ctx context.Context) (string, error)
	// Budget is the guarded workload: its pods and minAvailable.
	Budget Budget
}

// Budget is a workload guarded by a PodDisruptionBudget.
type Budget struct {
	Namespace string
	// Selector selects its pods (a label selector's text, "app=web").
	Selector     string
	MinAvailable int
}

// Watcher watches an upgrade as openshift/origin's monitors do: kube-api
// over new and over reused connections, the etcd leader, each node's Ready
// condition, and the guarded workload's Ready pods against its budget.
type Watcher struct {
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	samplers  []*Sampler
	perMaster []*Sampler
	budget    Budget
	pods      labels.Selector

	mu          sync.Mutex
	transitions []ReadyTransition
	ready       map[string]bool
	leader      string
	changes     int
	// excused are the nodes a fault (not the update) took down, now;
	// everExcused all that ever were. Their extra unready episodes and the
	// pods they hold are not the rollout's.
	excused, everExcused map[string]bool
	// webReady is each workload pod's Ready, podNode its node;
	// budgetBroken counts the episodes with fewer Ready pods (pods on
	// excused nodes counted as Ready) than the budget's minAvailable.
	webReady     map[string]bool
	podNode      map[string]string
	budgetBroken int
	broken       bool
	// synced is set once the first list of pods is in: before it, the
	// pods arrive one by one and would read as a budget broken.
	synced bool
}

// Watch begins sampling; Stop ends it. Its watches have synced when it
// returns.
func Watch(ctx context.Context, o WatchOptions) (*Watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	m := &Watcher{cancel: cancel, budget: o.Budget, ready: map[string]bool{}, webReady: map[string]bool{}, podNode: map[string]string{},
		excused: map[string]bool{}, everExcused: map[string]bool{}}
	fail := func(err error) (*Watcher, error) {
		m.Stop()
		return nil, err
	}
	var err error
	if m.pods, err = labels.Parse(o.Budget.Selector); err != nil {
		return fail(fmt.Errorf("origin's monitors: the budget's selector %q: %w", o.Budget.Selector, err))
	}
	for _, reuse := range []bool{false, true} {
		s, err := NewSampler(KubeAPIBackend(reuse), rest.CopyConfig(o.REST), reuse)
		if err != nil {
			return fail(err)
		}
		m.samplers = append(m.samplers, s)
	}
	if len(o.APIServerURLs) > 1 {
		for i, u := range o.APIServerURLs {
			cfg := rest.CopyConfig(o.REST)
			cfg.Host = u
			s, err := NewSampler(fmt.Sprintf("kube-apiserver-%d", i), cfg, false)
			if err != nil {
				return fail(err)
			}
			m.perMaster = append(m.perMaster, s)
		}
	}
	for _, s := range slices.Concat(m.samplers, m.perMaster) {
		m.wg.Go(func() { s.Run(ctx) })
	}
	if o.Leader != nil {
		m.wg.Go(func() { m.pollLeader(ctx, o.Leader) })
	}
	factory := informers.NewSharedInformerFactoryWithOptions(o.Kube, 0)
	nodes := factory.Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.nodeSeen(obj.(*corev1.Node)) },
		UpdateFunc: func(_, cur any) { m.nodeSeen(cur.(*corev1.Node)) },
	}); err != nil {
		return fail(err)
	}
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.podSeen(obj.(*corev1.Pod), false) },
		UpdateFunc: func(_, cur any) { m.podSeen(cur.(*corev1.Pod), false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				m.podSeen(p, true)
			}
		},
	}); err != nil {
		return fail(err)
	}
	factory.Start(ctx.Done())
	m.wg.Go(func() { <-ctx.Done(); factory.Shutdown() })
	if !cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced, pods.HasSynced) {
		return fail(fmt.Errorf("origin's monitors: the watches of Nodes and Pods did not sync"))
	}
	m.mu.Lock()
	m.synced = true
	m.judgeBudget()
	m.mu.Unlock()
	return m, nil
}

// KubeAPIBackend is origin's name for the kube-api backend sampled over
// new or over reused connections.
func KubeAPIBackend(reuse bool) string {
	if reuse {
		return "kube-api-reused-connections"
	}
	return "kube-api-new-connections"
}

// Stop ends sampling and waits for the watcher's goroutines.
func (m *Watcher) Stop() {
	m.cancel()
	m.wg.Wait()
}

// Excuse marks node as taken down by a fault (on) or back (off): its
// extra unready episodes are not judged, and its pods count as available
// for the budget while it is down (a PodDisruptionBudget guards evictions,
// not power losses).
func (m *Watcher) Excuse(node string, on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if on {
		m.excused[node], m.everExcused[node] = true, true
	} else {
		delete(m.excused, node)
	}
	m.judgeBudget()
}

// nodeSeen records a change of a node's Ready condition (the first sight
// of a node only sets its state).
func (m *Watcher) nodeSeen(n *corev1.Node) {
	now := time.Now()
	ready := nodeReady(n)
	m.mu.Lock()
	defer m.mu.Unlock()
	was, seen := m.ready[n.Name]
	m.ready[n.Name] = ready
	if seen && was != ready {
		m.transitions = append(m.transitions, ReadyTransition{Node: n.Name, Ready: ready, At: now})
	}
}

// podSeen keeps the workload's Ready pods and counts each episode below
// the budget's minAvailable.
func (m *Watcher) podSeen(p *corev1.Pod, deleted bool) {
	if p.Namespace != m.budget.Namespace || !m.pods.Matches(labels.Set(p.Labels)) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if deleted {
		delete(m.webReady, p.Name)
		delete(m.podNode, p.Name)
	} else {
		m.webReady[p.Name] = podReady(p)
		m.podNode[p.Name] = p.Spec.NodeName
	}
	m.judgeBudget()
}

// judgeBudget counts a new episode below minAvailable. m.mu is held.
func (m *Watcher) judgeBudget() {
	if !m.synced {
		return
	}
	n := 0
	for name, r := range m.webReady {
		if r || m.excused[m.podNode[name]] {
			n++
		}
	}
	below := n < m.budget.MinAvailable
	if below && !m.broken {
		m.budgetBroken++
	}
	m.broken = below
}

// pollLeader reads etcd's leader every second and counts changes from one
// known leader to another.
func (m *Watcher) pollLeader(ctx context.Context, leaderOf func(context.Context) (string, error)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		leader, err := leaderOf(lctx)
		cancel()
		m.mu.Lock()
		if err == nil && leader != "" {
			if m.leader != "" && leader != m.leader {
				m.changes++
			}
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

// Verdict is what the monitors saw, judged by origin's rules.
type Verdict struct {
	NewS, ReusedS float64
	LeaderChanges int
	// Unready judges the nodes asked for, but for the excused ones.
	Unready UnreadyVerdict
	// Excused are the nodes left out of Unready: a fault took them down.
	Excused []string
	// BudgetBroken counts the episodes below the budget's minAvailable.
	BudgetBroken int
	// APIServersDown counts the masters whose own apiserver was seen
	// failing (it stopped for the reboot), of APIServers.
	APIServersDown, APIServers int
}

// Verdict judges what was seen until now; nodes are the nodes the upgrade
// updated.
func (m *Watcher) Verdict(nodes []string) Verdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	var judged []string
	for _, n := range nodes {
		if !m.everExcused[n] {
			judged = append(judged, n)
		}
	}
	// Origin judges every node it saw change; an excused node's second
	// episode is the fault's, so its transitions are left out.
	var ts []ReadyTransition
	for _, t := range m.transitions {
		if !m.everExcused[t.Node] {
			ts = append(ts, t)
		}
	}
	v := Verdict{LeaderChanges: m.changes, BudgetBroken: m.budgetBroken, Unready: UnreadyOnce(ts, judged)}
	for _, n := range nodes {
		if m.everExcused[n] {
			v.Excused = append(v.Excused, n)
		}
	}
	for _, s := range m.perMaster {
		v.APIServers++
		if s.Result().Failed > 0 {
			v.APIServersDown++
		}
	}
	for _, s := range m.samplers {
		if s.Name() == KubeAPIBackend(true) {
			v.ReusedS = s.Result().DisruptedSeconds
		} else {
			v.NewS = s.Result().DisruptedSeconds
		}
	}
	return v
}

// Line is the verdict as make test prints it; events is the judgement of
// the nodes' event timelines (ok or broken).
func (v Verdict) Line(world, events string) string {
	return fmt.Sprintf("origin-monitors: world=%s kube_api_new_s=%.0f kube_api_reused_s=%.0f leader_changes=%d unready_once=%d/%d events=%s pdb_violations=%d apiservers_down=%d/%d unready_excused=%d",
		world, v.NewS, v.ReusedS, v.LeaderChanges, v.Unready.Once, v.Unready.Total, events, v.BudgetBroken, v.APIServersDown, v.APIServers, len(v.Excused))
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
