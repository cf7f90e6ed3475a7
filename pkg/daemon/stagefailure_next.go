package daemon

import "github.com/tandem-mco/tandem/pkg/constants"

// StageFailureHarmless tells whether a failed stage leaves the node as it
// was: it runs its current OS and its workloads, nothing was started on it
// (no update record, not Working, no drain asked for), and the stage was
// the early, background one (not the stock order's pull on a drained
// node). Such a failure is reported with the stageFailure annotation and
// retried; it is not Degraded, so one cause that fails every stage (a
// registry outage, a lever the host lacks) takes no node out of service.
func StageFailureHarmless(o Observed) bool {
	n := o.Node
	if o.Record != nil || o.stock() || n.State == constants.MachineConfigDaemonStateWorking {
		return false
	}
	return n.Desired == "" || n.Desired == n.Current || n.DesiredDrain != constants.DrainRequest(n.Desired)
}

// staleStageFailure clears a reported stage failure that no longer holds:
// it names another config than x, the one the node stages now ("" when it
// stages nothing), or x's OS is ready (staged: true) and the report of it
// was lost.
func staleStageFailure(n NodeState, x string, staged bool) *Action {
	if n.StageFailure == "" || (n.StageFailure == x && !staged) {
		return nil
	}
	why := x + " is staged"
	switch {
	case x == "":
		why = "the node stages nothing"
	case n.StageFailure != x:
		why = "the node stages " + x + " now"
	}
	return &Action{Kind: ActClearStageFailure, Config: n.StageFailure, Reason: why}
}
