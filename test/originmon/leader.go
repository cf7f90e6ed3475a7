package originmon

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LeaderChangesPerRevision is how many etcd leader elections origin allows
// per etcd revision rolled out during the run: "we allow max 3 elections
// per revision (we assume there are 3 master machines at most)".
const LeaderChangesPerRevision = 3

// LeaderChangesAllowed is origin's allowance for "[sig-etcd] etcd leader
// changes are not excessive [Late]", read from openshift/origin
// test/extended/etcd/leader_changes.go at commit
// 0acff9ea8c274c3d599d426ca1bcc00b2cb2b9db: revisions × 3, with no floor —
// a run that rolled out no etcd revision is allowed no leader change (an
// older version of the file, 0158349c76d482a9673b1c0b5c48450e321a7a19,
// allowed none at all).
//
// Origin measures the changes with Prometheus:
// max(max by (pod,job) (increase(etcd_server_leader_changes_seen_total{namespace=~"openshift-etcd"}[<run>])))
// — the largest increase of any one etcd member's count of leader changes
// it saw over the run — and truncates it to an int. The caller measures
// that number its own way; only the threshold is here.
func LeaderChangesAllowed(revisionsRolledOut int) int {
	if revisionsRolledOut < 0 {
		return 0
	}
	return revisionsRolledOut * LeaderChangesPerRevision
}

// JudgeLeaderChanges applies origin's comparison: it fails only when the
// changes exceed the allowance (equal passes). msg says what was judged.
func JudgeLeaderChanges(changes, revisions int) (ok bool, msg string) {
	allowed := LeaderChangesAllowed(revisions)
	if changes > allowed {
		return false, fmt.Sprintf("observed %d etcd leader changes (expected at most %d for %d etcd revisions): Leader changes are a result of stopping the etcd leader process or from latency (disk or network), review etcd performance metrics", changes, allowed, revisions)
	}
	return true, fmt.Sprintf("observed %d etcd leader changes (at most %d allowed for %d etcd revisions)", changes, allowed, revisions)
}

// RevisionStatus is a ConfigMap of namespace openshift-etcd, as far as the
// revision count needs it.
type RevisionStatus struct {
	Name    string
	Created time.Time
}

// EtcdRevisionsSince counts the etcd revisions rolled out after since, the
// way origin's GetEstimatedNumberOfRevisionsForEtcdOperator does (openshift/
// origin pkg/monitortestlibrary/allowedalerts/allow_on_revision_change.go at
// commit 4dfccfc30f2654b7872ebc5c28b21160cd3acad2; leader_changes.go passes
// it the time since its [Early] test ran): every ConfigMap of openshift-etcd
// whose name contains "revision-status-" and was created strictly after
// since is one revision. Such a name must split on "-" into exactly three
// parts, the last an integer, or the count fails — as origin's does.
func EtcdRevisionsSince(cms []RevisionStatus, since time.Time) (int, error) {
	n := 0
	for _, cm := range cms {
		if !strings.Contains(cm.Name, "revision-status-") {
			continue
		}
		parts := strings.Split(cm.Name, "-")
		if len(parts) != 3 {
			return 0, fmt.Errorf("configmap %q: unable to extract the revision number", cm.Name)
		}
		if _, err := strconv.Atoi(parts[2]); err != nil {
			return 0, fmt.Errorf("configmap %q: revision number: %w", cm.Name, err)
		}
		if cm.Created.After(since) {
			n++
		}
	}
	return n, nil
}
