//go:build mco

// Package mco tests tandem deployed by the MCO's own operator (test/mcoworld):
// the MCO image, the installer's bootstrap, the takeover and an OpenShift upgrade.
package mco

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
	"github.com/tandem-mco/tandem/test/originmon"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

// workloadNamespace holds the MCO world's guarded workload.
const workloadNamespace = "workload"

// TestMCOUpgrade is an OpenShift upgrade as the CVO delivers one, through
// tandem: the MCO's own operator (from the fork build) installs release
// V1 on five nodes (three masters, each with its etcd member), then the
// CVO stand-in applies release V2 — a new operator version and a new OS
// image in the osimageurl ConfigMap. The operator rolls its daemon and
// controller out, writes the ControllerConfig; the MCO's template
// controller completes it and the MCO's render stamps V2; tandem stages
// every node ahead, then grants, drains and reboots them. The upgrade is
// done when the machine-config ClusterOperator reports V2, Available and
// not Degraded, as an e2e-upgrade job judges it.
func TestMCOUpgrade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	dir := t.TempDir()
	reg := startRegistry(ctx, t, dir)
	os1, os2 := synthesize(ctx, t, reg, 1), synthesize(ctx, t, reg, 2)
	// etcd as OpenShift runs it: TLS with client certificates, each member
	// on its own address at :2379, published in the etcd operator's objects
	// (tandem's controller finds it there: the operator passes no flag).
	etcd, err := framework.StartEtcdClusterWith(ctx, filepath.Join(dir, "etcd"), framework.EtcdClusterOptions{Members: 3, TLS: true, OwnAddresses: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Stop() })

	masters, workers, nodes := fiveNodes()
	mon := newUpgradeMonitor(etcd)
	v1 := mcoworld.NewRelease("4.21.0-tandem.1", "registry.tandem.test", os1, "")
	w, err := mcoworld.Start(ctx, mcoworld.Options{
		Dir: dir, Masters: masters, Workers: workers, InitialImage: os1, Registry: reg, Install: true,
		EtcdCluster: etcd, EtcdMembers: map[string]int{"master-0": 0, "master-1": 1, "master-2": 2},
		OnShutdown: mon.shutdown, OnBoot: mon.boot, APIServerPerMaster: true,
	}, v1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })

	if err := waitRelease(ctx, w, v1, nodes, 25*time.Minute); err != nil {
		t.Fatalf("installing %s: %v\n%s", v1.Version, err, w.Diagnose(ctx))
	}
	// worker-0 carries a DPU (dpu_test.go): the tenant's admin gives
	// tandem's controller its DPU role, and the infra cluster comes up.
	enableDPUTenant(ctx, t, w, map[string]string{"dpu-tenant": "true"})
	pair := startDPUPair(ctx, t, dir, w, reg, os1)
	infraBefore, err := pair.renderedConfig(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	before := poolTargets(ctx, t, w)
	// The guarded workload: one pod per worker, one down at a time, so
	// every worker's drain meets its budget.
	if err := framework.StartWorkload(ctx, w.CP.Kube, framework.Workload{Namespace: workloadNamespace, Replicas: len(workers),
		NodeSelector: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}, SpreadOverNodes: true}); err != nil {
		t.Fatal(err)
	}
	mon.start(ctx, t, w, nodes, os2)
	// etcd's operator rolls a revision as the first master goes down.
	race := startRevisionRace(ctx, t, w, etcd, map[string]int{"master-0": 0, "master-1": 1, "master-2": 2})
	mon.mu.Lock()
	mon.race = race
	mon.mu.Unlock()
	coWatch := startCOWatch(ctx, t, w)
	pair.count(ctx, t)
	origin, err := originmon.Watch(ctx, originmon.WatchOptions{Kube: w.CP.Kube, REST: w.CP.RESTConfig, APIServerURLs: w.CP.APIServerURLs(),
		Leader: etcd.Leader, Budget: originmon.Budget{Namespace: workloadNamespace, Selector: framework.WorkloadSelector, MinAvailable: len(workers) - 1}})
	if err != nil {
		t.Fatal(err)
	}

	v2 := mcoworld.NewRelease("4.21.1-tandem.2", "registry.tandem.test", os2, "")
	upgradeStart := time.Now()
	if _, err := w.CVO.Apply(ctx, v2); err != nil {
		t.Fatal(err)
	}
	// The infra cluster's own update, at the same moment.
	if err := pair.publishUpdate(ctx, os2); err != nil {
		t.Fatal(err)
	}
	if err := waitRelease(ctx, w, v2, nodes, 30*time.Minute); err != nil {
		t.Fatalf("upgrading to %s: %v\n%s", v2.Version, err, w.Diagnose(ctx))
	}
	origin.Stop()
	coWatch.stop()
	coSeen := coWatch.judge(t)
	after := poolTargets(ctx, t, w)
	for pool, name := range after {
		if before[pool] == name {
			t.Errorf("pool %s still targets %s after the upgrade: the new OS image never rendered", pool, name)
		}
	}
	co, err := w.Config.ConfigV1().ClusterOperators().Get(ctx, "machine-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pools := nodesByPool(masters, workers)
	// The planner grants up to maxUnavailable nodes at once, staged ones
	// first (DESIGN.md "The controller"); at a rollout's start none is
	// staged yet, so the first grants precede their stage, and the daemon
	// stages before it drains. The promise judged is "nothing is drained
	// until the stage is done"; the grant order is reported.
	staged := mon.stagedBeforeGrant(nodes)
	stagedBeforeDrain := mon.stagedBeforeDrain(nodes, dpuHost)
	reboots := mon.reboots()
	perNode := "1"
	for _, n := range nodes {
		if reboots[n] != 1 {
			perNode = fmt.Sprint(reboots)
			t.Errorf("%s rebooted %d times during the upgrade, want 1", n, reboots[n])
		}
	}
	for _, v := range mon.violations() {
		t.Error(v)
	}
	if stagedBeforeDrain != len(nodes) {
		t.Errorf("%d of %d nodes staged their new OS before their update disrupted them (cordoned; %s: rebooted): %s", stagedBeforeDrain, len(nodes), dpuHost, mon.stageTimes(pools, after))
	}
	t.Logf("stage, grant, cordon and reboot times: %s", mon.stageTimes(pools, after))
	ordering := "absent"
	if p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{}); err == nil {
		if c := node.FindCondition(p.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition); c != nil {
			ordering = fmt.Sprintf("%s (%s: %s)", c.Status, c.Reason, c.Message)
			if c.Status != corev1.ConditionTrue {
				t.Errorf("the master pool's %s condition is %s: tandem's controller did not find etcd from the cluster's objects", constants.PoolEtcdLeaderOrderingCondition, ordering)
			}
		}
	}
	t.Logf("master pool %s: %s", constants.PoolEtcdLeaderOrderingCondition, ordering)
	// Each node was installed on RHCOS 9.6: its first boot pinned its NICs.
	pinned := 0
	for _, n := range nodes {
		if err := w.FirstbootEL(n); err != nil {
			t.Error(err)
			continue
		}
		pinned++
	}
	// Every operand process ran as its pod's service account, with the
	// RBAC the payload installs, and the MCO's admission policy held.
	idOK, idTotal, idProblems := w.CheckIdentities(ctx)
	for _, p := range idProblems {
		t.Error(p)
	}
	forbidden, err := w.Forbidden()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range forbidden {
		if i == 5 {
			t.Errorf("... and %d more refusals", len(forbidden)-5)
			break
		}
		t.Errorf("refused: %s", l)
	}
	guard := "ok"
	if err := w.CheckMCNGuard(ctx); err != nil {
		guard = "broken"
		t.Error(err)
	}
	removed := removedRuleSurfaces(ctx, t, w)
	// The workers joined through the machine-config-server: what it served
	// them is the pool's config plus its additions, and a first boot
	// refuses a server it cannot trust or reach.
	mcsIgnition := "ok"
	joined, err := w.CheckMCSIgnition(ctx)
	if err != nil {
		mcsIgnition = "broken"
		t.Error(err)
	}
	refusals, err := w.CheckMCSRefusals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("mco-real: identities=%d/%d forbidden=%d mcn_guard=%s removed_rule=%s firstboot_el=%d/%d mcs_ignition=%s joined=%d bad_cert=%s mcs_down=%s\n",
		idOK, idTotal, len(forbidden), guard, removed, pinned, len(nodes), mcsIgnition, joined,
		refusal(t, "bad cert", refusals.BadCert), refusal(t, "MCS down", refusals.Down))
	fmt.Printf("mco-upgrade: from=%s to=%s nodes=%d co_version=%s %s staged_before_grant=%d staged_before_drain=%d reboots_per_node=%s firstboot_el=%d/%d\n",
		v1.Version, v2.Version, len(nodes), coVersion(co), coSeen, staged, stagedBeforeDrain, perNode, pinned, len(nodes))
	// Each node's update as origin reads it from the MCO's node events.
	timelines, err := originmon.EventTimelines(ctx, w.CP.Kube, []string{mcoworld.Namespace, metav1.NamespaceDefault}, nodes, upgradeStart)
	if err != nil {
		t.Fatal(err)
	}
	maxStaged, eventProblems := originmon.JudgeTimelines(timelines, nodes)
	for _, p := range eventProblems {
		t.Error(p)
	}
	eventsOK := "ok"
	if len(eventProblems) > 0 {
		eventsOK = "broken"
	}
	fmt.Printf("mco-events: nodes=%d events=%s os_update_staged_max_s=%.1f\n", len(nodes), eventsOK, maxStaged.Seconds())
	verdict := origin.Verdict(nodes)
	for _, f := range verdict.Unready.Failures {
		t.Error(f)
	}
	if verdict.BudgetBroken > 0 {
		t.Errorf("the workload had fewer Ready pods than its budget's minAvailable (%d) %d times during the upgrade", len(workers)-1, verdict.BudgetBroken)
	}
	// origin allows 3 leader changes per etcd revision rolled out, with no
	// floor (openshift/origin test/extended/etcd/leader_changes.go at
	// 0acff9ea8c274c3d599d426ca1bcc00b2cb2b9db); the MCO's update itself
	// rolls none, so for it the goal is judged: at most one change
	// per three masters (the leader's own reboot, last). The etcd operator
	// stand-in rolls one revision (revisionRace): origin's 3 for it.
	revisions := len(race.op.Rolls())
	if allowed := len(masters)/3 + 3*revisions; verdict.LeaderChanges > allowed {
		t.Errorf("etcd changed leader %d times during the upgrade, want at most %d (one per three masters, 3 per revision; %d revisions)", verdict.LeaderChanges, allowed, revisions)
	}
	if verdict.APIServersDown != verdict.APIServers || verdict.APIServers != len(masters) {
		t.Errorf("%d of %d masters' kube-apiservers were seen down during the upgrade, want each of the %d masters': a reboot must stop its master's apiserver", verdict.APIServersDown, verdict.APIServers, len(masters))
	}
	fmt.Println(verdict.Line("mco", eventsOK))
	fmt.Println(race.judge(t))
	fmt.Printf("mco-upgrade-etcd: initial_leader=%s master_reboot_order=%s rebooted_as_leader=%d\n", mon.initialLeader, strings.Join(mon.masterOrder(), ","), len(mon.leaderReboots()))
	pair.judge(ctx, t, func() int { return mon.cordonCount(dpuHost) }, func() int { return mon.reboots()[dpuHost] }, infraBefore)
}

