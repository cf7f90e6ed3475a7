package world

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// NodeSnapshot is one node as a sample saw it: its pool ("cluster/pool")
// and its annotations.
type NodeSnapshot struct {
	Name, Pool  string
	Annotations map[string]string
}

// NodeFailure says whether a node is failing and why: Degraded or
// Unreconcilable (the reason annotation), or its stage failing (the
// stageFailure annotation, attempts counts its failed attempts; -1 when
// the annotation does not parse). A node may fail both ways: reasons has
// one entry per way.
func NodeFailure(a map[string]string) (reasons []string, attempts int) {
	switch st := a[constants.StateAnnotation]; st {
	case constants.MachineConfigDaemonStateDegraded, constants.MachineConfigDaemonStateUnreconcilable:
		r := a[constants.ReasonAnnotation]
		if r == "" {
			r = "(no reason given)"
		}
		reasons = append(reasons, st+": "+r)
	}
	f, ok, err := constants.ParseStageFailure(a[constants.StageFailureAnnotation])
	switch {
	case err != nil:
		reasons = append(reasons, "stage fails: "+err.Error())
		attempts = -1
	case ok:
		reasons = append(reasons, "stage fails: "+f.Reason)
		attempts = f.Attempts
	}
	return reasons, attempts
}

// Reason is one distinct reason nodes fail for, with the nodes it affects
// (sorted).
type Reason struct {
	Text  string
	Nodes []string
}

// Line is the reason for a person: "3 nodes: <text> (a, b, c)", with the
// text cut to width runes when width > 0 and at most six names.
func (r Reason) Line(width int) string {
	names := r.Nodes
	more := ""
	if len(names) > 6 {
		names, more = names[:6], fmt.Sprintf(", ... %d more", len(r.Nodes)-6)
	}
	text := r.Text
	if width > 0 {
		text = short(text, width)
	}
	noun := "nodes"
	if len(r.Nodes) == 1 {
		noun = "node"
	}
	return fmt.Sprintf("%d %s: %s (%s%s)", len(r.Nodes), noun, text, strings.Join(names, ", "), more)
}

// short cuts s to n runes, marking the cut.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// FailureReasons groups the failing nodes by distinct reason, most nodes
// first (then by text).
func FailureReasons(nodes []NodeSnapshot) []Reason {
	by := map[string][]string{}
	for _, n := range nodes {
		rs, _ := NodeFailure(n.Annotations)
		for _, r := range rs {
			by[r] = append(by[r], n.Name)
		}
	}
	out := make([]Reason, 0, len(by))
	for text, names := range by {
		sort.Strings(names)
		out = append(out, Reason{Text: text, Nodes: names})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].Nodes) != len(out[j].Nodes) {
			return len(out[i].Nodes) > len(out[j].Nodes)
		}
		return out[i].Text < out[j].Text
	})
	return out
}

// StuckWatch decides, from successive samples of the nodes, whether a
// rollout is stuck: every node of some pool failing for FailedTimeout
// without a break, or no node's annotations changing for StallTimeout. A
// zero timeout turns that check off. It reads no clock: each Observe says
// what time it is.
type StuckWatch struct {
	FailedTimeout, StallTimeout time.Duration

	started      bool
	lastProgress time.Time
	prints       map[string]string    // node -> progressPrint at the last sample
	failingSince map[string]time.Time // pool -> since every node of it fails
}

// Stuck is StuckWatch's verdict when a rollout is stuck; it is the error
// Rollout returns then.
type Stuck struct {
	// Why is the one-line cause, e.g. "every node of infra/dpu-worker has
	// been failing for 2m0s".
	Why string
	// Reasons are the distinct reasons nodes fail for at that sample.
	Reasons []Reason
}

func (s *Stuck) Error() string { return "rollout stuck: " + s.Why }

// Observe takes the sample at now and returns a verdict when the rollout
// is stuck, nil otherwise.
func (s *StuckWatch) Observe(now time.Time, nodes []NodeSnapshot) *Stuck {
	if !s.started {
		s.started, s.lastProgress = true, now
		s.prints, s.failingSince = map[string]string{}, map[string]time.Time{}
	}
	seen := map[string]bool{}
	pools := map[string]bool{}   // every pool seen
	healthy := map[string]bool{} // pools with a node not failing
	for _, n := range nodes {
		seen[n.Name] = true
		pools[n.Pool] = true
		if rs, _ := NodeFailure(n.Annotations); len(rs) == 0 {
			healthy[n.Pool] = true
		}
		p := progressPrint(n.Annotations)
		if prev, ok := s.prints[n.Name]; !ok || prev != p {
			if ok {
				s.lastProgress = now
			}
			s.prints[n.Name] = p
		}
	}
	for name := range s.prints {
		if !seen[name] {
			delete(s.prints, name) // a node gone from the sample
		}
	}
	var stuckPools []string
	for pool := range pools {
		if healthy[pool] {
			delete(s.failingSince, pool)
			continue
		}
		since, ok := s.failingSince[pool]
		if !ok {
			s.failingSince[pool] = now
			since = now
		}
		if s.FailedTimeout > 0 && now.Sub(since) >= s.FailedTimeout {
			stuckPools = append(stuckPools, pool)
		}
	}
	for pool := range s.failingSince {
		if !pools[pool] {
			delete(s.failingSince, pool)
		}
	}
	switch {
	case len(stuckPools) > 0:
		sort.Strings(stuckPools)
		return &Stuck{Why: fmt.Sprintf("every node of %s has been failing for %s", strings.Join(stuckPools, ", "), s.FailedTimeout),
			Reasons: FailureReasons(nodes)}
	case s.StallTimeout > 0 && now.Sub(s.lastProgress) >= s.StallTimeout:
		return &Stuck{Why: fmt.Sprintf("no node's annotations changed for %s", s.StallTimeout), Reasons: FailureReasons(nodes)}
	}
	return nil
}

// progressPrint is what of a node's annotations counts as progress when it
// changes: every machineconfiguration.openshift.io annotation, except
//   - the reason, which only explains a state (a daemon retrying may reword
//     it);
//   - of a stage failure, all but its config: another failed attempt of the
//     same stage is no progress;
//   - the stage progress of a node whose stage fails: a retry that climbs
//     to 40% and fails again is no progress either.
func progressPrint(a map[string]string) string {
	keys := make([]string, 0, len(a))
	for k := range a {
		if strings.HasPrefix(k, constants.Prefix) && k != constants.ReasonAnnotation {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	failing := a[constants.StageFailureAnnotation] != ""
	var b strings.Builder
	for _, k := range keys {
		v := a[k]
		switch k {
		case constants.StageFailureAnnotation:
			if f, ok, err := constants.ParseStageFailure(v); err == nil && ok {
				v = f.Config
			}
		case constants.StageProgressAnnotation:
			if failing {
				continue
			}
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
		b.WriteByte(0)
	}
	return b.String()
}
