//go:build mco

package mco

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
)

// revisionRace plays cluster-etcd-operator #1663's race in the upgrade: as
// the first master goes down for its update, the etcd operator stand-in
// announces a new revision; once that master is back, it restarts each
// member in turn for it. A planner that grants the next master meanwhile
// reboots it while a member restarts. The harness only starts the
// revision; holding the masters is the product's (its EtcdRevision gate).
type revisionRace struct {
	op    *mcoworld.EtcdOperator
	first chan string

	mu        sync.Mutex
	fired     bool
	trigger   string
	down      map[string][]downInterval
	booted    chan string
	heldSeen  bool
	done      chan struct{}
	rollErr   error
	announced int32
}

type downInterval struct{ from, to time.Time }

func startRevisionRace(ctx context.Context, t *testing.T, w *mcoworld.World, etcd *framework.EtcdCluster, members map[string]int) *revisionRace {
	t.Helper()
	op, err := mcoworld.StartEtcdOperator(ctx, w, etcd, members)
	if err != nil {
		t.Fatal(err)
	}
	r := &revisionRace{op: op, first: make(chan string, 1), booted: make(chan string, 16), down: map[string][]downInterval{}, done: make(chan struct{})}
	go r.run(ctx, w)
	return r
}

func (r *revisionRace) run(ctx context.Context, w *mcoworld.World) {
	defer close(r.done)
	var trigger string
	select {
	case <-ctx.Done():
		return
	case trigger = <-r.first:
	}
	rev, err := r.op.Announce(ctx)
	r.mu.Lock()
	r.announced, r.rollErr = rev, err
	r.mu.Unlock()
	if err != nil {
		return
	}
	pctx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	go r.watchHold(pctx, w)
	for b := ""; b != trigger; {
		select {
		case <-ctx.Done():
			return
		case b = <-r.booted:
		}
	}
	err = r.op.Roll(ctx, rev)
	r.mu.Lock()
	r.rollErr = err
	r.mu.Unlock()
}

// watchHold notes whether the master pool said it waits for etcd.
func (r *revisionRace) watchHold(ctx context.Context, w *mcoworld.World) {
	for ctx.Err() == nil {
		if p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{}); err == nil {
			if c := node.FindCondition(p.Status.Conditions, constants.PoolDisruptionHeldCondition); c != nil && c.Reason == string(node.HoldEtcdRevision) {
				r.mu.Lock()
				r.heldSeen = true
				r.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// shutdown and boot are the upgrade monitor's hooks: the first master
// going down fires the revision.
func (r *revisionRace) shutdown(name string, master bool) {
	if !master {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down[name] = append(r.down[name], downInterval{from: time.Now()})
	if !r.fired {
		r.fired, r.trigger = true, name
		r.first <- name
	}
}

func (r *revisionRace) boot(name string, master bool) {
	if !master {
		return
	}
	r.mu.Lock()
	if d := r.down[name]; len(d) > 0 && d[len(d)-1].to.IsZero() {
		d[len(d)-1].to = time.Now()
	}
	fired := r.fired
	r.mu.Unlock()
	if fired {
		select {
		case r.booted <- name:
		default:
		}
	}
}

// judge waits (bounded) for the rollout's end and fails when a master was
// down while the revision rolled, other than the one whose shutdown
// started it.
func (r *revisionRace) judge(t *testing.T) string {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(5 * time.Minute):
		t.Error("the etcd revision's rollout did not end within 5 minutes")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.fired {
		t.Error("no master went down: the etcd revision was never started")
		return "mco-etcd-revision: fired=no"
	}
	if r.rollErr != nil {
		t.Errorf("the etcd operator stand-in's revision %d: %v", r.announced, r.rollErr)
	}
	restarts := r.op.Restarts()
	var roll mcoworld.RevisionRoll
	for _, x := range r.op.Rolls() {
		if x.Revision == r.announced {
			roll = x
		}
	}
	overlaps := 0
	for name, ds := range r.down {
		for _, d := range ds {
			to := d.to
			if to.IsZero() {
				to = time.Now()
			}
			if name == r.trigger && d.from.Before(roll.Start) {
				// Its shutdown started the revision; the members restart
				// only after its boot, which the restarts below check.
				for _, m := range restarts {
					if m.Stopped.Before(to) && d.from.Before(m.Healthy) {
						overlaps++
						t.Errorf("%s was down (%s to %s) while etcd member of %s restarted for revision %d", name, d.from.Format(time.StampMilli), to.Format(time.StampMilli), m.Node, m.Revision)
					}
				}
				continue
			}
			if d.from.Before(roll.End) && roll.Start.Before(to) {
				overlaps++
				t.Errorf("%s went down at %s while etcd rolled revision %d (%s to %s): the control plane's grants must wait for it", name,
					d.from.Format(time.StampMilli), roll.Revision, roll.Start.Format(time.StampMilli), roll.End.Format(time.StampMilli))
			}
		}
	}
	if !r.heldSeen {
		t.Errorf("the master pool never showed DisruptionHeld=%s while etcd rolled revision %d", node.HoldEtcdRevision, r.announced)
	}
	return fmt.Sprintf("mco-etcd-revision: revision=%d members_restarted=%d/%d overlaps=%d held_reason_seen=%t roll_s=%.0f",
		r.announced, len(restarts), len(r.down), overlaps, r.heldSeen, roll.End.Sub(roll.Start).Seconds())
}