func synthesize(ctx context.Context, t *testing.T, reg *osimage.Registry, v int) string {
	ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{Registry: reg, Version: v, SizeBytes: 2 << 20, Layers: 1, Uncompressed: true, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func nodesByPool(masters, workers []string) map[string][]string {
	return map[string][]string{"master": masters, "worker": workers}
}

// waitRelease waits (bounded) until the machine-config ClusterOperator
// reports r's version, Available and not Degraded, each pool targets a
// config rendered for r (its release-image-version stamp: the
// ClusterOperator's version needs only the master pool, the MCO's
// required pool), and every node is Done on its pool's target.
func waitRelease(ctx context.Context, w *mcoworld.World, r mcoworld.Release, nodes []string, bound time.Duration) error {
	return framework.Await(ctx, "release "+r.Version+" rolled out", bound, 5*time.Second, func(ctx context.Context) (bool, string, error) {
		co, err := w.Config.ConfigV1().ClusterOperators().Get(ctx, "machine-config", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		// A worker that cannot join never comes: fail with why.
		if err := w.Err(); err != nil {
			return false, "", err
		}
		state := fmt.Sprintf("co version %q available=%t degraded=%t progressing=%t; %s", coVersion(co),
			coCondition(co, configv1.OperatorAvailable), coCondition(co, configv1.OperatorDegraded), coCondition(co, configv1.OperatorProgressing),
			coMessage(co, configv1.OperatorDegraded))
		if coVersion(co) != r.Version || !coCondition(co, configv1.OperatorAvailable) || coCondition(co, configv1.OperatorDegraded) {
			return false, state, nil
		}
		targets := map[string]string{}
		for _, pool := range []string{"master", "worker"} {
			p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			target := p.Spec.Configuration.Name
			mc, err := w.CP.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, target, metav1.GetOptions{})
			if err != nil {
				return false, fmt.Sprintf("%s; pool %s target %q: %v", state, pool, target, err), nil
			}
			if v := mc.Annotations[releaseImageVersion]; v != r.Version {
				return false, fmt.Sprintf("%s; pool %s targets %s, rendered for release %q", state, pool, target, v), nil
			}
			targets[pool] = target
		}
		for _, n := range nodes {
			node, err := w.CP.Kube.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			a := node.Annotations
			target := targets[poolOfNode(node)]
			if a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone || a[constants.CurrentConfigAnnotation] != target ||
				a[constants.DesiredConfigAnnotation] != target {
				return false, fmt.Sprintf("%s; node %s state=%s current=%s desired=%s (target %s)", state, n, a[constants.StateAnnotation],
					a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation], target), nil
			}
		}
		return true, "", nil
	})
}

// releaseImageVersion is the MCO render's stamp of the release a rendered
// config is for (pkg/controller/common/constants.go
// ReleaseImageVersionAnnotationKey, release-4.21).
const releaseImageVersion = "machineconfiguration.openshift.io/release-image-version"

// poolOfNode is the pool the MCO's default pools give a node by its role.
func poolOfNode(n *corev1.Node) string {
	if _, ok := n.Labels["node-role.kubernetes.io/master"]; ok {
		return "master"
	}
	return "worker"
}

func coVersion(co *configv1.ClusterOperator) string {
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			return v.Version
		}
	}
	return ""
}

