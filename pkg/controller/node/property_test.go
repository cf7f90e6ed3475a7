package node_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// The planner's property test drives both deciders that admit disruption in
// a tenant cluster, the node planner (node.AdmitPool: the controller's
// admission lock, overlay, Plan and writes) and the DPU HostMaintenance
// controller (dpu.TenantController's own Sync and Gate: its snapshot,
// dpu.DecideTenant, its writes and expectations, on the world's edges),
// plus an infra cluster whose planner is gated by
// the DPU infra gate (dpu.GateVerdict) and whose DPUs ask for their hosts'
// maintenance (dpu.DecideInfra), through a simulated world: machines that
// run the real daemon decision (daemon.Next) and the real drain decision
// (drain.Decide), a stale informer cache, and faults. After every decision
// an oracle written from the MCO's documented rules, counting from the
// world and not from the planner's NodeView, judges it; once the faults
// stop it checks that everything finishes.
//
// The oracle's rules, and where they come from (openshift/machine-config-
// operator, read at commit 7ff337a4ffac, master of 2026-08-20):
//
//  R1 maxUnavailable (pkg/controller/node/node_controller.go, maxUnavailable):
//     spec.maxUnavailable unset means 1; an integer is taken as is; a
//     percent is of the pool's node count, rounded down
//     (intstr.GetScaledValueFromIntOrPercent with roundUp=false); a result
//     of 0 becomes 1. Computed here by oracleMaxUnavailable, from the string.
//  R2 what is unavailable (pkg/controller/common/layered_node_state.go,
//     IsUnavailableForUpdate, used by getUnavailableMachines in
//     pkg/controller/node/status.go): a node that is not Ready or is
//     cordoned, or whose daemon is working towards a config (not Done, not
//     failing). A failing daemon (IsNodeMCDFailing: currentConfig !=
//     desiredConfig and state Degraded or Unreconcilable) is not.
//  R3 failures use capacity (node_controller.go, getAllCandidateMachines):
//     "Nodes which are failing to target this config also count against
//     availability - it might be a transient issue, and if the issue clears
//     we don't want multiple to update at once."
//  R4 paused pools (node_controller.go, updatePools): a paused pool only
//     gets its status synced: no new desiredConfig (and, for tandem, no
//     stageConfig).
//  R5 (tandem, DESIGN.md "DPU pairing and the reboot API") HostMaintenance
//     requests count against the tenant pool's maxUnavailable, with the
//     node planner's grants: one budget, two deciders.
//  R6 (tandem, DESIGN.md "Infra pool") an infra node is granted only after
//     its tenant host holds a Drained maintenance; and a DPU never reboots
//     for its update while its host is not held and cordoned.
//  R-a (tandem, pkg/constants StageFailureAnnotation) a node whose stage
//     of its desired config (the pool's target) failed, that is not Working
//     and has asked no drain for it, does not keep that grant after a plan
//     of its (unpaused) pool: the planner gives it back.
//  R-b (same) no node is granted a config its stageFailure names.
//  R7 (tandem, DESIGN.md "Control plane") no control-plane grant while etcd
//     is unreachable, has no leader or a member is unhealthy; never more
//     members down than quorum allows ((n-1)/2, at least 1); the leader's
//     node after every follower, and only after leadership moved away; a
//     MoveLeader only to a healthy member whose node is updated.
//
// How the oracle counts (R2, R3, R5), per node, at the moment of a decision:
// the node is disrupted or committed to be if it is cordoned, draining,
// rebooting or NotReady; or granted a config it does not run yet (unless it
// is failing on a config other than the pool's target, R2); or held or
// admitted by a HostMaintenance; or asked to reboot and not rebooted yet.
// Facts the deciders write themselves (desiredConfig, stageConfig, the hold
// record and its cordon, rebootRequest, request statuses) are taken from the
// world, whether or not the cache or the admission overlay shows them yet (a
// write that timed out but was applied counts). Facts others write (Ready,
// the daemon's state and currentConfig, the drain controller's cordon) are
// taken as the cache showed them at the decision: no decider can know
// better. A node whose daemon is not Done for another reason (a failed
// stage) is not counted, though the MCO's R2 counts it: the oracle is an
// upper bound on disruption, and the planner may be more careful.
//
// Whenever a decision admits a disruption (a grant, a hold, an admitted
// request, a reboot request), the pool's count after it must be at most R1.

