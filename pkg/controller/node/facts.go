package node

import (
	"net/url"
	"slices"
	"time"
)

// Facts are what the planner knows besides the pool and its nodes. Each
// source is a small interface so adapters (pkg/etcd, the DPU pairing) and
// test doubles are interchangeable, and the planner stays free of I/O: the
// reconciler takes a snapshot first and hands it in.
type Facts struct {
	// Now stamps condition transitions.
	Now time.Time
	// Etcd is a snapshot of the etcd cluster behind the control plane. Nil
	// means no etcd source is configured: control-plane pools roll out like
	// the MCO's (no leader ordering). A snapshot whose Err is not nil means
	// etcd is unreachable: no control-plane disruption is granted.
	Etcd EtcdFacts
	// EtcdOrdering, when set, is reported in the control-plane pool's
	// EtcdLeaderOrdering condition (nil: no etcd source at all, no condition).
	EtcdOrdering *EtcdOrdering
	// Gates may each veto a node's disruption grant (e.g. a DPU whose tenant
	// host is not drained yet). A veto never consumes maxUnavailable capacity.
	Gates []DisruptionGate
	// Degraded are the nodes' MachineConfigNode NodeDegraded conditions: the
	// circuit breaker counts a node failed once it has been Degraded for
	// the pool's grace. Nil: not read (a failing node counts at once).
	Degraded DegradedConditions
	// MachineOSConfig names the MachineOSConfig that selects the pool, ""
	// when none does (pkg/controller/layering). Such a pool is on-cluster
	// layered, which tandem does not roll out: it is refused.
	MachineOSConfig string
}

// EtcdFacts is a snapshot of etcd membership. On OpenShift masters members
// are named like the nodes that run them (etcd --name == Node name); when they
// are not, a snapshot that also implements EtcdMemberURLs lets the planner
// find each member's node by address (see memberNodes), and a control-plane
// member that matches no node holds the pool's grants, since leader-last
// cannot be kept without knowing the leader's node.
type EtcdFacts interface {
	// Err is non-nil when the cluster could not be asked (or has no leader).
	Err() error
	// Leader is the name of the leader member, "" if none is known.
	Leader() string
	// Members lists the member names.
	Members() []string
	// Healthy reports whether a member answers and is in sync; why says what
	// is wrong when it is not.
	Healthy(member string) (ok bool, why string)
}

// DisruptionGate may veto the disruption of one node. It is the extension
// point for facts beyond etcd, such as DPU pairing and tenant maintenance.
type DisruptionGate interface {
	// Name names the gate in hold reasons and events.
	Name() string
	// MayDisrupt reports whether node may be granted now; reason says why not.
	MayDisrupt(pool PoolView, node NodeView) (ok bool, reason string)
}

// EtcdMemberURLs is implemented by EtcdFacts that know where each member
// listens (peer and client URLs, as in etcd's member list). It lets the
// planner find a member's node when the member is not named like the node.
type EtcdMemberURLs interface {
	MemberURLs(member string) []string
}

// memberNodes maps etcd members to the nodes that run them: a member named
// like a node is that node's (OpenShift names members after their masters);
// otherwise the node one of whose addresses (InternalIP, ExternalIP,
// Hostname) is the host of one of the member's URLs. A member matching
// several nodes by address, or none, is left out and listed in unmapped.
func memberNodes(etcd EtcdFacts, nodes []NodeView) (nodeOf map[string]string, unmapped []string) {
	byName := map[string]bool{}
	for _, n := range nodes {
		byName[n.Name] = true
	}
	urls, _ := etcd.(EtcdMemberURLs)
	nodeOf = map[string]string{}
	taken := map[string]bool{}
	var rest []string
	for _, m := range etcd.Members() {
		if byName[m] {
			nodeOf[m], taken[m] = m, true
		} else {
			rest = append(rest, m)
		}
	}
	for _, m := range rest {
		var found []string
		if urls != nil {
			hosts := map[string]bool{}
			for _, u := range urls.MemberURLs(m) {
				if h := urlHost(u); h != "" {
					hosts[h] = true
				}
			}
			for _, n := range nodes {
				if !taken[n.Name] && slices.ContainsFunc(n.Addresses, func(a string) bool { return hosts[a] }) {
					found = append(found, n.Name)
				}
			}
		}
		if len(found) == 1 {
			nodeOf[m], taken[found[0]] = found[0], true
		} else {
			unmapped = append(unmapped, m)
		}
	}
	return nodeOf, unmapped
}

// urlHost is the host of a URL ("https://10.0.0.5:2380" -> "10.0.0.5").
func urlHost(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