func coCondition(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) bool {
	for _, c := range co.Status.Conditions {
		if c.Type == t {
			return c.Status == configv1.ConditionTrue
		}
	}
	return false
}

func coMessage(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) string {
	for _, c := range co.Status.Conditions {
		if c.Type == t && c.Status == configv1.ConditionTrue {
			return string(t) + ": " + c.Message
		}
	}
	return ""
}

func poolTargets(ctx context.Context, t *testing.T, w *mcoworld.World) map[string]string {
	out := map[string]string{}
	for _, p := range []string{"master", "worker"} {
		pool, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, p, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[p] = pool.Spec.Configuration.Name
	}
	return out
}

// upgradeMonitor records, from the moment the upgrade starts, what the
// judge needs: when each node first showed a config staged and granted
// (from a watch of the Nodes), the reboots, and which master led etcd as
// it went down.
type upgradeMonitor struct {
	etcd *framework.EtcdCluster

	mu            sync.Mutex
	started       bool
	initialLeader string
	staged        map[string]map[string]time.Time // node -> config -> first seen staged
	granted       map[string]map[string]time.Time // node -> config -> first seen desired
	cordoned      map[string]time.Time            // node -> first seen unschedulable
	cordons       map[string]int                  // node -> times made unschedulable
	wentDown      map[string]time.Time            // node -> first shutdown
	rebootCount   map[string]int
	masters       []string // master shutdown order
	asLeader      []string
	problems      []string
	// runs are the nodes' run dirs, where the rpm-ostree double keeps its
	// staged deployment; osDigest is the new OS image's digest. At each
	// node's first grant, cordon and shutdown the double's own state is
	// read: whether the new OS was staged then (not what the daemon says).
	race                                        *revisionRace
	runs                                        map[string]string
	osDigest                                    string
	stagedAtGrant, stagedAtCordon, stagedAtDown map[string]bool
}

