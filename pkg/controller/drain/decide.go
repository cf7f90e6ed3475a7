// Package drain is tandem's drain controller. The daemon asks for a drain or
// an uncordon through the node annotation desiredDrain ("drain-<config>" /
// "uncordon-<config>"); this controller carries it out and acknowledges by
// copying the value to lastAppliedDrain, as the MCO's drain controller does.
//
// A drain cordons the node and evicts its pods with k8s.io/kubectl/pkg/drain,
// so PodDisruptionBudgets hold it back and DaemonSet pods stay. An uncordon
// makes the node schedulable again, except when a person had cordoned it
// before tandem drained it: that cordon is recorded on the node
// (constants.CordonedByAdminAnnotation) and survives the update.
//
// What to do is decided by Decide, a pure function of the node; the rest of
// the package carries the decision out.
package drain

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Action is what the controller does for a node.
type Action string

const (
	// ActionNone: nothing asked, or the request is already applied.
	ActionNone Action = "None"
	// ActionDrain: cordon, then evict the node's pods.
	ActionDrain Action = "Drain"
	// ActionUncordon: end tandem's drain cycle, making the node schedulable
	// unless the cordon is not tandem's to lift.
	ActionUncordon Action = "Uncordon"
	// ActionInvalid: desiredDrain is neither drain-<config> nor uncordon-<config>.
	ActionInvalid Action = "Invalid"
)

// Values of constants.CordonedByAdminAnnotation. Its presence marks a drain
// cycle of tandem's (from the drain until the uncordon); its value says
// whether the node was already cordoned by someone else when it began.
const (
	CordonedBeforeDrain = "true"
	CordonedByTandem    = "false"
)

// Decision is what to do for one node.
type Decision struct {
	Action Action
	// Request is the desiredDrain value being served; lastAppliedDrain is
	// set to it once done.
	Request string
	// RecordCordon (drain only): the value to write to
	// CordonedByAdminAnnotation before cordoning; "" when already recorded.
	RecordCordon string
	// MakeSchedulable (uncordon only): lift the cordon. False when the
	// cordon was a person's, placed before tandem's drain or outside any drain cycle.
	MakeSchedulable bool
	// ClearRecord (uncordon only): remove CordonedByAdminAnnotation.
	ClearRecord bool
	// Why explains the decision in logs and events.
	Why string
}

// Decide returns what to do for node, from its annotations and
// spec.unschedulable only, so that a restarted controller decides the same.
func Decide(node *corev1.Node) Decision {
	ann := node.Annotations
	desired := ann[constants.DesiredDrainAnnotation]
	last := ann[constants.LastAppliedDrainAnnotation]
	record, recorded := ann[constants.CordonedByAdminAnnotation]
	// A drain cycle is under way if tandem recorded one, or if the last
	// applied request was a drain (served by an MCO before tandem took over).
	inCycle := recorded || strings.HasPrefix(last, constants.DrainerStateDrain+"-")

	switch {
	case desired == "":
		return Decision{Action: ActionNone, Why: "no drain requested"}
	case desired == last:
		return Decision{Action: ActionNone, Request: desired, Why: "request already applied"}
	}

	verb, config, ok := strings.Cut(desired, "-")
	if !ok || config == "" {
		return Decision{Action: ActionInvalid, Request: desired, Why: "desiredDrain is not drain-<config> or uncordon-<config>"}
	}
	switch verb {
	case constants.DrainerStateDrain:
		d := Decision{Action: ActionDrain, Request: desired}
		switch {
		case recorded:
			d.Why = "drain cycle already recorded"
		case inCycle:
			d.RecordCordon, d.Why = CordonedByTandem, "continuing a drain cycle begun before the record existed"
		case node.Spec.Unschedulable:
			d.RecordCordon, d.Why = CordonedBeforeDrain, "node was cordoned before the drain; the uncordon will keep that cordon"
		default:
			d.RecordCordon, d.Why = CordonedByTandem, "node is schedulable; tandem cordons it"
		}
		return d
	case constants.DrainerStateUncordon:
		d := Decision{Action: ActionUncordon, Request: desired, ClearRecord: recorded}
		switch {
		case recorded && record == CordonedBeforeDrain:
			d.Why = "node was cordoned before the drain; keeping that cordon"
		case inCycle:
			d.MakeSchedulable, d.Why = true, "ending tandem's drain cycle"
		default:
			d.Why = "no drain cycle to end; any cordon is someone else's"
		}
		return d
	}
	return Decision{Action: ActionInvalid, Request: desired, Why: "unknown drain verb " + verb}
}