var (
	plannerSchedules = flag.Int("planner-schedules", 3000, "schedules the planner property test runs (make test-long: 20000)")
	plannerSeed      = flag.Int("planner-seed", -1, "replay one schedule of the planner property test, printing every decision")
)

const (
	chaosSteps = 150 // steps with random faults
	calmSteps  = 700 // steps after the faults stop, for the rollouts to finish
)

type scheduleKind int

const (
	kindWorkers      scheduleKind = iota // a worker pool; nodes join and vanish
	kindControlPlane                     // masters with etcd members
	kindDPU                              // workers with DPUs, and the infra cluster
)

type profile struct {
	stageSlow                           int
	stageFailP, daemonFailP             float64 // a pull fails (granted or not); any other step fails
	flapP, powerP                       float64 // a node goes NotReady for a while; loses power
	pauseP, retargetP                   float64
	joinP, vanishP                      float64
	etcdFaultP, moveFailP, memberLossP  float64
	writeTimeoutP, writeRefuseP, dpuRef float64 // planner writes time out (applied) or are refused; DPU writes refused
	maxLag                              int     // the cache shows a write up to maxLag steps late
	namedMembers                        bool    // etcd members named like their nodes (else: by address)
	orderP                              float64 // the admin changes a node's update-order
}

type stats struct {
	plans, grants, stages, moves, etcdHolds, pausedPlans, retargets, completed int
	writeFaults, daemonFailures, reboots, powerLosses, flaps                   int
	admitted, coalesced, infraGrants, memberLosses, addressMapped              int
	byKind                                                                     [3]int
	// judged counts, per decider, the decisions the oracle judged; admitted,
	// those that admitted a disruption (the oracle then counted the pool).
	judged, judgedAdmissions map[string]int
	// Stage failures the simulated daemon reported (stageFailure, not
	// Degraded), grants the planner gave back, revocations refused by their
	// test ops, and plans that held a node for its failed stage.
	stageFailures, revocations, revocationConflicts, stageFailedHolds int
	// R8: update-order changes, plans that held a node kept out (0) or
	// the pool for an unreadable value, and grants judged against a node
	// of a higher order.
	orderChanges, orderKeptOutHolds, orderInvalidHolds, orderJudged int
}

// The deciders that admit disruption in a tenant pool, as judge names them.
const (
	deciderPlanner         = "the node planner"
	deciderHostMaintenance = "the HostMaintenance decider"
)

func newStats() *stats { return &stats{judged: map[string]int{}, judgedAdmissions: map[string]int{}} }

type world struct {
	ctx    context.Context
	rng    *rand.Rand
	kind   scheduleKind
	tenant *cluster
	infra  *cluster
	etcd   *simEtcd
	hms    map[string]*dpuv1.HostMaintenance
	hmSeq  int
	// tenantCtl is the product's HostMaintenance controller of a DPU world.
	tenantCtl *dpu.TenantController
	step      int
	calm      bool
	cfgSeq    map[string]int
	// targetSince is when each pool's target was rendered.
	targetSince map[string]time.Time
	nameSeq     int
	profile     profile
	stats       *stats

	failures []string
	debug    bool // print each decision (TestDebugSeed)
}

