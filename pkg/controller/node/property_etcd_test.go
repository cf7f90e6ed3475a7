package node_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// simEtcd is the control plane's etcd cluster: one member per master, named
// like its node or, in some schedules, not (then only its URLs tell where it
// runs). Members go down with their machines, get sick, are lost and
// replaced; the cluster becomes unreachable, loses its leader, elects.
type simEtcd struct {
	nodeOf   map[string]string // member -> node (the truth the planner must find)
	memberOf map[string]string // node -> member
	urls     map[string][]string
	members  []string       // current members
	lost     map[string]int // removed members, steps until replaced
	joining  map[string]int // replaced members catching up (unhealthy)
	leader   string
	sick     map[string]bool
	electIn  int
	unreach  bool
}

func newSimEtcd(w *world) *simEtcd {
	e := &simEtcd{nodeOf: map[string]string{}, memberOf: map[string]string{}, urls: map[string][]string{},
		lost: map[string]int{}, joining: map[string]int{}, sick: map[string]bool{}}
	for i, n := range w.tenant.nodes {
		m := n.name
		if !w.profile.namedMembers {
			m = fmt.Sprintf("etcd-%d", i)
		}
		e.nodeOf[m], e.memberOf[n.name] = n.name, m
		e.urls[m] = []string{"https://" + n.addrs[0] + ":2380", "https://" + n.addrs[0] + ":2379"}
		e.members = append(e.members, m)
	}
	e.leader = e.members[w.rng.IntN(len(e.members))]
	return e
}

// down tells whether member m does not serve: its machine is down, it is
// sick, or it is catching up after being replaced.
func (e *simEtcd) down(w *world, m string) bool {
	if e.sick[m] || e.joining[m] > 0 {
		return true
	}
	n := w.tenant.node(e.nodeOf[m])
	return n == nil || n.reboot > 0
}

// etcdSnapshot is what the controller's etcd client would report.
type etcdSnapshot struct {
	err       error
	leader    string
	members   []string
	unhealthy map[string]string
	urls      map[string][]string // nil when members are named like nodes
}

func (s *etcdSnapshot) Err() error        { return s.err }
func (s *etcdSnapshot) Leader() string    { return s.leader }
func (s *etcdSnapshot) Members() []string { return slices.Clone(s.members) }
func (s *etcdSnapshot) Healthy(m string) (bool, string) {
	if !slices.Contains(s.members, m) {
		return false, "not a member"
	}
	if why, bad := s.unhealthy[m]; bad {
		return false, why
	}
	return true, ""
}
func (s *etcdSnapshot) MemberURLs(m string) []string { return s.urls[m] }

var errEtcdUnreachable = errors.New("context deadline exceeded")

func (e *simEtcd) snapshot(w *world) *etcdSnapshot {
	if e.unreach {
		return &etcdSnapshot{err: errEtcdUnreachable}
	}
	s := &etcdSnapshot{leader: e.leader, members: slices.Clone(e.members), unhealthy: map[string]string{}}
	if !w.profile.namedMembers {
		s.urls = e.urls
		w.stats.addressMapped++
	}
	for _, m := range e.members {
		if e.down(w, m) {
			s.unhealthy[m] = "down"
		}
	}
	if e.leader == "" {
		s.err = errors.New("etcd has no leader")
	}
	return s
}

func (e *simEtcd) chaos(w *world) {
	p := w.profile
	if w.rng.Float64() < p.etcdFaultP {
		e.unreach = !e.unreach
	}
	if w.rng.Float64() < p.etcdFaultP {
		m := e.members[w.rng.IntN(len(e.members))]
		e.sick[m] = !e.sick[m]
	}
	if w.rng.Float64() < p.etcdFaultP/2 {
		e.leader, e.electIn = "", 1+w.rng.IntN(3) // a spontaneous election
	}
	if len(e.members) > 1 && w.rng.Float64() < p.memberLossP {
		// A member is lost (its disk died) and removed; it is replaced later.
		i := w.rng.IntN(len(e.members))
		m := e.members[i]
		e.members = slices.Delete(e.members, i, i+1)
		e.lost[m] = 5 + w.rng.IntN(20)
		if e.leader == m {
			e.leader, e.electIn = "", 1+w.rng.IntN(3)
		}
		w.stats.memberLosses++
	}
	for m := range e.lost {
		if e.lost[m]--; e.lost[m] <= 0 {
			e.readd(m, 1+w.rng.IntN(4))
		}
	}
}

