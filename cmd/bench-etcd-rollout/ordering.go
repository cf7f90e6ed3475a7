package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// The orderings compared. followers-first-moveleader is the node
// controller's: its steps come from node.Plan itself.
const (
	orderingRandom                   = "random"
	orderingFollowersFirst           = "followers-first"
	orderingFollowersFirstMoveLeader = "followers-first-moveleader"
)

var orderings = []string{orderingRandom, orderingFollowersFirst, orderingFollowersFirstMoveLeader}

// step is the next thing a rollout does.
type step struct {
	Reboot     string // the member (= master) to reboot; "" when none
	MoveLeader string // move leadership to this member first; "" when none
	Wait       string // nothing may be done now, and why (re-ask after a pause)
}

// rolloutState is what a rollout knows: which masters are rebooted already.
type rolloutState struct {
	members []string
	done    map[string]bool
	perm    []string // random ordering: the order drawn at the start
}

func newRolloutState(members []string, rng *rand.Rand) *rolloutState {
	perm := slices.Clone(members)
	rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	return &rolloutState{members: slices.Clone(members), done: map[string]bool{}, perm: perm}
}

func (s *rolloutState) finished() bool { return len(s.done) == len(s.members) }

// nextStep decides the next step of a rollout under an ordering. facts is a
// fresh snapshot of the cluster.
func nextStep(ordering string, s *rolloutState, facts node.EtcdFacts) (step, error) {
	switch ordering {
	case orderingRandom:
		for _, m := range s.perm {
			if !s.done[m] {
				return step{Reboot: m}, nil
			}
		}
	case orderingFollowersFirst:
		leader := facts.Leader()
		var last string
		for _, m := range s.members {
			if s.done[m] {
				continue
			}
			if m == leader {
				last = m
				continue
			}
			return step{Reboot: m}, nil
		}
		if last != "" {
			return step{Reboot: last}, nil
		}
	case orderingFollowersFirstMoveLeader:
		return planStep(s, facts), nil
	default:
		return step{}, fmt.Errorf("unknown ordering %q (want one of %v)", ordering, orderings)
	}
	return step{}, nil
}

// planStep asks the node controller's planner, with the rollout's masters as
// a master pool (maxUnavailable 1) moving from config "old" to "new".
func planStep(s *rolloutState, facts node.EtcdFacts) step {
	const oldCfg, newCfg = "rendered-master-old", "rendered-master-new"
	one := intstr.FromInt32(1)
	pool := node.PoolView{Name: constants.MasterPool, Target: newCfg, ControlPlane: true, MaxUnavailable: &one}
	var views []node.NodeView
	for i, m := range s.members {
		cfg := oldCfg
		if s.done[m] {
			cfg = newCfg
		}
		views = append(views, node.NodeView{Name: m, Created: time.Unix(int64(i), 0), Current: cfg, Desired: cfg,
			Stage: newCfg, Staged: newCfg, State: constants.MachineConfigDaemonStateDone, Ready: true})
	}
	r := node.Plan(pool, views, node.Facts{Now: time.Now(), Etcd: facts})
	switch {
	case len(r.Grant) > 0:
		return step{Reboot: r.Grant[0].Node}
	case r.MoveLeader != nil:
		return step{MoveLeader: r.MoveLeader.To}
	case len(r.Holds) > 0:
		return step{Wait: fmt.Sprintf("%s: %s", r.Holds[0].Reason, r.Holds[0].Message)}
	}
	return step{}
}