func newWorld(seed uint64, st *stats) *world {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// The deciders' progress logs are not wanted here: a logger at V(10).
	w := &world{ctx: klog.NewContext(context.Background(), klog.NewKlogr().V(10)), rng: rng, stats: st, hms: map[string]*dpuv1.HostMaintenance{}, cfgSeq: map[string]int{},
		targetSince: map[string]time.Time{}}
	w.kind = scheduleKind(rng.IntN(3))
	st.byKind[w.kind]++
	w.profile = profile{
		stageSlow:     1 + rng.IntN(8),
		stageFailP:    rng.Float64() * 0.3,
		daemonFailP:   rng.Float64() * 0.03,
		flapP:         rng.Float64() * 0.02,
		powerP:        rng.Float64() * 0.005,
		pauseP:        rng.Float64() * 0.03,
		retargetP:     rng.Float64() * 0.01,
		joinP:         rng.Float64() * 0.02,
		vanishP:       rng.Float64() * 0.01,
		etcdFaultP:    rng.Float64() * 0.05,
		moveFailP:     rng.Float64() * 0.5,
		memberLossP:   rng.Float64() * 0.01,
		writeTimeoutP: rng.Float64() * 0.1,
		writeRefuseP:  rng.Float64() * 0.1,
		dpuRef:        rng.Float64() * 0.1,
		maxLag:        rng.IntN(4),
		namedMembers:  rng.IntN(2) == 0,
	}
	if rng.IntN(2) == 0 {
		w.profile.orderP = rng.Float64() * 0.05
	}
	switch w.kind {
	case kindControlPlane:
		w.tenant = w.newCluster("tenant", constants.MasterPool, []int{1, 3, 3, 3, 5}[rng.IntN(5)])
		w.tenant.pool.ControlPlane = true
		w.etcd = newSimEtcd(w)
	case kindWorkers:
		w.tenant = w.newCluster("tenant", constants.WorkerPool, 1+rng.IntN(10))
	case kindDPU:
		hosts := 1 + rng.IntN(6)
		w.tenant = w.newCluster("tenant", constants.WorkerPool, hosts)
		w.infra = w.newCluster("infra", constants.DPUWorkerPool, 0)
		for i, h := range w.tenant.nodes[:1+rng.IntN(hosts)] {
			d := newSimNode(fmt.Sprintf("dpu-%d", i), constants.DPUWorkerPool, w.config(w.infra), w.infra.images[w.config(w.infra)], epoch)
			d.pair, h.pair = h.name, d.name
			w.infra.nodes = append(w.infra.nodes, d)
		}
		w.infra.pool.MaxUnavailable = randomMaxUnavailable(rng)
		w.tenantCtl = w.newTenantController()
	}
	w.tenant.pool.MaxUnavailable = randomMaxUnavailable(rng)
	if rng.IntN(2) == 0 {
		v := strconv.Itoa(1 + rng.IntN(4))
		w.tenant.pool.StageConcurrency = intOrString(v)
	}
	for _, c := range w.clusters() {
		w.retarget(c)
		c.record(0)
	}
	return w
}

type intOrStr = intstr.IntOrString