func (e *simEtcd) readd(m string, catchUp int) {
	delete(e.lost, m)
	e.members = append(e.members, m)
	slices.Sort(e.members)
	e.joining[m] = catchUp
}

func (e *simEtcd) calm() {
	e.unreach = false
	clear(e.sick)
	for m := range e.lost {
		e.readd(m, 1)
	}
}

// elect runs raft's part: a leader whose machine went down is lost; a
// leaderless cluster with quorum elects.
func (e *simEtcd) elect(w *world) {
	for m := range e.joining {
		if e.joining[m]--; e.joining[m] <= 0 {
			delete(e.joining, m)
		}
	}
	if e.leader != "" && e.down(w, e.leader) && !e.sick[e.leader] {
		e.leader, e.electIn = "", 1+w.rng.IntN(2)
	}
	if e.leader != "" {
		return
	}
	if e.electIn--; e.electIn > 0 {
		return
	}
	var up []string
	for _, m := range e.members {
		if !e.down(w, m) {
			up = append(up, m)
		}
	}
	if len(up)*2 > len(e.members) {
		e.leader = up[w.rng.IntN(len(up))]
	}
}

// judge is R7 on one control-plane plan, then applies its MoveLeader.
func (e *simEtcd) judge(w *world, s *etcdSnapshot, r node.Result, desiredBefore map[string]string) {
	c := w.tenant
	var granted []string
	for _, n := range c.nodes {
		if d := n.ann[constants.DesiredConfigAnnotation]; d != desiredBefore[n.name] && d == c.pool.Target {
			granted = append(granted, n.name)
		}
	}
	if len(granted) > 0 {
		switch {
		case s.err != nil:
			w.violate("R7: control-plane grants %v while etcd is unreachable or leaderless (%v)", granted, s.err)
		case len(s.unhealthy) > 0:
			w.violate("R7: control-plane grants %v while members %v are unhealthy", granted, s.unhealthy)
		}
		// Quorum is about the members: a grant to a node that runs none
		// (its member was lost) takes no member down.
		memberGranted := slices.ContainsFunc(granted, func(g string) bool { return slices.Contains(s.members, e.memberOf[g]) })
		down := 0
		for _, m := range s.members {
			if _, sick := s.unhealthy[m]; sick {
				down++
			} else if n := c.node(e.nodeOf[m]); n != nil && w.counts(c, n) != "" {
				down++
			}
		}
		if limit := max((len(s.members)-1)/2, 1); memberGranted && down > limit {
			w.violate("R7: %d of %d members down or committed after grants %v, quorum allows %d", down, len(s.members), granted, limit)
		}
		for _, g := range granted {
			if e.memberOf[g] != s.leader || len(s.members) < 2 || !slices.Contains(s.members, s.leader) {
				continue
			}
			w.violate("R7: %s, the node of etcd leader %s, granted while it leads a %d-member cluster", g, s.leader, len(s.members))
			for _, m := range s.members {
				if n := c.node(e.nodeOf[m]); m != s.leader && n != nil && n.ann[constants.CurrentConfigAnnotation] != c.pool.Target {
					w.violate("R7: leader's node %s granted while follower %s (%s) is pending", g, m, n.name)
				}
			}
		}
	}
	if m := r.MoveLeader; m != nil {
		w.stats.moves++
		if m.From != s.leader || m.To == s.leader {
			w.violate("R7: MoveLeader %+v while the leader is %s", *m, s.leader)
		}
		if _, sick := s.unhealthy[m.To]; sick || !slices.Contains(s.members, m.To) {
			w.violate("R7: MoveLeader to %s, which is not a healthy member", m.To)
		}
		if n := c.node(e.nodeOf[m.To]); n != nil && (n.ann[constants.CurrentConfigAnnotation] != c.pool.Target ||
			n.ann[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone) {
			w.violate("R7: MoveLeader to %s, whose node %s is not updated to %s", m.To, n.name, c.pool.Target)
		}
		if e.leader == m.From && (w.calm || w.rng.Float64() >= w.profile.moveFailP) {
			e.leader = m.To
		}
	}
}
