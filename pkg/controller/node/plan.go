package node

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Plan decides, for one pool, which nodes may stage the pool's target config,
// which nodes may disrupt for it, whether etcd leadership must move first,
// and what the pool status says. It is pure: same inputs, same Result.
//
// Rules, in order:
//   - A pool without a target config is left alone (the render controller
//     has not rendered it yet).
//   - A paused pool gets no stage and no grant; only its status is computed.
//   - A pool a MachineOSConfig selects (on-cluster layering) gets no stage
//     and no grant either, and its stageConfigs are withdrawn; its status
//     says why (refuseLayered).
//   - Stage wave: stageConfig goes to nodes that need the target, bounded by
//     the pool's stage concurrency (default: all).
//   - Grants: desiredConfig goes to at most maxUnavailable nodes (MCO
//     rounding, at least 1); nodes already unavailable, and nodes failing on
//     the target, use up that capacity (PlacesUsed, the MCO's
//     getAllCandidateMachines).
//     The admin's update-order goes first (higher first; 0 never, and an
//     update-order that does not parse holds the pool), then staged
//     nodes, then the MCO's zone-then-age order (newest first if the pool
//     says so).
//   - Control plane (etcd ordering on): nothing is granted while etcd is
//     unreachable or a member is unhealthy; never more members down than
//     quorum allows; the leader's node is granted last, only after every
//     follower is updated and after leadership moved to an updated, healthy
//     member (a MoveLeader in the Result, and a later plan).
//   - Disruption gates may veto single nodes.
//   - A stage that failed (the daemon's stageFailure annotation) is not
//     Degraded: the node keeps serving. It is never granted the config it
//     failed to stage (HoldStageFailed), and a grant of the target it has
//     not started on is given back (Revocations), which frees its place.
//     The StagesFailed condition reports such nodes.
func Plan(pool PoolView, nodes []NodeView, facts Facts) Result {
	var r Result
	if pool.Target == "" {
		return r
	}
	maxUnavail, maxErr := MaxUnavailable(pool.MaxUnavailable, len(nodes))
	r.MaxUnavailable = maxUnavail
	breaker := EvaluateBreaker(pool, nodes, facts.Degraded, facts.Now)
	r.Breaker = breaker
	layered := facts.MachineOSConfig != ""
	// The status reports the nodes as observed; the decisions see them as
	// they are once this plan's revocations are written (those go first),
	// so a revoked node's place is free for another node at once.
	observed := nodes
	if !pool.Paused && !layered {
		nodes = planRevocations(&r, pool, nodes)
	}
	for _, n := range nodes {
		if n.Unavailable() {
			r.Unavailable++
		}
	}
	switch {
	case pool.Paused:
	case layered:
		refuseLayered(&r, pool, nodes, facts.MachineOSConfig)
	case breaker.Open:
		halt(&r, pool, nodes, breaker)
	default:
		order := newEtcdOrder(pool, nodes, facts.Etcd)
		if reason, err := invalidSetting(maxErr, invalidUpdateOrder(pool, nodes)); err != nil {
			for _, n := range nodes {
				if n.Desired != pool.Target {
					r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: reason, Message: err.Error()})
				}
			}
		} else {
			planGrants(&r, pool, nodes, order, append(poolGates(pool, facts.Now), facts.Gates...))
		}
		planStages(&r, pool, withGrants(nodes, r.Grant), order)
	}
	status := computeStatus(pool, observed, r.Holds, facts.MachineOSConfig, facts.Now)
	r.Events = append(r.Events, setStagesFailed(&status, pool.Status, observed, facts.Now)...)
	r.Events = append(r.Events, setLayeringRefused(&status, pool, facts.MachineOSConfig, facts.Now)...)
	r.Events = append(r.Events, setRolloutHalted(&status, pool.Status, pool, breaker, facts.Now)...)
	r.Events = append(r.Events, heldEvents(pool.Status, status)...)
	r.Events = append(r.Events, setEtcdOrdering(&status, pool.Status, pool, facts.EtcdOrdering, metav1.NewTime(facts.Now))...)
	r.Status = &status
	return r
}

// invalidSetting picks the first setting of the pool that does not parse
// and holds all its grants: an invalid maxUnavailable, then an invalid
// update-order.
func invalidSetting(maxErr, orderErr error) (HoldReason, error) {
	switch {
	case maxErr != nil:
		return HoldInvalidMaxUnavail, maxErr
	case orderErr != nil:
		return HoldInvalidUpdateOrder, orderErr
	}
	return "", nil
}

