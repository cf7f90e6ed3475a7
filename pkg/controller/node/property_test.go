package node

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The property test drives Plan through a simulated fleet: daemons that
// stage slowly or fail, drains and reboots, nodes that go NotReady or vanish,
// new nodes, pauses, new targets mid-rollout, an etcd cluster whose members
// go down with their masters, lose their leader, become unreachable, and
// MoveLeader calls that fail. After every plan it checks the safety
// invariants; once the chaos stops it checks the rollout finishes.

var plannerSchedules = flag.Int("planner-schedules", 3000, "schedules the planner property test runs")

const (
	chaosSteps = 200 // steps with random faults
	calmSteps  = 600 // steps after the faults stop, for the rollout to finish
)

type simNode struct {
	NodeView
	stageLeft int // steps until the stage completes
	phase     simPhase
	phaseLeft int
	broken    bool // failing until repaired
}

type simPhase int

const (
	idle simPhase = iota
	working
	draining
	rebooting
)

type simEtcd struct {
	members     []string
	leader      string
	unreachable bool
	sick        map[string]bool // random faults, besides members whose master reboots
	electIn     int             // steps until a leaderless cluster elects
}

type sim struct {
	rng      *rand.Rand
	pool     PoolView
	nodes    []*simNode
	etcd     *simEtcd // nil: a worker pool, no etcd source
	step     int
	cfgSeq   int
	nameSeq  int
	calm     bool
	profile  simProfile
	failures []string
	stats    *simStats
}

// simStats shows what the schedules exercised, so a green run is not a
// run that never reached the interesting cases.
type simStats struct {
	plans, grants, stages, moves, etcdHolds, pausedPlans, retargets, completed int
}

type simProfile struct {
	stageSlow  int     // max steps a stage takes
	failP      float64 // per step, a working daemon fails
	vanishP    float64 // per step, a node vanishes (worker pools)
	flapP      float64 // per step, an idle node goes NotReady for a while
	pauseP     float64
	retargetP  float64
	etcdFaultP float64
	moveFailP  float64
}

func newSim(seed uint64) *sim {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := &sim{rng: rng, cfgSeq: 1}
	s.profile = simProfile{
		stageSlow:  1 + rng.IntN(12),
		failP:      rng.Float64() * 0.05,
		vanishP:    rng.Float64() * 0.02,
		flapP:      rng.Float64() * 0.03,
		pauseP:     rng.Float64() * 0.03,
		retargetP:  rng.Float64() * 0.01,
		etcdFaultP: rng.Float64() * 0.05,
		moveFailP:  rng.Float64() * 0.5,
	}
	controlPlane := rng.IntN(2) == 0
	var n int
	if controlPlane {
		s.pool = PoolView{Name: constants.MasterPool, ControlPlane: true}
		n = []int{1, 3, 3, 3, 5}[rng.IntN(5)]
		s.etcd = &simEtcd{sick: map[string]bool{}}
	} else {
		s.pool = PoolView{Name: "worker"}
		n = 1 + rng.IntN(12)
	}
	switch rng.IntN(4) {
	case 0:
	case 1:
		v := intstr.FromInt32(int32(1 + rng.IntN(3)))
		s.pool.MaxUnavailable = &v
	case 2:
		v := intstr.FromString(fmt.Sprintf("%d%%", 10+rng.IntN(91)))
		s.pool.MaxUnavailable = &v
	case 3:
		v := intstr.FromString("100%")
		s.pool.MaxUnavailable = &v
	}
	if rng.IntN(2) == 0 {
		v := intstr.FromInt32(int32(1 + rng.IntN(4)))
		s.pool.StageConcurrency = &v
	}
	old := s.config()
	for range n {
		s.addNode(old)
	}
	if s.etcd != nil {
		for _, nd := range s.nodes {
			s.etcd.members = append(s.etcd.members, nd.Name)
		}
		s.etcd.leader = s.etcd.members[rng.IntN(len(s.etcd.members))]
	}
	s.pool.Target = s.nextConfig()
	return s
}

func (s *sim) config() string     { return fmt.Sprintf("rendered-%s-%d", s.pool.Name, s.cfgSeq) }
func (s *sim) nextConfig() string { s.cfgSeq++; return s.config() }