func newUpgradeMonitor(etcd *framework.EtcdCluster) *upgradeMonitor {
	return &upgradeMonitor{etcd: etcd, staged: map[string]map[string]time.Time{}, granted: map[string]map[string]time.Time{}, cordoned: map[string]time.Time{}, cordons: map[string]int{}, wentDown: map[string]time.Time{}, rebootCount: map[string]int{},
		runs: map[string]string{}, stagedAtGrant: map[string]bool{}, stagedAtCordon: map[string]bool{}, stagedAtDown: map[string]bool{}}
}

// start begins the record: the etcd leader now, and a watch of the Nodes.
// newOS is the image the upgrade rolls out.
func (m *upgradeMonitor) start(ctx context.Context, t *testing.T, w *mcoworld.World, nodes []string, newOS string) {
	leader, err := m.leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, digest, ok := strings.Cut(newOS, "@")
	if !ok {
		t.Fatalf("the new OS image %q has no digest", newOS)
	}
	m.mu.Lock()
	m.started, m.initialLeader, m.osDigest = true, leader, digest
	for _, n := range nodes {
		sim := w.Node(n)
		if sim == nil {
			m.mu.Unlock()
			t.Fatalf("node %s has no simulated node", n)
		}
		m.runs[n] = sim.Run
	}
	m.mu.Unlock()
	// An informer, not a bare watch: a watch the apiserver closes mid-upgrade
	// would silently stop the counts the test judges.
	factory := informers.NewSharedInformerFactory(w.CP.Kube, 0)
	informer := factory.Core().V1().Nodes().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.nodeSeen(nil, obj.(*corev1.Node)) },
		UpdateFunc: func(old, cur any) { m.nodeSeen(old.(*corev1.Node), cur.(*corev1.Node)) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the upgrade monitor's watch of the Nodes did not sync")
	}
}

