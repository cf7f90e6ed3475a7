package node_test

import (
	"strconv"
	"strings"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// R8, the admin's order, judged from the update-order annotations as the
// planner's cache showed them (the admin writes them, so no decider can
// know better), and from the grants as the world holds them:
//
//  R8a a node whose update-order is 0 or does not parse is never newly
//      granted, by any decider;
//  R8b while a node that needs the pool's target has an update-order that
//      does not parse, the planner grants nothing in the pool (the order
//      the admin meant is unknown);
//  R8c (worker schedules, where no etcd rule or DPU gate may hold a node)
//      a planner grant to a node of order p leaves no node of a higher
//      order ungranted that needs the target and is not held for its
//      failed stage (R-b): higher values are preferred.
//
// An unreadable value is written as the oracle reads it: anything but a
// whole number from 0 to 1,000,000 (constants.UpdateOrderAnnotation's
// documented range); the oracle's own parse, not the planner's.

// orderValues are what the admin writes; "" removes the annotation.
var orderValues = []string{"", "0", "1", "2", "5", "9", "x", "-3"}

// changeOrder lets the admin set or remove one tenant node's update-order.
func (w *world) changeOrder() {
	nodes := w.tenant.nodes
	if len(nodes) == 0 {
		return
	}
	n := nodes[w.rng.IntN(len(nodes))]
	v := orderValues[w.rng.IntN(len(orderValues))]
	if v == "" {
		delete(n.ann, constants.UpdateOrderAnnotation)
	} else {
		n.ann[constants.UpdateOrderAnnotation] = v
	}
	w.stats.orderChanges++
}

// admitOrders is the admin letting every node update once the faults stop:
// values that keep a node out or do not parse go, the rest stay.
func (w *world) admitOrders() {
	for _, n := range w.tenant.nodes {
		if v, ok := n.ann[constants.UpdateOrderAnnotation]; ok {
			if k, valid := oracleOrder(v); !valid || k == 0 {
				delete(n.ann, constants.UpdateOrderAnnotation)
			}
		}
	}
}

// oracleOrder reads an update-order as the annotation documents it: a
// whole number from 0 to 1,000,000; absent is 1.
func oracleOrder(v string) (int, bool) {
	k, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || k < 0 || k > 1_000_000 {
		return 0, false
	}
	return k, true
}

// cachedOrder is node name's update-order as the cache showed it: its
// value (1 when absent) and whether it is readable; ok is false for a node
// the cache does not show.
func (c *cluster) cachedOrder(name string) (order int, readable, ok bool) {
	ext := c.cache[name]
	if ext == nil {
		return 0, false, false
	}
	v, present := ext.Annotations[constants.UpdateOrderAnnotation]
	if !present {
		return 1, true, true
	}
	k, valid := oracleOrder(v)
	return k, valid, true
}

// judgeOrder applies R8 after one plan of the tenant pool.
func (w *world) judgeOrder(c *cluster, r node.Result, desiredBefore map[string]string) {
	target := c.pool.Target
	for _, h := range r.Holds {
		switch h.Reason {
		case node.HoldUpdateOrder:
			w.stats.orderKeptOutHolds++
		case node.HoldInvalidUpdateOrder:
			w.stats.orderInvalidHolds++
		}
	}
	// needs: nodes the cache showed and that the world had not granted the
	// target before this plan; both, so the oracle demands a hold only
	// where no view could see the node as granted.
	needs := func(name string) bool {
		ext := c.cache[name]
		return ext != nil && desiredBefore[name] != target && ext.Annotations[constants.DesiredConfigAnnotation] != target
	}
	newly := w.judgeKeptOut(c, deciderPlanner, desiredBefore)
	if len(newly) == 0 {
		return
	}
	for _, n := range c.nodes {
		if _, readable, ok := c.cachedOrder(n.name); ok && !readable && needs(n.name) {
			w.violate("R8b: %v granted %s while %s, which needs it, has the unreadable update-order %q", newly, target, n.name,
				c.cache[n.name].Annotations[constants.UpdateOrderAnnotation])
			return
		}
	}
	if w.kind != kindWorkers {
		return
	}
	for _, name := range newly {
		p, _, ok := c.cachedOrder(name)
		if !ok {
			continue
		}
		w.stats.orderJudged++
		for _, y := range c.nodes {
			q, readable, ok := c.cachedOrder(y.name)
			if !ok || !readable || q <= p || !needs(y.name) || y.ann[constants.DesiredConfigAnnotation] == target || stageFailedFor(c, y.name, target) {
				continue
			}
			w.violate("R8c: %s (update-order %d) granted %s ahead of %s (update-order %d), which needs it: %s",
				name, p, target, y.name, q, describeNode(y))
		}
	}
}

// desiredNow is each of c's nodes' desiredConfig in the world now.
func desiredNow(c *cluster) map[string]string {
	out := make(map[string]string, len(c.nodes))
	for _, n := range c.nodes {
		out[n.name] = n.ann[constants.DesiredConfigAnnotation]
	}
	return out
}

// judgeKeptOut is R8a after one decision of who: it returns the nodes
// newly granted the pool's target since desiredBefore.
func (w *world) judgeKeptOut(c *cluster, who string, desiredBefore map[string]string) []string {
	target := c.pool.Target
	var newly []string
	for _, n := range c.nodes {
		if d := n.ann[constants.DesiredConfigAnnotation]; d == target && desiredBefore[n.name] != target {
			newly = append(newly, n.name)
		}
	}
	for _, name := range newly {
		if k, readable, ok := c.cachedOrder(name); ok && (!readable || k == 0) {
			w.violate("R8a: %s granted %s to %s though its update-order was %q", who, target, name,
				c.cache[name].Annotations[constants.UpdateOrderAnnotation])
		}
	}
	return newly
}

// stageFailedFor tells whether the cache showed name's stage of cfg failed,
// or a stageFailure nobody can read (R-b holds such a node).
func stageFailedFor(c *cluster, name, cfg string) bool {
	raw, present := c.cache[name].Annotations[constants.StageFailureAnnotation]
	if !present || raw == "" {
		return false
	}
	f, ok, err := constants.ParseStageFailure(raw)
	return err != nil || (ok && f.Config == cfg)
}
