package scale

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// nodeSnap is what the bench reads of a node at one event.
type nodeSnap struct {
	at                              time.Time
	name                            string
	current, desired, staged, stage string
	state                           string
	desiredDrain, lastAppliedDrain  string
	unschedulable                   bool
}

// tracker watches one cluster's nodes with the bench's admin identity (not
// counted as tandem's requests) and keeps every change of the protocol
// annotations, for the rollout's timeline. It counts the watch events it
// receives: the apiserver's watch event count includes them.
type tracker struct {
	mu     sync.Mutex
	last   map[string]nodeSnap
	log    []nodeSnap
	events atomic.Int64
	stop   context.CancelFunc
	done   chan struct{}
}

func snapOf(n *corev1.Node, at time.Time) nodeSnap {
	a := n.Annotations
	return nodeSnap{at: at, name: n.Name,
		current: a[constants.CurrentConfigAnnotation], desired: a[constants.DesiredConfigAnnotation],
		staged: a[constants.StagedConfigAnnotation], stage: a[constants.StageConfigAnnotation],
		state:        a[constants.StateAnnotation],
		desiredDrain: a[constants.DesiredDrainAnnotation], lastAppliedDrain: a[constants.LastAppliedDrainAnnotation],
		unschedulable: n.Spec.Unschedulable}
}

func startTracker(ctx context.Context, c *cluster) *tracker {
	ctx, cancel := context.WithCancel(ctx)
	t := &tracker{last: map[string]nodeSnap{}, stop: cancel, done: make(chan struct{})}
	f := informers.NewSharedInformerFactory(c.cp.Kube, 0)
	inf := f.Core().V1().Nodes().Informer()
	record := func(obj any) {
		t.events.Add(1)
		n, ok := obj.(*corev1.Node)
		if !ok {
			return
		}
		s := snapOf(n, time.Now())
		t.mu.Lock()
		defer t.mu.Unlock()
		prev, seen := t.last[n.Name]
		prev.at = s.at
		if !seen || prev != s {
			t.last[n.Name] = s
			t.log = append(t.log, s)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, n any) { record(n) },
	})
	go func() { defer close(t.done); inf.RunWithContext(ctx) }()
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	return t
}

func (t *tracker) close() { t.stop(); <-t.done }

// snapshot returns the latest view of every node.
func (t *tracker) snapshot() map[string]nodeSnap {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]nodeSnap, len(t.last))
	for k, v := range t.last {
		out[k] = v
	}
	return out
}

// timeline returns every recorded change since from, in order.
func (t *tracker) timeline(from time.Time) []nodeSnap {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []nodeSnap
	for _, s := range t.log {
		if !s.at.Before(from) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// doneAt reports whether s runs target, idle and uncordoned.
func (s nodeSnap) doneAt(target string) bool {
	return s.current == target && s.desired == target && s.state == constants.MachineConfigDaemonStateDone && !s.unschedulable
}

// unavailable is the MCO's rule for a node counting against maxUnavailable
// (IsUnavailableForUpdate in pkg/controller/node/status.go, release-4.20),
// restated here so the bench judges the planner with its own oracle:
// cordoned, or not done (current != desired, or state not Done) unless the
// daemon failed.
func (s nodeSnap) unavailable() bool {
	if s.unschedulable {
		return true
	}
	if s.current == s.desired && s.state == constants.MachineConfigDaemonStateDone {
		return false
	}
	return s.state != constants.MachineConfigDaemonStateDegraded && s.state != constants.MachineConfigDaemonStateUnreconcilable
}

// rolloutFacts are what the timeline says about one rollout to target.
type rolloutFacts struct {
	MaxUnavailableSeen int
	// GrantLag: after a node is done while others still wait for a
	// grant, the time until the controller's next grant (its reaction
	// time, which bounds the rollout only if it is large).
	GrantLags     []time.Duration
	Granted, Done int
	// Windows: each node's update from its grant to Done, in the steps of
	// the drain handshake, so the controller's part can be told from the
	// daemon's and the simulated machine's.
	Windows []nodeWindow
}

func analyse(tl []nodeSnap, start map[string]nodeSnap, target string) rolloutFacts {
	var f rolloutFacts
	cur := make(map[string]nodeSnap, len(start))
	for k, v := range start {
		cur[k] = v
	}
	unavailable := 0
	pending := 0 // nodes not granted yet
	for _, s := range cur {
		if s.unavailable() {
			unavailable++
		}
		if s.desired != target {
			pending++
		}
	}
	f.MaxUnavailableSeen = unavailable
	var freedAt []time.Time // slots freed and not yet reused
	windows := windowTracker{}
	for _, s := range tl {
		prev := cur[s.name]
		cur[s.name] = s
		if prev.unavailable() != s.unavailable() {
			if s.unavailable() {
				unavailable++
			} else {
				unavailable--
			}
		}
		f.MaxUnavailableSeen = max(f.MaxUnavailableSeen, unavailable)
		if prev.desired != target && s.desired == target {
			f.Granted++
			pending--
			if len(freedAt) > 0 {
				f.GrantLags = append(f.GrantLags, s.at.Sub(freedAt[0]))
				freedAt = freedAt[1:]
			}
		}
		windows.see(prev, s, target)
		if !prev.doneAt(target) && s.doneAt(target) {
			f.Done++
			if pending > 0 {
				freedAt = append(freedAt, s.at)
			}
		}
	}
	f.Windows = windows.complete()
	return f
}