// nodeSeen records a Node's new state (old is nil when first listed): the
// first time each config is staged and desired, the first cordon, and
// every cordon (a schedulable node made unschedulable).
func (m *upgradeMonitor) nodeSeen(old, n *corev1.Node) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	first(m.staged, n.Name, n.Annotations[constants.StagedConfigAnnotation], now)
	if d := n.Annotations[constants.DesiredConfigAnnotation]; d != "" && d != n.Annotations[constants.CurrentConfigAnnotation] {
		if _, seen := m.stagedAtGrant[n.Name]; !seen {
			m.stagedAtGrant[n.Name] = m.newOSStaged(n.Name)
		}
	}
	first(m.granted, n.Name, n.Annotations[constants.DesiredConfigAnnotation], now)
	if _, seen := m.cordoned[n.Name]; n.Spec.Unschedulable && !seen {
		m.cordoned[n.Name] = now
		m.stagedAtCordon[n.Name] = m.newOSStaged(n.Name)
	}
	if n.Spec.Unschedulable && (old == nil || !old.Spec.Unschedulable) {
		m.cordons[n.Name]++
	}
}

func first(seen map[string]map[string]time.Time, node, config string, now time.Time) {
	if config == "" {
		return
	}
	if seen[node] == nil {
		seen[node] = map[string]time.Time{}
	}
	if _, ok := seen[node][config]; !ok {
		seen[node][config] = now
	}
}

func (m *upgradeMonitor) leader(ctx context.Context) (string, error) { return m.etcd.Leader(ctx) }

