package world

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/originmon"
)

// Monitor watches the rollout from outside, as an SRE would, and records
// what the invariants need: who was unavailable when, etcd's leader, failed
// apiserver writes, the workload's availability, and each boot.
type Monitor struct {
	w      *World
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	// maxUnavailableSeen per "cluster/pool".
	maxUnavailableSeen map[string]int
	// leader is the current etcd leader's member name; leaderChanges counts
	// changes from one known leader to another.
	leader        string
	leaderChanges int
	initialLeader string
	// masterReboots lists masters in the order they went down, and whether
	// each was the etcd leader then.
	masterReboots []masterReboot
	// writes to the tenant apiserver during the rollout.
	writes, failedWrites int
	// minReadyWeb is the fewest Ready pods of the workload seen.
	minReadyWeb int
	// cordonedAt marks when a node was seen cordoned; windows sums them.
	cordonedAt map[string]time.Time
	windows    map[string]time.Duration
	reboots    map[string]int
	// violations are told once per episode (see Violations).
	violations Violations
	nodes      map[string]*corev1.Node
	// external are nodes a fault made NotReady, since when (see
	// FaultNodeNotReady); lastDesired is each node's desiredConfig at the
	// previous sample, to see grants.
	external        map[string]time.Time
	lastDesired     map[string]string
	lastUnavailable map[string]bool
	// origin watches the tenant cluster as openshift/origin's monitors do.
	origin *originmon.Watcher
}

type masterReboot struct {
	name       string
	wasLeader  bool
	rebootedAt time.Time
}

func newMonitor(w *World) *Monitor {
	m := &Monitor{w: w}
	m.reset()
	return m
}

// reset forgets the previous rollout: every rollout is judged alone.
func (m *Monitor) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxUnavailableSeen = map[string]int{}
	m.leader, m.leaderChanges, m.initialLeader = "", 0, ""
	m.masterReboots = nil
	m.writes, m.failedWrites = 0, 0
	m.minReadyWeb = -1
	m.cordonedAt = map[string]time.Time{}
	m.windows = map[string]time.Duration{}
	m.reboots = map[string]int{}
	m.violations = Violations{}
	m.nodes = map[string]*corev1.Node{}
	m.external = map[string]time.Time{}
	m.lastDesired = map[string]string{}
	m.lastUnavailable = map[string]bool{}
}

// setExternal marks a node a fault made NotReady (on), or no longer (off).
func (m *Monitor) setExternal(node string, on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if on {
		m.external[node] = time.Now()
	} else {
		delete(m.external, node)
	}
	if m.origin != nil {
		m.origin.Excuse(node, on)
	}
}

// currentLeader is the etcd leader's member name as last seen.
func (m *Monitor) currentLeader() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.leader
}

// externalGrace is how long after a fault made a node NotReady the monitor
// expects the planner to know: a grant in that moment could not know better.
const externalGrace = 2 * time.Second

// Kinds of violation (ViolationKey.Kind).
const (
	violationMaxUnavailable   = "maxUnavailable"
	violationGrantWhileFull   = "grantWhileNotReady"
	violationHostUnchecked    = "dpuHostUnchecked"
	violationHostNotDrained   = "dpuHostNotDrained"
	violationEtcdMemberNoBack = "etcdMemberDown"
	violationKubeletNotShown  = "nodeReadyNotReported"
	violationAPIServer        = "apiserverStopStart"
)

// violate records a violation that is an event (it happens once).
func (m *Monitor) violate(kind, subject, format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	line := m.violations.Event(time.Now(), ViolationKey{Kind: kind, Subject: subject}, fmt.Sprintf(format, args...))
	m.w.Opts.Logf("world: %s", line)
}

// holds records whether the current sample shows the violation key (a
// state, such as a pool over its maxUnavailable): a line is logged when
// it starts and when it ends, not at every sample. m.mu is held.
func (m *Monitor) holds(now time.Time, key ViolationKey, violated bool, format string, args ...any) {
	var line string
	if violated {
		line = m.violations.Holds(now, key, fmt.Sprintf(format, args...))
	} else {
		line = m.violations.Clear(now, key)
	}
	if line != "" {
		m.w.Opts.Logf("world: %s", line)
	}
}

