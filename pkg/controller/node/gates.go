package node

import (
	"fmt"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// ReasonedGate is a DisruptionGate whose vetoes carry their own hold reason,
// which the pool's DisruptionHeld condition shows (e.g. MaintenanceWindow);
// a plain gate's vetoes hold as DisruptionGate.
type ReasonedGate interface {
	DisruptionGate
	HoldReason() HoldReason
}

// poolGates are the gates the pool itself sets up: its maintenance windows
// and the manual holds on the pool or its nodes. They read only the views
// and the plan's clock, so Plan stays pure.
func poolGates(pool PoolView, now time.Time) []DisruptionGate {
	gates := []DisruptionGate{holdGate{}, updateOrderGate{}}
	if spec, ok := pool.Annotations[constants.MaintenanceWindowsAnnotation]; ok {
		ws, err := ParseWindows(spec)
		gates = append(gates, windowGate{windows: ws, err: err, now: now})
	}
	return gates
}

// UpdateHold says why an update may not start on node n now by the pool's
// rules that are not about capacity or order: the circuit breaker, the
// manual holds, the maintenance windows, then the given cluster gates
// (blocking pods, alerts); "" when none holds. A controller that applies an
// update along with a disruption it makes anyway (the DPU maintenance's
// reboot of a host, the hand-over of a drained host) asks it, so that no
// path to an update goes around these holds.
func UpdateHold(pool PoolView, breaker Breaker, n NodeView, now time.Time, gates []DisruptionGate) string {
	if breaker.Open {
		return "CircuitBreaker: " + breaker.message(pool.Target)
	}
	_, why := vetoOf(append(poolGates(pool, now), gates...), pool, n)
	return why
}

// vetoOf asks each gate in turn; the first veto wins.
func vetoOf(gates []DisruptionGate, pool PoolView, n NodeView) (HoldReason, string) {
	for _, g := range gates {
		if ok, why := g.MayDisrupt(pool, n); !ok {
			reason := HoldGate
			if rg, ok := g.(ReasonedGate); ok {
				reason = rg.HoldReason()
			}
			return reason, fmt.Sprintf("%s: %s", g.Name(), why)
		}
	}
	return "", ""
}

// holdGate is the manual hold: the disruptionHold annotation on the pool
// (every node) or on one node.
type holdGate struct{}

func (holdGate) Name() string           { return "ManualHold" }
func (holdGate) HoldReason() HoldReason { return HoldManual }

func (holdGate) MayDisrupt(pool PoolView, n NodeView) (bool, string) {
	if why := pool.Annotations[constants.DisruptionHoldAnnotation]; why != "" {
		return false, fmt.Sprintf("pool %s is on hold (%s=%q); remove the annotation to resume", pool.Name, constants.DisruptionHoldAnnotation, why)
	}
	if n.Hold != "" {
		return false, fmt.Sprintf("node is on hold (%s=%q)", constants.DisruptionHoldAnnotation, n.Hold)
	}
	return true, ""
}
