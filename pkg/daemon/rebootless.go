package daemon

import (
	"fmt"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// disruption is what the granted change costs (PlanDisruption); an unknown
// change costs a reboot.
func (o Observed) disruption() Disruption {
	if o.Diff == nil {
		return Disruption{Reboot: true, Drain: true, Why: "the change from the current config is not known"}
	}
	return PlanDisruption(*o.Diff, o.Policies, o.ForceFile)
}

// rebootlessStep is nextGranted's step for a change that needs no reboot,
// with ok=false when the change needs one (or an OS). An empty diff only
// records the new config: no Working state, no drain, no file written. A
// change the policies apply in place goes Working, drains only when they
// say so, then writes the files with a record that carries the post-write
// actions (nextRebootlessRecord continues from there).
func rebootlessStep(o Observed, x string, osChange bool) (Action, bool) {
	if osChange || o.Diff == nil {
		return Action{}, false
	}
	dp := o.disruption()
	if dp.Reboot {
		return Action{}, false
	}
	n := o.Node
	if o.Diff.Empty() {
		return Action{Kind: ActSetDone, Config: x, Reason: "no change to apply from " + orNone(n.Current)}, true
	}
	switch {
	case n.State != constants.MachineConfigDaemonStateWorking && dp.Drain && n.DesiredDrain != constants.DrainRequest(x) && !o.stock():
		return Action{Kind: ActRequestDrain, Config: x, From: n.Current, Reason: dp.Why, Working: true}, true
	case n.State != constants.MachineConfigDaemonStateWorking:
		return Action{Kind: ActSetWorking, Config: x, From: n.Current, Reason: dp.Why}, true
	case dp.Drain && n.DesiredDrain != constants.DrainRequest(x):
		return Action{Kind: ActRequestDrain, Config: x, Reason: dp.Why}, true
	case dp.Drain && n.LastAppliedDrain != constants.DrainRequest(x):
		return wait("waiting for the drain controller to drain the node (%s)", constants.DrainRequest(x)), true
	}
	return Action{Kind: ActWriteFiles, Config: x, From: n.Current, Rebootless: true, PostActions: dp.Actions, Reason: dp.Why}, true
}

// nextRebootlessRecord continues a rebootless update: an interrupted write
// rolls back; then each post-write action in order (a crash repeats the one
// it interrupted: reloads and restarts are idempotent); then the files are
// verified and the update completes like any other (uncordon handshake,
// Done). A reboot on the way changes nothing: the files are in place and
// the reboot did what a reload would.
func nextRebootlessRecord(o Observed, r *Record) Action {
	switch {
	case r.Phase == PhaseWriting:
		return rollback("the daemon stopped while writing files")
	case r.Phase == PhaseVerified:
		return nextComplete(o, r)
	case r.ActionsDone < len(r.PostActions):
		return Action{Kind: ActPostConfigAction, Config: r.Config, Index: r.ActionsDone, PostActions: r.PostActions,
			Reason: describeAction(r.PostActions[r.ActionsDone])}
	}
	return Action{Kind: ActVerify, Config: r.Config}
}

// adoptOnDiskConfig honours /etc/machine-config-daemon/currentconfig as the
// MCO does: when no update is recorded and the file names the desiredConfig
// rather than the currentConfig annotation (a stock MCD rebooted into it and
// was replaced before it could say so), the disk is the truth once it is
// checked against that config, and the update completes without touching it.
// A mismatch is Degraded ("unexpected on-disk state"), unless the force
// file asks to skip the check.
func adoptOnDiskConfig(o Observed) (Action, bool) {
	if o.Record != nil || o.OnDiskConfig == "" || o.OnDiskConfig == o.Node.Current || o.OnDiskConfig != o.Node.Desired {
		// Only a disk that holds what the node is told to run is adopted; an
		// on-disk config that is neither current nor desired is left to the
		// on-disk validation against currentConfig, which reports the drift.
		return Action{}, false
	}
	if o.OnDiskConfigInvalid != "" && !o.ForceFile {
		return *report(o.Node, constants.MachineConfigDaemonStateDegraded,
			fmt.Sprintf("unexpected on-disk state validating against %s: %s", o.OnDiskConfig, o.OnDiskConfigInvalid)), true
	}
	return Action{Kind: ActAdoptOnDiskConfig, Config: o.OnDiskConfig,
		Reason: fmt.Sprintf("on-disk currentconfig %s overrides currentConfig %s", o.OnDiskConfig, orNone(o.Node.Current))}, true
}