func intOrString(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

func randomMaxUnavailable(rng *rand.Rand) *intOrStr {
	switch rng.IntN(4) {
	case 1:
		return intOrString(strconv.Itoa(1 + rng.IntN(3)))
	case 2:
		return intOrString(fmt.Sprintf("%d%%", 10+rng.IntN(91)))
	case 3:
		return intOrString("100%")
	}
	return nil
}

func (w *world) newCluster(name, pool string, n int) *cluster {
	c := &cluster{name: name, pool: node.PoolView{Name: pool}, adm: node.NewAdmission(), images: map[string]string{},
		cache: map[string]*corev1.Node{}, shown: map[string]int{}, history: map[string][]snapshot{}, drains: map[string]*drainJob{}}
	cfg := w.nextConfig(c, true)
	for range n {
		c.nodes = append(c.nodes, w.addNode(c, cfg))
	}
	return c
}

func (w *world) addNode(c *cluster, cfg string) *simNode {
	w.nameSeq++
	n := newSimNode(fmt.Sprintf("%s-%d", c.pool.Name, w.nameSeq), c.pool.Name, cfg, c.images[cfg], epoch.Add(time.Duration(w.step)*time.Minute))
	n.addrs = []string{fmt.Sprintf("10.0.%d.%d", w.nameSeq/200, w.nameSeq%200+1)}
	if w.rng.IntN(2) == 0 {
		n.labels = map[string]string{constants.NodeRoleLabelPrefix + c.pool.Name: "", constants.ZoneLabel: fmt.Sprintf("zone-%d", w.rng.IntN(3))}
	}
	return n
}

func (w *world) clusters() []*cluster {
	if w.infra != nil {
		return []*cluster{w.tenant, w.infra}
	}
	return []*cluster{w.tenant}
}

func (w *world) config(c *cluster) string {
	return fmt.Sprintf("rendered-%s-%d", c.pool.Name, w.cfgSeq[c.pool.Name])
}

// nextConfig renders a new config: mostly with a new OS image, sometimes
// files only (the image stays).
func (w *world) nextConfig(c *cluster, first bool) string {
	prev := c.images[w.config(c)]
	w.cfgSeq[c.pool.Name]++
	cfg := w.config(c)
	img := fmt.Sprintf("registry.test/%s-os@sha256:%04d", c.pool.Name, w.cfgSeq[c.pool.Name])
	if !first && w.rng.IntN(4) == 0 {
		img = prev
	}
	c.images[cfg] = img
	return cfg
}

func (w *world) retarget(c *cluster) {
	c.pool.Target = w.nextConfig(c, false)
	w.targetSince[c.pool.Name] = w.now()
}

func (w *world) now() time.Time { return epoch.Add(time.Duration(w.step) * time.Second) }

// chaos injects the faults of one step; none once calm.
func (w *world) chaos() {
	if w.calm {
		for _, c := range w.clusters() {
			c.pool.Paused = false
		}
		if w.etcd != nil {
			w.etcd.calm()
		}
		w.admitOrders()
		return
	}
	if w.rng.Float64() < w.profile.orderP {
		w.changeOrder()
	}
	p := w.profile
	for _, c := range w.clusters() {
		if w.rng.Float64() < p.pauseP {
			c.pool.Paused = !c.pool.Paused
		}
		if w.rng.Float64() < p.retargetP {
			w.retarget(c)
			w.stats.retargets++
		}
		for _, n := range c.nodes {
			if n.flap == 0 && w.rng.Float64() < p.flapP {
				n.flap = 1 + w.rng.IntN(6)
				w.stats.flaps++
			}
			if n.reboot == 0 && w.rng.Float64() < p.powerP {
				w.powerLoss(n)
				w.stats.powerLosses++
			}
		}
	}
	if w.kind == kindWorkers {
		c := w.tenant
		if len(c.nodes) > 1 && w.rng.Float64() < p.vanishP {
			i := w.rng.IntN(len(c.nodes))
			c.adm.Forget(c.nodes[i].name)
			c.nodes = slices.Delete(c.nodes, i, i+1)
		}
		if w.rng.Float64() < p.joinP {
			// A new node comes up on the pool's first config.
			first := fmt.Sprintf("rendered-%s-1", c.pool.Name)
			c.nodes = append(c.nodes, w.addNode(c, first))
		}
	}
	if w.etcd != nil {
		w.etcd.chaos(w)
	}
}

// machines runs every node's daemon and the drain controller, then the
// tenant drainer and the DPUs' effect on their hosts' network.
func (w *world) machines() {
	for _, c := range w.clusters() {
		for _, n := range c.nodes {
			if n.flap > 0 {
				n.flap--
			}
			w.daemonStep(c, n)
			w.drainStep(n)
		}
		for name, j := range c.drains {
			if !j.succeeded {
				if j.left--; j.left <= 0 {
					j.succeeded = true
				}
			}
			if c.node(name) == nil {
				delete(c.drains, name)
			}
		}
	}
	if w.infra != nil {
		for _, h := range w.tenant.nodes {
			d := w.infra.node(h.pair)
			h.netDown = d != nil && d.reboot > 0
		}
	}
	if w.etcd != nil {
		w.etcd.elect(w)
	}
}

func (w *world) run() {
	for w.step = 1; w.step <= chaosSteps+calmSteps; w.step++ {
		w.calm = w.step > chaosSteps
		w.chaos()
		for _, c := range w.clusters() {
			c.refreshCache(w.rng, w.step, w.profile.maxLag)
		}
		w.decide()
		w.machines()
		w.checkPhysical()
		for _, c := range w.clusters() {
			c.record(w.step)
		}
		if w.calm && w.finished() {
			w.stats.completed++
			return
		}
	}
	var stuck []string
	for _, c := range w.clusters() {
		for _, n := range c.nodes {
			if !w.nodeFinished(c, n) {
				stuck = append(stuck, describeNode(n))
			}
		}
	}
	for _, hm := range w.hms {
		if !hm.Spec.Action.Holds() {
			continue
		}
		stuck = append(stuck, fmt.Sprintf("request %s (%s %s, %s: %s)", hm.Name, hm.Spec.Action, hm.Spec.NodeName, hm.Status.Phase, hm.Status.Message))
	}
	w.violate("rollouts to %s did not finish %d steps after the faults stopped: %s", w.targets(), calmSteps, strings.Join(stuck, "; "))
}

func (w *world) targets() string {
	var t []string
	for _, c := range w.clusters() {
		t = append(t, c.pool.Target)
	}
	return strings.Join(t, ", ")
}

// decide lets every decider decide once, in a random order: the deciders of
// one cluster share its admission, whatever the order.
func (w *world) decide() {
	deciders := []func(){func() { w.planPool(w.tenant) }}
	if w.kind == kindDPU {
		deciders = append(deciders, w.decideTenant, func() { w.planPool(w.infra) }, w.decideInfra)
	}
	w.rng.Shuffle(len(deciders), func(i, j int) { deciders[i], deciders[j] = deciders[j], deciders[i] })
	for _, d := range deciders {
		d()
	}
}

func (w *world) nodeFinished(c *cluster, n *simNode) bool {
	_, held := n.ann[constants.MaintenanceCordonAnnotation]
	return n.ann[constants.CurrentConfigAnnotation] == c.pool.Target && n.ann[constants.DesiredConfigAnnotation] == c.pool.Target &&
		n.ann[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone && !n.unschedulable && n.ready() && !held &&
		n.booted == c.images[c.pool.Target] && n.record == nil
}

func (w *world) finished() bool {
	for _, c := range w.clusters() {
		for _, n := range c.nodes {
			if !w.nodeFinished(c, n) {
				return false
			}
		}
	}
	for _, hm := range w.hms {
		if hm.Spec.Action.Holds() {
			return false
		}
	}
	return true
}

// oracleMaxUnavailable is R1, from the pool's value as a person wrote it.
func oracleMaxUnavailable(v *intOrStr, nodes int) int {
	n := 1
	if v != nil {
		s := v.String()
		if p, ok := strings.CutSuffix(s, "%"); ok {
			pct, _ := strconv.Atoi(p)
			n = pct * nodes / 100 // rounded down
		} else {
			n, _ = strconv.Atoi(s)
		}
	}
	if n == 0 {
		n = 1
	}
	return n
}

// committed lists the pool's nodes the oracle counts (see the rules above).
func (w *world) committed(c *cluster) []string {
	var out []string
	for _, n := range c.nodes {
		if why := w.counts(c, n); why != "" {
			out = append(out, n.name+"("+why+")")
		}
	}
	return out
}

// counts says why n counts against c's maxUnavailable, "" if it does not.
func (w *world) counts(c *cluster, n *simNode) string {
	ext := c.cache[n.name]
	if ext == nil {
		ext = n.object() // a node the cache does not show yet: what is written now
	}
	ea := ext.Annotations
	ready := ext.Status.Conditions[0].Status == "True"
	cordoned := ext.Spec.Unschedulable
	if n.cordonBy == cordonByDecider {
		cordoned = n.unschedulable
	}
	desired, current := n.ann[constants.DesiredConfigAnnotation], ea[constants.CurrentConfigAnnotation]
	failing := current != desired && failingState(ea[constants.StateAnnotation])
	_, held := n.ann[constants.MaintenanceCordonAnnotation]
	switch {
	case cordoned:
		return "cordoned"
	case !ready:
		return "NotReady"
	case ea[constants.DesiredDrainAnnotation] != ea[constants.LastAppliedDrainAnnotation] &&
		strings.HasPrefix(ea[constants.DesiredDrainAnnotation], constants.DrainerStateDrain+"-"):
		return "draining"
	case desired != "" && desired != current && !(failing && desired != c.pool.Target):
		return "granted " + desired
	case held || w.admittedRequest(n.name):
		return "held"
	case n.ann[constants.RebootRequestAnnotation] != "" && n.ann[constants.RebootRequestAnnotation] != ea[constants.LastRebootAnnotation]:
		return "reboot requested"
	}
	return ""
}

func (w *world) admittedRequest(nodeName string) bool {
	for _, hm := range w.hms {
		if hm.Spec.NodeName == nodeName && hm.Spec.Action.Holds() {
			switch hm.Status.Phase {
			case dpuv1.PhaseDraining, dpuv1.PhaseDrained, dpuv1.PhaseRebooting:
				return true
			}
		}
	}
	return false
}

// admissions is what a decider's decision may have admitted: per node, its
// desiredConfig, hold, rebootRequest and admitted requests.
type admissions map[string]string

// countedNow is the set of c's nodes the oracle counts now.
func (w *world) countedNow(c *cluster) map[string]bool {
	out := map[string]bool{}
	for _, n := range c.nodes {
		if w.counts(c, n) != "" {
			out[n.name] = true
		}
	}
	return out
}

func (w *world) admissionsOf(c *cluster) admissions {
	out := admissions{}
	for _, n := range c.nodes {
		_, held := n.ann[constants.MaintenanceCordonAnnotation]
		out[n.name] = fmt.Sprintf("%s|%v|%s|%v", n.ann[constants.DesiredConfigAnnotation], held,
			n.ann[constants.RebootRequestAnnotation], w.admittedRequest(n.name))
	}
	return out
}

// judge applies the oracle after one decider's decision on cluster c: if
// it admitted a disruption on a node that did not count before, the pool's
// count must be within R1. (Admitting more on a node already disrupted, say
// a reboot of a held node, adds nothing.)
func (w *world) judge(c *cluster, who string, before admissions, countedBefore map[string]bool) {
	w.stats.judged[who]++
	after := w.admissionsOf(c)
	var admitted []string
	for name, a := range after {
		if b, ok := before[name]; ok && a != b && !countedBefore[name] && w.isAdmission(c, name, b, a) {
			admitted = append(admitted, name)
		}
	}
	if len(admitted) == 0 {
		return
	}
	w.stats.judgedAdmissions[who]++
	slices.Sort(admitted)
	maxU := oracleMaxUnavailable(c.pool.MaxUnavailable, len(c.nodes))
	if used := w.committed(c); len(used) > maxU {
		w.violate("%s admitted %v in %s/%s: %d nodes disrupted or committed, maxUnavailable %d: %s",
			who, admitted, c.name, c.pool.Name, len(used), maxU, strings.Join(used, ", "))
	}
}

// isAdmission tells whether a node's change from b to a admits a disruption.
func (w *world) isAdmission(c *cluster, name, b, a string) bool {
	bf, af := strings.Split(b, "|"), strings.Split(a, "|")
	n := c.node(name)
	cur := n.ann[constants.CurrentConfigAnnotation]
	if ext := c.cache[name]; ext != nil {
		cur = ext.Annotations[constants.CurrentConfigAnnotation]
	}
	return (af[0] != bf[0] && af[0] != cur) || (af[1] == "true" && bf[1] != "true") ||
		(af[2] != bf[2] && af[2] != "") || (af[3] == "true" && bf[3] != "true")
}

func TestPlannerInvariants(t *testing.T) {
	schedules := *plannerSchedules
	if testing.Short() {
		schedules = 300
	}
	if *plannerSeed >= 0 {
		w := newWorld(uint64(*plannerSeed), newStats())
		w.debug = true
		w.run()
		for _, f := range w.failures {
			t.Error(f)
		}
		return
	}
	violations, failedSeeds := 0, 0
	st := newStats()
	for seed := range uint64(schedules) {
		w := newWorld(seed, st)
		w.run()
		if len(w.failures) > 0 {
			violations += len(w.failures)
			// The first seeds say what failed; the count below fails the
			// test whatever their number.
			if failedSeeds++; failedSeeds <= 10 {
				t.Errorf("seed %d (%s, %d nodes): %s", seed, w.tenant.pool.Name, len(w.tenant.nodes), strings.Join(w.failures[:min(len(w.failures), 5)], "\n\t"))
			}
		}
	}
	fmt.Printf("planner-stage-failures: reported=%d revoked=%d revocation_conflicts=%d stage_failed_holds=%d\n",
		st.stageFailures, st.revocations, st.revocationConflicts, st.stageFailedHolds)
	if st.stageFailures == 0 || st.revocations == 0 || st.stageFailedHolds == 0 {
		t.Errorf("the schedules did not reach R-a and R-b: %d stage failures, %d revocations, %d plans holding a failed stage",
			st.stageFailures, st.revocations, st.stageFailedHolds)
	}
	fmt.Printf("planner-update-order: changes=%d kept_out_holds=%d invalid_holds=%d grants_judged=%d\n",
		st.orderChanges, st.orderKeptOutHolds, st.orderInvalidHolds, st.orderJudged)
	if st.orderChanges == 0 || st.orderKeptOutHolds == 0 || st.orderInvalidHolds == 0 || st.orderJudged == 0 {
		t.Errorf("the schedules did not reach R8: %d order changes, %d plans holding a node kept out, %d holding an unreadable order, %d grants judged",
			st.orderChanges, st.orderKeptOutHolds, st.orderInvalidHolds, st.orderJudged)
	}
	fmt.Printf("planner-coverage: plans=%d grants=%d stages=%d move_leader=%d etcd_held_plans=%d paused_plans=%d retargets=%d "+
		"write_faults=%d daemon_failures=%d reboots=%d power_losses=%d flaps=%d admitted_requests=%d coalesced=%d infra_grants=%d "+
		"member_losses=%d address_mapped=%d completed=%d workers_cp_dpu=%d/%d/%d\n",
		st.plans, st.grants, st.stages, st.moves, st.etcdHolds, st.pausedPlans, st.retargets, st.writeFaults, st.daemonFailures,
		st.reboots, st.powerLosses, st.flaps, st.admitted, st.coalesced, st.infraGrants, st.memberLosses, st.addressMapped, st.completed, st.byKind[kindWorkers], st.byKind[kindControlPlane], st.byKind[kindDPU])
	if st.grants == 0 || st.moves == 0 || st.etcdHolds == 0 || st.pausedPlans == 0 || st.admitted == 0 || st.infraGrants == 0 ||
		st.writeFaults == 0 || st.memberLosses == 0 || st.addressMapped == 0 || st.coalesced == 0 {
		t.Errorf("the schedules did not reach every rule: %+v", *st)
	}
	// deciders= counts the deciders whose decisions the oracle judged: a
	// decider the schedules never ran, or that never admitted anything,
	// was not tested by them.
	deciders := 0
	for _, who := range []string{deciderPlanner, deciderHostMaintenance} {
		if st.judged[who] == 0 || st.judgedAdmissions[who] == 0 {
			t.Errorf("%s: %d decisions judged, %d of them admitting a disruption: the oracle never judged it at work",
				who, st.judged[who], st.judgedAdmissions[who])
			continue
		}
		deciders++
	}
	fmt.Printf("planner-invariants: schedules=%d violations=%d deciders=%d\n", schedules, violations, deciders)
	if violations > 0 {
		t.Errorf("%d violations in %d of %d schedules", violations, failedSeeds, schedules)
	}
}