func (s *sim) addNode(cfg string) {
	s.nameSeq++
	nv := NodeView{Name: fmt.Sprintf("%s-%d", s.pool.Name, s.nameSeq), Created: epoch.Add(time.Duration(s.step) * time.Minute),
		Current: cfg, Desired: cfg, State: constants.MachineConfigDaemonStateDone, Ready: true}
	if s.rng.IntN(2) == 0 {
		nv.Zone, nv.HasZone = fmt.Sprintf("zone-%d", s.rng.IntN(3)), true
	}
	s.nodes = append(s.nodes, &simNode{NodeView: nv})
}

func (s *sim) views() []NodeView {
	out := make([]NodeView, 0, len(s.nodes))
	for _, n := range s.nodes {
		out = append(out, n.NodeView)
	}
	return out
}

func (s *sim) node(name string) *simNode {
	for _, n := range s.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// memberDown reports whether a member is down: its master reboots, or a
// random fault.
func (s *sim) memberDown(m string) bool {
	if s.etcd.sick[m] {
		return true
	}
	n := s.node(m)
	return n != nil && n.phase == rebooting
}

// facts is the etcd snapshot the reconciler would take.
func (s *sim) facts() Facts {
	f := Facts{Now: epoch.Add(time.Duration(s.step) * time.Second)}
	if s.etcd == nil {
		return f
	}
	if s.etcd.unreachable {
		f.Etcd = fakeEtcd{err: errUnreachable}
		return f
	}
	fe := fakeEtcd{leader: s.etcd.leader, members: slices.Clone(s.etcd.members), unhealthy: map[string]string{}}
	for _, m := range s.etcd.members {
		if s.memberDown(m) {
			fe.unhealthy[m] = "down"
		}
	}
	f.Etcd = fe
	return f
}

func (s *sim) violate(format string, args ...any) {
	s.failures = append(s.failures, fmt.Sprintf("step %d: ", s.step)+fmt.Sprintf(format, args...))
}

// check asserts the safety invariants of one plan.
func (s *sim) check(views []NodeView, facts Facts, r Result) {
	target := s.pool.Target
	if s.pool.Paused && (len(r.Grant) > 0 || len(r.Stage) > 0 || r.MoveLeader != nil) {
		s.violate("paused pool got grants %v stages %v move %v", r.Grant, r.Stage, r.MoveLeader)
	}
	byName := map[string]NodeView{}
	for _, v := range views {
		byName[v.Name] = v
	}
	after := slices.Clone(views)
	for _, g := range r.Grant {
		v, ok := byName[g.Node]
		if !ok || v.Desired == target || g.Config != target {
			s.violate("grant %v of a node not needing it", g)
		}
		for i := range after {
			if after[i].Name == g.Node {
				after[i].Desired = g.Config
			}
		}
	}
	if len(r.Grant) > 0 {
		maxU, err := MaxUnavailable(s.pool.MaxUnavailable, len(views))
		if err != nil {
			s.violate("grants with an invalid maxUnavailable")
		}
		used := 0
		for _, v := range after {
			if v.Unavailable() || (v.Desired == target && v.failing()) {
				used++
			}
		}
		if used > maxU {
			s.violate("%d nodes unavailable after grants %v, maxUnavailable %d", used, r.Grant, maxU)
		}
	}
	if s.etcd == nil {
		return
	}
	// Control plane.
	if len(r.Grant) > 0 {
		fe, ok := facts.Etcd.(fakeEtcd)
		if !ok || fe.err != nil {
			s.violate("control-plane grants %v while etcd is unreachable", r.Grant)
			return
		}
		if len(fe.unhealthy) > 0 {
			s.violate("control-plane grants %v while members %v are unhealthy", r.Grant, fe.unhealthy)
		}
		if fe.leader == "" {
			s.violate("control-plane grants %v without an etcd leader", r.Grant)
		}
		down := 0
		for _, v := range after {
			if v.Unavailable() || v.failing() {
				down++
			}
		}
		if limit := max((len(fe.members)-1)/2, 1); down > limit {
			s.violate("%d members down after grants %v, quorum allows %d", down, r.Grant, limit)
		}
		for _, g := range r.Grant {
			if g.Node != fe.leader {
				continue
			}
			for _, v := range views {
				if v.Name != fe.leader && !v.updated(target) {
					s.violate("leader %s granted while follower %s is pending", g.Node, v.Name)
				}
			}
			if len(fe.members) > 1 {
				s.violate("leader %s of a %d-member cluster granted without moving leadership", g.Node, len(fe.members))
			}
		}
	}
	if m := r.MoveLeader; m != nil {
		fe, _ := facts.Etcd.(fakeEtcd)
		if m.From != fe.leader || m.To == fe.leader {
			s.violate("MoveLeader %+v while leader is %s", *m, fe.leader)
		}
		if _, sick := fe.unhealthy[m.To]; sick {
			s.violate("MoveLeader to unhealthy %s", m.To)
		}
		if v, ok := byName[m.To]; ok && !v.updated(target) {
			s.violate("MoveLeader to %s, not updated", m.To)
		}
		if slices.ContainsFunc(r.Grant, func(a Assignment) bool { return a.Node == m.From }) {
			s.violate("leader %s granted in the plan that moves its leadership", m.From)
		}
	}
}

// apply carries out a Result, as the reconciler does.
func (s *sim) apply(r Result) {
	for _, a := range r.Stage {
		if n := s.node(a.Node); n != nil && n.Stage != a.Config {
			n.Stage = a.Config
			n.stageLeft = 1 + s.rng.IntN(s.profile.stageSlow)
		}
	}
	for _, a := range r.Grant {
		if n := s.node(a.Node); n != nil {
			n.Desired = a.Config
		}
	}
	if m := r.MoveLeader; m != nil && s.etcd.leader == m.From {
		if s.calm || s.rng.Float64() >= s.profile.moveFailP {
			s.etcd.leader = m.To
		}
	}
}

// chaos injects faults; none once the schedule is calm.
func (s *sim) chaos() {
	if s.calm {
		s.pool.Paused = false
		if s.etcd != nil {
			s.etcd.unreachable = false
			clear(s.etcd.sick)
		}
		for _, n := range s.nodes {
			if n.phase == idle {
				n.Ready = true
			}
			n.broken = false
		}
		return
	}
	p := s.profile
	if s.rng.Float64() < p.pauseP {
		s.pool.Paused = !s.pool.Paused
	}
	if s.rng.Float64() < p.retargetP {
		s.pool.Target = s.nextConfig()
		s.stats.retargets++
	}
	for _, n := range s.nodes {
		if n.phase == idle && s.rng.Float64() < p.flapP {
			n.Ready = !n.Ready
		}
	}
	if s.etcd == nil {
		if len(s.nodes) > 0 && s.rng.Float64() < p.vanishP {
			i := s.rng.IntN(len(s.nodes))
			s.nodes = slices.Delete(s.nodes, i, i+1)
		}
		if s.rng.Float64() < p.vanishP {
			s.addNode(s.config())
			s.nodes[len(s.nodes)-1].Current = fmt.Sprintf("rendered-%s-1", s.pool.Name)
			s.nodes[len(s.nodes)-1].Desired = s.nodes[len(s.nodes)-1].Current
		}
		return
	}
	e := s.etcd
	if s.rng.Float64() < p.etcdFaultP {
		e.unreachable = !e.unreachable
	}
	if s.rng.Float64() < p.etcdFaultP {
		m := e.members[s.rng.IntN(len(e.members))]
		e.sick[m] = !e.sick[m]
	}
	if s.rng.Float64() < p.etcdFaultP/2 {
		e.leader = "" // a spontaneous election
		e.electIn = 1 + s.rng.IntN(3)
	}
}

// daemons step every node through stage -> staged -> granted -> working ->
// drain -> reboot -> done.
func (s *sim) daemons() {
	for _, n := range s.nodes {
		if n.broken {
			if s.rng.Float64() < 0.1 {
				n.broken = false
				n.State = constants.MachineConfigDaemonStateWorking
			}
			continue
		}
		if n.Stage != "" && n.Staged != n.Stage && n.Desired == n.Current {
			if n.stageLeft--; n.stageLeft <= 0 {
				n.Staged = n.Stage
			}
		}
		if n.Desired == n.Current && n.phase == idle {
			continue
		}
		if !s.calm && n.phase != rebooting && s.rng.Float64() < s.profile.failP {
			n.broken, n.phase = true, idle
			n.State, n.Reason = constants.MachineConfigDaemonStateDegraded, "simulated failure"
			n.Unschedulable = false
			continue
		}
		switch n.phase {
		case idle:
			n.phase, n.State = working, constants.MachineConfigDaemonStateWorking
			n.phaseLeft = 1
			if n.Staged != n.Desired {
				n.phaseLeft += 1 + s.rng.IntN(s.profile.stageSlow)
			}
		case working:
			if n.phaseLeft--; n.phaseLeft <= 0 {
				n.Staged = n.Desired
				n.phase, n.phaseLeft, n.Unschedulable = draining, 1+s.rng.IntN(3), true
			}
		case draining:
			if n.phaseLeft--; n.phaseLeft <= 0 {
				n.phase, n.phaseLeft, n.Ready = rebooting, 2+s.rng.IntN(4), false
				if s.etcd != nil && s.etcd.leader == n.Name {
					s.etcd.leader, s.etcd.electIn = "", 1+s.rng.IntN(2)
				}
			}
		case rebooting:
			if n.phaseLeft--; n.phaseLeft <= 0 {
				n.phase, n.Ready, n.Unschedulable = idle, true, false
				n.Current, n.State, n.Reason = n.Desired, constants.MachineConfigDaemonStateDone, ""
			}
		}
	}
	if e := s.etcd; e != nil && e.leader == "" {
		if e.electIn--; e.electIn <= 0 {
			var up []string
			for _, m := range e.members {
				if !s.memberDown(m) {
					up = append(up, m)
				}
			}
			if len(up)*2 > len(e.members) {
				e.leader = up[s.rng.IntN(len(up))]
			}
		}
	}
}

func (s *sim) count(r Result) {
	st := s.stats
	st.plans++
	st.grants += len(r.Grant)
	st.stages += len(r.Stage)
	if r.MoveLeader != nil {
		st.moves++
	}
	if s.pool.Paused {
		st.pausedPlans++
	}
	for _, h := range r.Holds {
		if h.Reason == HoldEtcdUnreachable || h.Reason == HoldEtcdUnhealthy {
			st.etcdHolds++
			break
		}
	}
}

func (s *sim) finished() bool {
	for _, n := range s.nodes {
		if !n.updated(s.pool.Target) || !n.schedulable() {
			return false
		}
	}
	return true
}

func (s *sim) run() {
	for s.step = 0; s.step < chaosSteps+calmSteps; s.step++ {
		s.calm = s.step >= chaosSteps
		s.chaos()
		views, facts := s.views(), s.facts()
		r := Plan(s.pool, views, facts)
		s.check(views, facts, r)
		s.count(r)
		s.pool.Status = *r.Status
		s.apply(r)
		s.daemons()
		if s.calm && s.finished() {
			s.stats.completed++
			return
		}
	}
	var stuck []string
	for _, n := range s.nodes {
		if !n.updated(s.pool.Target) {
			stuck = append(stuck, fmt.Sprintf("%s(cur=%s des=%s state=%s)", n.Name, n.Current, n.Desired, n.State))
		}
	}
	s.violate("rollout to %s did not finish after the faults stopped: %s", s.pool.Target, strings.Join(stuck, " "))
}

func TestPlannerInvariants(t *testing.T) {
	schedules := *plannerSchedules
	if testing.Short() {
		schedules = 300
	}
	violations := 0
	var st simStats
	for seed := range uint64(schedules) {
		s := newSim(seed)
		s.stats = &st
		s.run()
		if len(s.failures) > 0 {
			violations += len(s.failures)
			if violations < 20 {
				t.Errorf("seed %d (%s, %d nodes): %s", seed, s.pool.Name, len(s.nodes), strings.Join(s.failures, "\n\t"))
			}
		}
	}
	fmt.Printf("planner-coverage: plans=%d grants=%d stages=%d move_leader=%d etcd_held_plans=%d paused_plans=%d retargets=%d completed=%d\n",
		st.plans, st.grants, st.stages, st.moves, st.etcdHolds, st.pausedPlans, st.retargets, st.completed)
	if st.grants == 0 || st.moves == 0 || st.etcdHolds == 0 || st.pausedPlans == 0 {
		t.Errorf("the schedules did not reach every rule: %+v", st)
	}
	fmt.Printf("planner-invariants: schedules=%d violations=%d\n", schedules, violations)
}