// start begins sampling; called when the update is published.
func (m *Monitor) start(ctx context.Context) error {
	m.reset()
	ctx, m.cancel = context.WithCancel(ctx)
	cli, err := clientv3.New(clientv3.Config{Endpoints: m.w.Etcd.ClientURLs(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("etcd client for the monitor: %w", err)
	}
	leader, err := m.etcdLeader(ctx, cli)
	if err != nil {
		_ = cli.Close()
		return err
	}
	origin, err := originmon.Watch(ctx, originmon.WatchOptions{Kube: m.w.Tenant.CP.Kube, REST: m.w.Tenant.CP.RESTConfig,
		APIServerURLs: m.w.Tenant.CP.APIServerURLs(), Leader: m.w.Etcd.Leader,
		Budget: originmon.Budget{Namespace: WorkloadNamespace, Selector: framework.WorkloadSelector, MinAvailable: m.w.Opts.Replicas - 1}})
	if err != nil {
		_ = cli.Close()
		return err
	}
	m.mu.Lock()
	m.leader, m.initialLeader = leader, leader
	m.origin = origin
	m.mu.Unlock()
	m.wg.Add(3)
	go func() {
		defer m.wg.Done()
		defer cli.Close()
		m.every(ctx, 100*time.Millisecond, func() { m.sampleLeader(ctx, cli) })
	}()
	go func() { defer m.wg.Done(); m.every(ctx, 200*time.Millisecond, func() { m.sampleNodes(ctx) }) }()
	go func() { defer m.wg.Done(); m.every(ctx, 100*time.Millisecond, func() { m.write(ctx) }) }()
	return nil
}

func (m *Monitor) stop() {
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
	m.mu.Lock()
	origin := m.origin
	m.mu.Unlock()
	if origin != nil {
		origin.Stop()
	}
}

func (m *Monitor) every(ctx context.Context, d time.Duration, f func()) {
	wait.UntilWithContext(ctx, func(context.Context) { f() }, d)
}

// etcdLeader names the leader, asking the members over cli.
func (m *Monitor) etcdLeader(ctx context.Context, cli *clientv3.Client) (string, error) {
	return framework.EtcdLeader(ctx, cli, m.w.Etcd.ClientURLs())
}

func (m *Monitor) sampleLeader(ctx context.Context, cli *clientv3.Client) {
	leader, err := m.etcdLeader(ctx, cli)
	if err != nil || leader == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if leader != m.leader {
		m.leaderChanges++
		m.w.Opts.Logf("world: etcd leader %s -> %s", m.leader, leader)
		m.leader = leader
	}
}

// write is the steady apiserver client: one small write per tick; a failure
// is what a user of the cluster would have seen.
func (m *Monitor) write(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Namespace: WorkloadNamespace}}
	created, err := m.w.Tenant.CP.Kube.CoreV1().ConfigMaps(WorkloadNamespace).Create(rctx, cm, metav1.CreateOptions{})
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		err = m.w.Tenant.CP.Kube.CoreV1().ConfigMaps(WorkloadNamespace).Delete(rctx, created.Name, metav1.DeleteOptions{})
	}
	if ctx.Err() != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if err != nil {
		m.failedWrites++
		m.w.Opts.Logf("world: apiserver write failed: %v", err)
	}
}

