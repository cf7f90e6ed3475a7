package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

type snap struct {
	leader string
	sick   map[string]bool
}

func (s snap) Err() error        { return nil }
func (s snap) Leader() string    { return s.leader }
func (s snap) Members() []string { return []string{"master-0", "master-1", "master-2"} }
func (s snap) Healthy(m string) (bool, string) {
	if s.sick[m] {
		return false, "down"
	}
	return true, ""
}

// Each ordering, driven with the leader it would see, reboots every member
// once; the controller's ordering moves leadership before the leader's turn
// and never reboots the leader.
func TestOrderings(t *testing.T) {
	members := []string{"master-0", "master-1", "master-2"}
	for _, o := range orderings {
		s := newRolloutState(members, rand.New(rand.NewPCG(1, 2)))
		leader := "master-1"
		var reboots []string
		moves := 0
		for i := 0; !s.finished() && i < 20; i++ {
			st, err := nextStep(o, s, snap{leader: leader})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case st.MoveLeader != "":
				leader = st.MoveLeader
				moves++
			case st.Reboot != "":
				if o != orderingRandom && st.Reboot == leader && len(s.done) < 2 {
					t.Errorf("%s rebooted leader %s before its followers", o, leader)
				}
				if o == orderingFollowersFirstMoveLeader && st.Reboot == leader {
					t.Errorf("%s rebooted the leader without moving leadership", o)
				}
				reboots = append(reboots, st.Reboot)
				s.done[st.Reboot] = true
			default:
				t.Fatalf("%s: nothing to do: %+v", o, st)
			}
		}
		if len(reboots) != 3 {
			t.Errorf("%s rebooted %v", o, reboots)
		}
		if wantMoves := map[string]int{orderingFollowersFirstMoveLeader: 1}[o]; moves != wantMoves {
			t.Errorf("%s moved leadership %d times, want %d", o, moves, wantMoves)
		}
	}
	if _, err := nextStep("sideways", newRolloutState(members, rand.New(rand.NewPCG(1, 2))), snap{}); err == nil {
		t.Errorf("unknown ordering accepted")
	}
}

func TestControllerOrderingWaitsForUnhealthyMember(t *testing.T) {
	s := newRolloutState([]string{"master-0", "master-1", "master-2"}, rand.New(rand.NewPCG(1, 2)))
	st, _ := nextStep(orderingFollowersFirstMoveLeader, s, snap{leader: "master-0", sick: map[string]bool{"master-2": true}})
	if st.Reboot != "" || st.Wait == "" {
		t.Fatalf("rebooted with a member down: %+v", st)
	}
}

func TestPercentileAndSummary(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(ds, 99); p != 198*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(ds, 100); p != 200*time.Millisecond {
		t.Errorf("max = %v", p)
	}
	s := summarize("SIGKILL", "random", []rolloutResult{{LeaderChanges: 1, FailedWrites: 2, DroppedRetried: 3, PutP99: 10 * time.Millisecond, PutMax: 40 * time.Millisecond},
		{LeaderChanges: 2, FailedWrites: 0, PutP99: 20 * time.Millisecond, PutMax: 60 * time.Millisecond}})
	want := "bench-etcd: stop=SIGKILL ordering=random client_retry=none rollouts=2 leader_changes=1.50 failed_writes=1.00 failed_writes_max=2 dropped_retried=1.50 put_p99_ms=15.0 put_max_ms=60.0"
	if s.String() != want {
		t.Errorf("summary = %q, want %q", s.String(), want)
	}
}