// withGrants returns nodes as they will be once grants are applied: a
// granted node stages on its grant and needs no stageConfig.
func withGrants(nodes []NodeView, grants []Assignment) []NodeView {
	if len(grants) == 0 {
		return nodes
	}
	// By name, not a scan per grant: a wave grants maxUnavailable nodes of
	// a pool of thousands, and nested loops made this the plan's main cost.
	byNode := make(map[string]string, len(grants))
	for _, g := range grants {
		byNode[g.Node] = g.Config
	}
	out := slices.Clone(nodes)
	for i := range out {
		if cfg, ok := byNode[out[i].Name]; ok {
			out[i].Desired = cfg
		}
	}
	return out
}

// planStages is the stage wave: stage is not disruptive, so it runs ahead of
// grants, even while etcd holds grants back.
func planStages(r *Result, pool PoolView, nodes []NodeView, order etcdOrder) {
	limit, err := StageConcurrency(pool.StageConcurrency, len(nodes))
	if err != nil {
		r.Events = append(r.Events, warning(EventInvalidSetting, err.Error()+"; staging all nodes at once"))
		limit = len(nodes)
	}
	staging := 0
	want := make([]NodeView, 0, len(nodes))
	for _, n := range nodes {
		if n.Stage != "" && n.Stage != pool.Target && (n.Current == pool.Target || n.Desired == pool.Target) {
			// A stale stageConfig (an older target, or one set before the
			// node's currentConfig was known) would make the daemon stage an
			// old OS again; re-point it. This stages nothing new.
			r.Stage = append(r.Stage, Assignment{Node: n.Name, Config: pool.Target})
		}
		if n.Current == pool.Target || n.Staged == pool.Target {
			continue
		}
		if n.Stage == pool.Target || n.Desired == pool.Target {
			// Staging already, on a stage or a grant; a failed daemon does
			// not occupy a slot.
			if !n.FailingState() {
				staging++
			}
			continue
		}
		want = append(want, n)
	}
	sortCandidates(want, pool, leaderOf(order))
	var names []string
	for _, n := range want {
		if staging >= limit {
			break
		}
		r.Stage = append(r.Stage, Assignment{Node: n.Name, Config: pool.Target})
		names = append(names, n.Name)
		staging++
	}
	if len(names) > 0 {
		r.Events = append(r.Events, normal(EventSetStageConfig,
			fmt.Sprintf("Allowed %s to stage MachineConfig %s", nodeList(names), pool.Target)))
	}
}

// planGrants hands out desiredConfig.
func planGrants(r *Result, pool PoolView, nodes []NodeView, order etcdOrder, gates []DisruptionGate) {
	// The places already taken, by the rule shared with the DPU
	// HostMaintenance controller (PlacesUsed).
	capacity := r.MaxUnavailable - PlacesUsed(pool.Target, nodes...)
	candidates := make([]NodeView, 0, len(nodes))
	for _, n := range nodes {
		if n.Desired == pool.Target {
			continue
		}
		if n.stageFailedFor(pool.Target) {
			// Not a candidate, so it takes no place: granted, its daemon
			// would only retry the stage while the place waits.
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: HoldStageFailed, Message: stageFailureMessage(n)})
			continue
		}
		if n.keptOut() {
			// Not a candidate either: the admin said never, so it is held
			// as that, not as one more node waiting for a place.
			reason, why := vetoOf([]DisruptionGate{updateOrderGate{}}, pool, n)
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: reason, Message: why})
			continue
		}
		candidates = append(candidates, n)
	}
	capacity = max(capacity, 0)
	r.Capacity = capacity
	sortCandidates(candidates, pool, leaderOf(order))

	budget := order.budget
	var granted []string
	// Every node past the capacity is held for the same reason: one
	// message for all of them (thousands in a large pool).
	fullMsg := ""
	for _, n := range candidates {
		hold := func(reason HoldReason, msg string) {
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: reason, Message: msg})
		}
		if capacity == 0 {
			if fullMsg == "" {
				fullMsg = fmt.Sprintf("maxUnavailable %d reached: %d nodes unavailable, %d granted now",
					r.MaxUnavailable, r.Unavailable, len(granted))
			}
			hold(HoldMaxUnavailable, fullMsg)
			continue
		}
		if order.active {
			if order.block != "" {
				hold(order.block, order.blockMsg)
				continue
			}
			if order.members[n.Name] {
				if budget <= 0 {
					hold(HoldEtcdQuorum, "another etcd member is being updated; one at a time keeps quorum")
					continue
				}
				if n.Name == order.leader {
					if !planLeader(r, pool, nodes, order, hold) {
						continue
					}
				}
			}
		}
		if reason, vetoed := vetoOf(gates, pool, n); vetoed != "" {
			hold(reason, vetoed)
			continue
		}
		r.Grant = append(r.Grant, Assignment{Node: n.Name, Config: pool.Target})
		granted = append(granted, n.Name)
		capacity--
		if order.members[n.Name] {
			budget--
		}
	}
	switch len(granted) {
	case 0:
	case 1:
		r.Events = append(r.Events, normal(EventSetDesiredConfig,
			fmt.Sprintf("Targeted node %s to MachineConfig %s", granted[0], pool.Target)))
	default:
		r.Events = append(r.Events, normal(EventSetDesiredConfig,
			fmt.Sprintf("Set target for %d nodes to MachineConfig %s: %s", len(granted), pool.Target, nodeList(granted))))
	}
}

