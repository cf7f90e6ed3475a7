package etcd

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Member is one etcd member as gathered: its list entry and its own Status
// answer (or the error asking for it).
type Member struct {
	ID         uint64
	Name       string
	ClientURLs []string
	PeerURLs   []string
	IsLearner  bool

	// From the member's Status answer.
	StatusErr        error
	Leader           uint64
	RaftTerm         uint64
	RaftIndex        uint64
	RaftAppliedIndex uint64
	Alarms           []string
}

// Status is a judged snapshot of the cluster. It satisfies the node
// planner's EtcdFacts interface.
type Status struct {
	err      error
	leader   string
	leaderID uint64
	names    []string
	health   map[string]string // member name -> problem ("" healthy)
	byName   map[string]Member
}

// Unreachable is a Status for a cluster that could not be asked.
func Unreachable(err error) *Status { return &Status{err: err} }

// Summarize judges gathered members. The leader is the one reported by the
// member with the highest raft term (members may disagree mid-election). A
// member is healthy when it answered, knows a leader, has no alarms, is a
// voting member, and has applied the leader's log to within maxLag entries.
func Summarize(members []Member, maxLag uint64) *Status {
	s := &Status{health: map[string]string{}, byName: map[string]Member{}}
	if len(members) == 0 {
		s.err = errors.New("etcd reported no members")
		return s
	}
	var term uint64
	for _, m := range members {
		if m.StatusErr == nil && m.Leader != 0 && m.RaftTerm >= term {
			term, s.leaderID = m.RaftTerm, m.Leader
		}
	}
	var leaderIndex uint64
	for _, m := range members {
		if m.ID == s.leaderID && m.StatusErr == nil {
			leaderIndex = m.RaftIndex
		}
	}
	for _, m := range members {
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("unstarted-%x", m.ID)
		}
		s.names = append(s.names, name)
		s.byName[name] = m
		if m.ID == s.leaderID {
			s.leader = name
		}
		s.health[name] = problem(m, s.leaderID, leaderIndex, maxLag)
	}
	slices.Sort(s.names)
	if s.leader == "" {
		s.err = errors.New("etcd has no leader")
	}
	return s
}

func problem(m Member, leaderID, leaderIndex, maxLag uint64) string {
	switch {
	case m.Name == "":
		return "member has not started"
	case m.StatusErr != nil:
		return m.StatusErr.Error()
	case m.IsLearner:
		return "member is a learner, not a voting member yet"
	case len(m.Alarms) > 0:
		return "alarms: " + strings.Join(m.Alarms, ", ")
	case m.Leader == 0:
		return "member knows no leader"
	case m.Leader != leaderID:
		return fmt.Sprintf("member follows %x, not the leader %x", m.Leader, leaderID)
	case leaderIndex > m.RaftAppliedIndex+maxLag:
		return fmt.Sprintf("member is catching up: applied %d, leader at %d", m.RaftAppliedIndex, leaderIndex)
	}
	return ""
}

// Err is non-nil when the cluster could not be asked or has no leader.
func (s *Status) Err() error { return s.err }

// Leader is the leader member's name.
func (s *Status) Leader() string { return s.leader }

// LeaderID is the leader member's ID (0 if none).
func (s *Status) LeaderID() uint64 { return s.leaderID }

// AllFollowLeader reports whether every member answered and names the
// leader as its own: no member is still without a leader, or following an
// old one, after a leader change.
func (s *Status) AllFollowLeader() bool {
	if s.err != nil {
		return false
	}
	for _, m := range s.byName {
		if m.StatusErr != nil || m.Leader != s.leaderID {
			return false
		}
	}
	return true
}

// Members lists member names, sorted.
func (s *Status) Members() []string { return slices.Clone(s.names) }

// Healthy reports a member's health and, if unhealthy, why.
func (s *Status) Healthy(name string) (bool, string) {
	p, ok := s.health[name]
	if !ok {
		return false, "not a member"
	}
	return p == "", p
}

// MemberURLs lists the named member's peer and client URLs, so the node
// planner can find the member's node when it is not named like it.
func (s *Status) MemberURLs(name string) []string {
	m, ok := s.byName[name]
	if !ok {
		return nil
	}
	return append(slices.Clone(m.PeerURLs), m.ClientURLs...)
}

// Member returns what was gathered about the named member.
func (s *Status) Member(name string) (Member, bool) {
	m, ok := s.byName[name]
	return m, ok
}

// String renders the status for logs.
func (s *Status) String() string {
	if s.err != nil && len(s.names) == 0 {
		return "unreachable: " + s.err.Error()
	}
	var parts []string
	for _, n := range s.names {
		p := s.health[n]
		switch {
		case n == s.leader:
			parts = append(parts, n+"(leader)")
		case p != "":
			parts = append(parts, n+"(unhealthy: "+p+")")
		default:
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, " ")
}