func (m *upgradeMonitor) shutdown(node, cause string) {
	m.mu.Lock()
	started, race := m.started, m.race
	m.mu.Unlock()
	if started && race != nil {
		race.shutdown(node, strings.HasPrefix(node, "master-"))
	}
	m.mu.Lock()
	if _, seen := m.wentDown[node]; started && !seen {
		m.wentDown[node] = time.Now()
		m.stagedAtDown[node] = m.newOSStaged(node)
	}
	m.mu.Unlock()
	if !started || !strings.HasPrefix(node, "master-") {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	leader, err := m.leader(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.masters = append(m.masters, node)
	switch {
	case err != nil:
		m.problems = append(m.problems, fmt.Sprintf("%s went down (%s) and the etcd leader could not be read: %v", node, cause, err))
	case leader == node:
		m.asLeader = append(m.asLeader, node)
		m.problems = append(m.problems, fmt.Sprintf("%s went down (%s) while it led etcd", node, cause))
	}
}

func (m *upgradeMonitor) boot(node string, ev framework.BootEvent) {
	m.mu.Lock()
	started, race := m.started, m.race
	m.mu.Unlock()
	if started && race != nil && ev.Cause != "start" {
		race.boot(node, strings.HasPrefix(node, "master-"))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started || ev.Cause == "start" {
		return
	}
	m.rebootCount[node]++
	if ev.Cause != "reboot" {
		m.problems = append(m.problems, fmt.Sprintf("%s booted after a %s", node, ev.Cause))
	}
}

// newOSStaged reads the rpm-ostree double's staged deployment of node and
// says whether it is the new OS. m.mu is held.
func (m *upgradeMonitor) newOSStaged(node string) bool {
	run, ok := m.runs[node]
	if !ok {
		return false
	}
	d, _, err := osdouble.StagedDeployment(run)
	if err != nil {
		m.problems = append(m.problems, fmt.Sprintf("%s: reading the double's staged deployment: %v", node, err))
		return false
	}
	return d != nil && (d.ImageDigest == m.osDigest || strings.HasSuffix(d.Origin, "@"+m.osDigest))
}

// stagedBeforeGrant counts the nodes whose double held the new OS staged
// when their update was first granted (reported: at a rollout's start none
// is staged yet).
func (m *upgradeMonitor) stagedBeforeGrant(nodes []string) int {
	return m.count(nodes, m.stagedAtGrant)
}

// stagedBeforeDrain counts the nodes whose double held the new OS staged
// at their first cordon (DESIGN.md: nothing is drained until the stage is
// done). A DPU host (dpuHosts) is first drained for its DPU's update, which
// the infra cluster starts at the upgrade's first moment, before the
// release's configs are even rendered: its update's disruption is its one
// reboot, which is to come after the stage (docs/dpu.md "Coalescing"), so
// it is read at its shutdown.
func (m *upgradeMonitor) stagedBeforeDrain(nodes []string, dpuHosts ...string) int {
	var others, hosts []string
	for _, n := range nodes {
		if slices.Contains(dpuHosts, n) {
			hosts = append(hosts, n)
		} else {
			others = append(others, n)
		}
	}
	return m.count(others, m.stagedAtCordon) + m.count(hosts, m.stagedAtDown)
}

func (m *upgradeMonitor) count(nodes []string, seen map[string]bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, node := range nodes {
		if seen[node] {
			n++
		}
	}
	return n
}

// stageTimes says, per node, when its pool's final config first showed
// staged and granted (for the message of a failed check).
func (m *upgradeMonitor) stageTimes(pools map[string][]string, targets map[string]string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for pool, nodes := range pools {
		for _, node := range nodes {
			s, g := m.staged[node][targets[pool]], m.granted[node][targets[pool]]
			out = append(out, fmt.Sprintf("%s staged=%s granted=%s cordoned=%s rebooted=%s", node, s.Format("15:04:05.000"), g.Format("15:04:05.000"),
				m.cordoned[node].Format("15:04:05.000"), m.wentDown[node].Format("15:04:05.000")))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// cordonCount is how many times node was cordoned since start.
func (m *upgradeMonitor) cordonCount(node string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cordons[node]
}

func (m *upgradeMonitor) reboots() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.rebootCount {
		out[k] = v
	}
	return out
}

func (m *upgradeMonitor) masterOrder() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.masters)
}

func (m *upgradeMonitor) leaderReboots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.asLeader)
}

func (m *upgradeMonitor) violations() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.problems)
	sort.Strings(out)
	return out
}

// removedRuleSurfaces deletes one of the rules tandem adds to the payload's
// RBAC (manifests/mco-image: the controller's read of
// openshift-etcd/etcd-endpoints) and waits, bounded, for the refusal to
// show on the master pool's EtcdLeaderOrdering condition, naming the verb
// and the resource, as an operator would look for it. Under an admin
// identity the removal changes nothing and the wait fails.
func removedRuleSurfaces(ctx context.Context, t *testing.T, w *mcoworld.World) string {
	t.Helper()
	const role = "machine-config-controller-tandem-etcd"
	if err := w.CP.Kube.RbacV1().Roles("openshift-etcd").Delete(ctx, role, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("removing Role openshift-etcd/%s: %v", role, err)
	}
	const want = `cannot get resource "configmaps" in API group "" in the namespace "openshift-etcd"`
	err := framework.Await(ctx, "the removed rule on the master pool's "+constants.PoolEtcdLeaderOrderingCondition+" condition", 3*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		c := node.FindCondition(p.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition)
		if c == nil {
			return false, "no condition", nil
		}
		return strings.Contains(c.Message, want), fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message), nil
	})
	if err != nil {
		t.Error(err)
		return "silent"
	}
	return "surfaced"
}

// refusal reports one first-boot refusal case: "refused" when the first
// boot failed and laid nothing, else the case is an error.
func refusal(t *testing.T, what string, err error) string {
	if err != nil {
		t.Errorf("first boot, %s: %v", what, err)
		return "accepted"
	}
	return "refused"
}