// planLeader decides for the etcd leader's node. It returns true when the
// node may be granted now (only a single-member cluster: there is no one to
// hand leadership to); otherwise it holds the node and, once every follower
// is updated, asks for a MoveLeader.
func planLeader(r *Result, pool PoolView, nodes []NodeView, order etcdOrder, hold func(HoldReason, string)) bool {
	if pending := order.pendingFollowers(nodes, pool.Target); len(pending) > 0 {
		hold(HoldLeaderLast, fmt.Sprintf("etcd leader %s updates after its followers; waiting for %s",
			order.leader, nodeList(pending)))
		return false
	}
	if len(order.allMembers) == 1 {
		return true
	}
	to := order.leaderTarget(nodes, pool.Target)
	if to == "" {
		hold(HoldNoMoveLeaderTarget, fmt.Sprintf("no updated, healthy etcd member to move leadership from %s to", order.leaderMember))
		return false
	}
	r.MoveLeader = &LeaderMove{From: order.leaderMember, To: to}
	r.Events = append(r.Events, normal(EventMoveEtcdLeader,
		fmt.Sprintf("Moving etcd leadership from %s to %s before updating %s", order.leaderMember, to, order.leader)))
	hold(HoldMoveLeaderPending, fmt.Sprintf("etcd leadership moves to %s first", to))
	return false
}

func leaderOf(o etcdOrder) string {
	if o.active {
		return o.leader
	}
	return ""
}

// nodeList renders names for messages, eliding long lists.
func nodeList(names []string) string {
	const show = 5
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

// planRevocations gives back the grants of nodes whose stage of the target
// failed before they started on it (NodeView.revocable), and returns the
// nodes as those writes leave them.
func planRevocations(r *Result, pool PoolView, nodes []NodeView) []NodeView {
	var out []NodeView
	for i, n := range nodes {
		if !n.revocable(pool.Target) {
			continue
		}
		if out == nil {
			out = slices.Clone(nodes)
		}
		out[i].Desired = n.Current
		r.Revocations = append(r.Revocations, Revocation{Node: n.Name, Config: n.Desired, Current: n.Current,
			StageFailure: n.StageFailure, State: n.State})
		r.Events = append(r.Events, warning(EventGrantRevoked, fmt.Sprintf(
			"Took MachineConfig %s back from node %s, which had not started on it: %s; it keeps running %s and is granted again once a stage succeeds",
			n.Desired, n.Name, stageFailureMessage(n), n.Current)))
	}
	if out == nil {
		return nodes
	}
	return out
}

// maxReasonLen bounds a daemon's error quoted in conditions and events.
const maxReasonLen = 200

// stageFailureMessage says how a node's stage failed.
func stageFailureMessage(n NodeView) string {
	if n.StageFailureErr != "" {
		return "its stage failed (unreadable: " + truncate(n.StageFailureErr, maxReasonLen) + ")"
	}
	f := n.StageFailed
	return fmt.Sprintf("its stage of %s failed %d time(s) since %s: %s", f.Config, f.Attempts,
		f.Since.UTC().Format(time.RFC3339), truncate(f.Reason, maxReasonLen))
}

// truncate cuts s to about n bytes, on rune boundaries, by eliding its
// middle: a wrapped error names the step first and the cause last (a
// registry's "503 Service Unavailable"), and a person needs both.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := n / 3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (n - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "…" + s[tail:]
}
