package originmon

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ReadyTransition is one change of a node's Ready condition. The caller
// records only changes, in time order.
type ReadyTransition struct {
	Node  string
	Ready bool
	At    time.Time
}

// UnreadyVerdict is origin's "[sig-node] nodes should not go unready after
// being upgraded and go unready only once" over one upgrade.
type UnreadyVerdict struct {
	// Once counts the nodes of the judged list that went unready exactly
	// once and ready exactly once after it.
	Once int
	// Total is the number of nodes judged.
	Total int
	// Failures are origin's failure texts (plus ours for nodes that never
	// went unready); the check passes only when it is empty, because a node
	// can be Once and still, say, be reported ready twice in a row.
	Failures []string
}

// OK reports whether the check passed.
func (v UnreadyVerdict) OK() bool { return len(v.Failures) == 0 }

// UnreadyOnce judges ts by the rule of testNodeUpgradeTransitions in
// openshift/origin pkg/monitortests/node/legacynodemonitortests/kubelet.go
// (read at commit 8b0f3d1edc748458e169b27f09219040005840d7; the rule is the
// same at 019fa1e2e3f49db6e9810f0c321d2cc406a7b4c3). Origin's rule:
//   - a Ready=True while the node is already ready fails: "reported ready
//     twice in a row", and the transition is otherwise dropped;
//   - a Ready=True before any NotReady of that node is disregarded: origin
//     saw slow installs reach Ready for the first time after the suite
//     started;
//   - a NotReady while the node is already not ready (after a first
//     NotReady) is ignored;
//   - then per node: more than one NotReady fails; more than one Ready
//     fails; no Ready after the NotReady (or one of each, the Ready not
//     after the NotReady) fails "never became ready again".
//
// Origin splits the events at each UpgradeStarted/UpgradeRollback of the
// ClusterVersion; ts is one upgrade, so there is one window here.
//
// Origin also has a "went ready ... but had no record of going unready, may
// not have upgraded" failure, but it can never fire there: a Ready is
// recorded only after a NotReady. Ours differs for the nodes in nodes, and
// only for them: every node of a tandem update reboots once, so a node with
// no NotReady was not seen to reboot and the check saw nothing. It fails
// with origin's "may not have upgraded" text if a disregarded Ready was
// seen, else with "went unready 0 times: it did not reboot" (our wording).
//
// Nodes not in nodes are judged too, as origin judges every node it saw,
// but are not counted in Once or Total.
func UnreadyOnce(ts []ReadyTransition, nodes []string) UnreadyVerdict {
	unready := map[string][]time.Time{}
	ready := map[string][]time.Time{}
	early := map[string][]time.Time{} // disregarded Ready before any NotReady
	current := map[string]bool{}
	var failures []string
	for _, t := range ts {
		n := t.Node
		if t.Ready {
			if current[n] {
				failures = append(failures, fmt.Sprintf("Node %s was reported ready twice in a row (at %s), this should be impossible", n, rfc3339(t.At)))
				continue
			}
			current[n] = true
			if len(unready[n]) > 0 {
				ready[n] = append(ready[n], t.At)
			} else {
				early[n] = append(early[n], t.At)
			}
			continue
		}
		if !current[n] && len(unready[n]) > 0 {
			continue
		}
		current[n] = false
		unready[n] = append(unready[n], t.At)
	}

	judged := map[string]bool{}
	for _, n := range nodes {
		judged[n] = true
	}
	all := slices.Clone(nodes)
	for _, t := range ts {
		all = append(all, t.Node)
	}
	slices.Sort(all)
	all = slices.Compact(all)

	v := UnreadyVerdict{Total: len(nodes)}
	for _, n := range all {
		u, r := unready[n], ready[n]
		if len(u) == 0 {
			switch {
			case !judged[n]:
			case len(early[n]) > 0:
				failures = append(failures, fmt.Sprintf("Node %s went ready at %s but had no record of going unready, may not have upgraded", n, rfc3339(early[n]...)))
			default:
				failures = append(failures, fmt.Sprintf("Node %s went unready 0 times: it did not reboot", n))
			}
			continue
		}
		if len(u) > 1 {
			failures = append(failures, fmt.Sprintf("Node %s went unready multiple times: %s", n, rfc3339(u...)))
		}
		if len(r) > 1 {
			failures = append(failures, fmt.Sprintf("Node %s went ready multiple times: %s", n, rfc3339(r...)))
		}
		if len(r) == 0 || len(u) == 1 && len(r) == 1 && !u[0].Before(r[0]) {
			failures = append(failures, fmt.Sprintf("Node %s went unready at %s, never became ready again", n, rfc3339(u[0])))
		}
		if judged[n] && len(u) == 1 && len(r) == 1 && u[0].Before(r[0]) {
			v.Once++
		}
	}
	v.Failures = failures
	return v
}

// rfc3339 formats times as origin's formatTimes does: UTC, RFC 3339.
func rfc3339(ts ...time.Time) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.UTC().Format(time.RFC3339)
	}
	return strings.Join(s, ", ")
}
