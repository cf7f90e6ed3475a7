package node

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The admin's order (constants.UpdateOrderAnnotation).
const (
	// DefaultUpdateOrder is a node's order without the annotation: above
	// 0 (skip), so an admin moves a node ahead by raising it and behind
	// every unannotated node only by raising those.
	DefaultUpdateOrder = 1
	// maxUpdateOrder bounds the value, so a typo of many digits is an
	// error rather than a silent "first".
	maxUpdateOrder = 1_000_000

	PoolOrderOldestFirst = "OldestFirst"
	PoolOrderNewestFirst = "NewestFirst"
)

// ParseNodeUpdateOrder reads a node's update-order annotation: a whole
// number from 0 to 1,000,000; absent is DefaultUpdateOrder, and a present
// but empty value is an error like any other that does not parse.
func ParseNodeUpdateOrder(raw string, present bool) (int, error) {
	if !present {
		return DefaultUpdateOrder, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || v < 0 || v > maxUpdateOrder {
		return DefaultUpdateOrder, fmt.Errorf("%s=%q is not a whole number from 0 (never) to %d (first)",
			constants.UpdateOrderAnnotation, raw, maxUpdateOrder)
	}
	return v, nil
}

// ParsePoolUpdateOrder reads a pool's update-order annotation: OldestFirst
// (the MCO's order, the default) or NewestFirst.
func ParsePoolUpdateOrder(raw string, present bool) (newestFirst bool, err error) {
	if !present {
		return false, nil
	}
	switch strings.TrimSpace(raw) {
	case PoolOrderOldestFirst:
		return false, nil
	case PoolOrderNewestFirst:
		return true, nil
	}
	return false, fmt.Errorf("%s=%q on the pool is neither %s nor %s",
		constants.UpdateOrderAnnotation, raw, PoolOrderOldestFirst, PoolOrderNewestFirst)
}

// invalidUpdateOrder is the first unreadable order among the pool and the
// nodes that still need its target, nil if none. One unreadable value
// holds the whole pool, as an invalid maxUnavailable does: the order the
// admin meant among all its nodes is unknown.
func invalidUpdateOrder(pool PoolView, nodes []NodeView) error {
	if pool.UpdateOrderErr != "" {
		return errors.New(pool.UpdateOrderErr)
	}
	for _, n := range nodes {
		if n.UpdateOrderErr != "" && n.Desired != pool.Target {
			return fmt.Errorf("node %s: %s", n.Name, n.UpdateOrderErr)
		}
	}
	return nil
}

// updateOrderGate keeps a node whose update-order is 0 out of updates, and
// a node whose value does not parse, on every path to an update
// (UpdateHold asks it too: the DPU maintenance's coalesced update).
type updateOrderGate struct{}

func (updateOrderGate) Name() string { return "UpdateOrder" }

// HoldReason is the gate's reason; an unreadable value vetoes with the
// same reason, its message says which.
func (updateOrderGate) HoldReason() HoldReason { return HoldUpdateOrder }

func (updateOrderGate) MayDisrupt(pool PoolView, n NodeView) (bool, string) {
	switch {
	case n.UpdateOrderErr != "":
		return false, n.UpdateOrderErr
	case n.keptOut():
		return false, fmt.Sprintf("node is kept out of updates (%s=0); remove the annotation or raise it to update", constants.UpdateOrderAnnotation)
	}
	return true, ""
}