// sampleNodes records per-pool unavailability, cordon windows and the
// workload's ready pods.
func (m *Monitor) sampleNodes(ctx context.Context) {
	now := time.Now()
	seen := map[string]*corev1.Node{}
	for _, c := range []*Cluster{m.w.Tenant, m.w.Infra} {
		list, err := c.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		unavailable := map[string]int{} // the rollout's own: the invariant
		withFaults := map[string]int{}  // with nodes a fault made NotReady
		who := map[string][]string{}
		var granted []*Node
		m.mu.Lock()
		for i := range list.Items {
			node := &list.Items[i]
			n, ok := m.w.Nodes[node.Name]
			if !ok || n.Cluster != c {
				continue
			}
			seen[node.Name] = node
			_, external := m.external[node.Name]
			if nodeUnavailable(node) {
				withFaults[n.Pool]++
				if !external || nodeUnavailableBut(node, true) {
					unavailable[n.Pool]++
				}
				who[n.Pool] = append(who[n.Pool], nodeStatus(node))
			}
			// A grant to a node that was already unavailable (a held DPU
			// host handed to its update) adds no disruption.
			d := node.Annotations[constants.DesiredConfigAnnotation]
			if prev, ok := m.lastDesired[node.Name]; ok && d != prev && d != node.Annotations[constants.CurrentConfigAnnotation] &&
				!m.lastUnavailable[node.Name] {
				granted = append(granted, n)
			}
			m.lastDesired[node.Name] = d
			m.lastUnavailable[node.Name] = nodeUnavailable(node)
		}
		for _, g := range granted {
			for x, since := range m.external {
				if xn := m.w.Nodes[x]; xn != nil && xn.Cluster == c && xn.Pool == g.Pool && now.Sub(since) >= externalGrace &&
					withFaults[g.Pool] > c.Pools[g.Pool] {
					m.mu.Unlock()
					m.violate(violationGrantWhileFull, c.Name+"/"+g.Pool+"/"+g.Name, "%s/%s: %s granted while %s was NotReady and the pool was full: %d unavailable counting it, maxUnavailable %d: %v",
						c.Name, g.Pool, g.Name, x, withFaults[g.Pool], c.Pools[g.Pool], who[g.Pool])
					m.mu.Lock()
				}
			}
		}
		for pool, limit := range c.Pools {
			key := c.Name + "/" + pool
			if unavailable[pool] > m.maxUnavailableSeen[key] {
				m.maxUnavailableSeen[key] = unavailable[pool]
			}
			m.holds(now, ViolationKey{Kind: violationMaxUnavailable, Subject: key}, unavailable[pool] > limit,
				"%s: %d nodes unavailable, maxUnavailable is %d: %v", key, unavailable[pool], limit, who[pool])
		}
		m.mu.Unlock()
	}
	pods, err := m.w.Tenant.CP.Kube.CoreV1().Pods(WorkloadNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	ready := -1
	if err == nil {
		ready = 0
		for i := range pods.Items {
			if podReady(&pods.Items[i]) {
				ready++
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, node := range seen {
		m.nodes[name] = node
		_, was := m.cordonedAt[name]
		switch {
		case node.Spec.Unschedulable && !was:
			m.cordonedAt[name] = now
		case !node.Spec.Unschedulable && was:
			m.windows[name] += now.Sub(m.cordonedAt[name])
			delete(m.cordonedAt, name)
		}
	}
	if ready >= 0 && (m.minReadyWeb < 0 || ready < m.minReadyWeb) {
		m.minReadyWeb = ready
	}
}

// nodeUnavailable is the MCO's notion: being updated, cordoned, not Ready
// or degraded.
func nodeUnavailable(n *corev1.Node) bool { return nodeUnavailableBut(n, false) }

// nodeUnavailableBut is nodeUnavailable, ignoring readiness when
// ignoreReady (a node a fault made NotReady still counts if it is also
// updated, cordoned or degraded).
func nodeUnavailableBut(n *corev1.Node, ignoreReady bool) bool {
	a := n.Annotations
	return a[constants.DesiredConfigAnnotation] != a[constants.CurrentConfigAnnotation] ||
		n.Spec.Unschedulable || (!ignoreReady && !framework.NodeReady(n)) ||
		a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded ||
		a[constants.StateAnnotation] == constants.MachineConfigDaemonStateUnreconcilable
}

// nodeStatus names a node with why it counts as unavailable.
func nodeStatus(n *corev1.Node) string {
	a := n.Annotations
	return fmt.Sprintf("%s(cordoned=%v current=%s desired=%s state=%s)", n.Name, n.Spec.Unschedulable,
		a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation], a[constants.StateAnnotation])
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// onShutdown runs as a node goes down. Its kubelet reports the node
// NotReady; a master's kube-apiserver terminates gracefully and its etcd
// member stops; a DPU must find its host drained of every non-DaemonSet
// pod.
func (m *Monitor) onShutdown(ctx context.Context, n *Node, sim *framework.SimNode, cause string) {
	if n.etcdMember >= 0 {
		m.mu.Lock()
		m.masterReboots = append(m.masterReboots, masterReboot{name: n.Name, wasLeader: m.leader == n.Name, rebootedAt: time.Now()})
		m.mu.Unlock()
	}
	if sim != nil && sim.KubeletRan() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		if err := framework.NodeShuttingDown(sctx, n.Cluster.CP.Kube, n.Name); err != nil {
			m.violate(violationKubeletNotShown, n.Name, "%s going down (%s): its Node could not be reported NotReady: %v", n.Name, cause, err)
		}
		cancel()
		if n.etcdMember >= 0 && n.Cluster.CP.APIServers() > 1 {
			if err := n.Cluster.CP.StopAPIServer(n.etcdMember); err != nil {
				m.violate(violationAPIServer, n.Name, "%s going down (%s): its kube-apiserver: %v", n.Name, cause, err)
			}
		}
	}
	if n.etcdMember >= 0 {
		_ = m.w.Etcd.StopMember(n.etcdMember)
	}
	if n.Cluster == m.w.Infra && n.Pair != "" {
		// The tenant apiserver may be restarting (a fault): retry for a
		// while. No pod can leave or land on the host without it, so the
		// first answer still tells what the host ran at the DPU's shutdown.
		var pods *corev1.PodList
		err := framework.Await(ctx, "the pods of "+n.Pair, 30*time.Second, 200*time.Millisecond, func(ctx context.Context) (bool, string, error) {
			var err error
			pods, err = m.w.Tenant.CP.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Pair})
			if err != nil {
				return false, err.Error(), nil
			}
			return true, "", nil
		})
		if err != nil {
			m.violate(violationHostUnchecked, n.Name, "%s rebooted (%s) and its host %s could not be checked: %v", n.Name, cause, n.Pair, err)
			return
		}
		var held []string
		for i := range pods.Items {
			p := &pods.Items[i]
			if !framework.IsDaemonSetPod(p) && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				held = append(held, p.Namespace+"/"+p.Name)
			}
		}
		if len(held) > 0 {
			m.violate(violationHostNotDrained, n.Name, "DPU %s rebooted (%s) while its host %s still ran %v", n.Name, cause, n.Pair, held)
		}
	}
}

