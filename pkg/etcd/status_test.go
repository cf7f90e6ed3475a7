package etcd

import (
	"errors"
	"strings"
	"testing"
)

func healthy(id uint64, name string, leader, term, index uint64) Member {
	return Member{ID: id, Name: name, ClientURLs: []string{"http://" + name}, Leader: leader, RaftTerm: term,
		RaftIndex: index, RaftAppliedIndex: index}
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		members   []Member
		leader    string
		err       bool
		unhealthy map[string]string // name -> substring of why
	}{
		{name: "all healthy", leader: "m1",
			members: []Member{healthy(1, "m0", 2, 5, 100), healthy(2, "m1", 2, 5, 100), healthy(3, "m2", 2, 5, 99)}},
		{name: "member down", leader: "m1",
			members: []Member{healthy(1, "m0", 2, 5, 100), healthy(2, "m1", 2, 5, 100),
				{ID: 3, Name: "m2", ClientURLs: []string{"x"}, StatusErr: errors.New("connection refused")}},
			unhealthy: map[string]string{"m2": "connection refused"}},
		{name: "mid-election: highest term wins", leader: "m2",
			members:   []Member{healthy(1, "m0", 2, 5, 100), healthy(2, "m1", 3, 6, 100), healthy(3, "m2", 3, 6, 100)},
			unhealthy: map[string]string{"m0": "not the leader"}},
		{name: "no leader", err: true,
			members:   []Member{healthy(1, "m0", 0, 5, 100), healthy(2, "m1", 0, 5, 100)},
			unhealthy: map[string]string{"m0": "no leader", "m1": "no leader"}},
		{name: "catching up", leader: "m0",
			members:   []Member{healthy(1, "m0", 1, 5, 5000), healthy(2, "m1", 1, 5, 10)},
			unhealthy: map[string]string{"m1": "catching up"}},
		{name: "learner and alarm and unstarted", leader: "m0",
			members: []Member{healthy(1, "m0", 1, 5, 10),
				func() Member { m := healthy(2, "m1", 1, 5, 10); m.IsLearner = true; return m }(),
				func() Member { m := healthy(3, "m2", 1, 5, 10); m.Alarms = []string{"NOSPACE"}; return m }(),
				{ID: 4}},
			unhealthy: map[string]string{"m1": "learner", "m2": "NOSPACE", "unstarted-4": "not started"}},
		{name: "no members", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.members, DefaultMaxLag)
			if (s.Err() != nil) != tc.err {
				t.Fatalf("Err = %v, want error %v", s.Err(), tc.err)
			}
			if s.Leader() != tc.leader {
				t.Errorf("Leader = %q, want %q", s.Leader(), tc.leader)
			}
			for _, name := range s.Members() {
				ok, why := s.Healthy(name)
				want, bad := tc.unhealthy[name]
				if ok == bad || (bad && !strings.Contains(why, want)) {
					t.Errorf("Healthy(%s) = %v %q, want unhealthy %v (%q)", name, ok, why, bad, want)
				}
			}
			if ok, _ := s.Healthy("stranger"); ok {
				t.Errorf("a non-member is healthy")
			}
		})
	}
}

func TestAllFollowLeader(t *testing.T) {
	all := []Member{healthy(1, "m0", 2, 6, 100), healthy(2, "m1", 2, 6, 100), healthy(3, "m2", 2, 6, 100)}
	if !Summarize(all, DefaultMaxLag).AllFollowLeader() {
		t.Error("every member follows m1, AllFollowLeader false")
	}
	// Just after a hand-over: the old leader has no leader yet.
	noLeader := []Member{healthy(1, "m0", 0, 6, 100), healthy(2, "m1", 2, 6, 100), healthy(3, "m2", 2, 6, 100)}
	if Summarize(noLeader, DefaultMaxLag).AllFollowLeader() {
		t.Error("m0 has no leader, AllFollowLeader true")
	}
	down := []Member{healthy(1, "m0", 2, 6, 100), healthy(2, "m1", 2, 6, 100), {ID: 3, Name: "m2", StatusErr: errors.New("down")}}
	if Summarize(down, DefaultMaxLag).AllFollowLeader() {
		t.Error("m2 did not answer, AllFollowLeader true")
	}
}