// onBoot runs as a node comes back: a master's etcd member and
// kube-apiserver start, then the kubelet reports the node Ready and its
// pods run again.
func (m *Monitor) onBoot(ctx context.Context, n *Node, sim *framework.SimNode, ev framework.BootEvent) {
	if ev.Cause == "start" {
		return
	}
	m.mu.Lock()
	m.reboots[n.Name]++
	m.mu.Unlock()
	if n.etcdMember >= 0 {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := m.w.Etcd.StartMember(sctx, n.etcdMember); err != nil {
			m.violate(violationEtcdMemberNoBack, n.Name, "etcd member of %s did not come back: %v", n.Name, err)
		}
	}
	if sim == nil || !sim.KubeletRan() {
		return
	}
	if n.etcdMember >= 0 && n.Cluster.CP.APIServers() > 1 {
		if err := n.Cluster.CP.StartAPIServer(context.WithoutCancel(ctx), n.etcdMember); err != nil {
			m.violate(violationAPIServer, n.Name, "%s booted (%s) and its kube-apiserver did not start: %v", n.Name, ev.Cause, err)
		}
	}
	if err := framework.RestoreNode(context.WithoutCancel(ctx), n.Cluster.CP.Kube, n.Name, 2*time.Minute); err != nil {
		m.violate(violationKubeletNotShown, n.Name, "%s booted (%s) and its kubelet did not report Ready: %v", n.Name, ev.Cause, err)
	}
}
