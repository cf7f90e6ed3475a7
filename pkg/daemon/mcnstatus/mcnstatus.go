// Package mcnstatus computes the status of a node's MachineConfigNode the
// way the MCO's readers of it expect (openshift/machine-config-operator
// release-4.21 at db84d8368ef7):
//
//   - the node controller's calculateStatus (pkg/controller/node/status.go)
//     walks each MachineConfigNode's conditions in order and stops at the
//     first NodeDegraded=True (the node counts degraded, with the
//     condition's message in the pool's NodeDegraded message) or, with the
//     ImageModeStatusReporting gate, at the first Updated=True whose
//     status.configVersion.desired is the pool's spec.configuration and
//     whose status.configImage.desiredImage is empty (the node counts
//     updated: pkg/controller/common/helpers.go IsMachineUpdatedMCN). A
//     MachineConfigNode without conditions ends the walk for every node
//     after it;
//   - its MachineConfigNode event handler (node_controller.go
//     updateMachineConfigNode) re-syncs the pool when spec.pool,
//     spec.configVersion.desired or the conditions change.
//
// The MCO's writer (pkg/upgrademonitor/upgrade_monitor.go
// generateAndApplyMachineConfigNodes) keeps two rules those readers rely on:
// every condition type is present once the first is written, and Updated is
// True only while nothing else happened since the daemon found the node on
// its desired config: any other condition written turns it False, and
// status.configVersion.desired is set from the same node object in the same
// write. tandem batches conditions (pkg/daemon report.go), so Next derives
// Updated from the node's annotations read for the write itself: True
// exactly while currentConfig == desiredConfig, state Done and NodeDegraded
// not True. Updated and configVersion then always describe one moment.
package mcnstatus

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// NotYetSet is the MCO's placeholder for a desired config not known yet
// (pkg/upgrademonitor NotYetSet).
const NotYetSet = "not-yet-set"

// Types are the conditions of every MachineConfigNode, in the MCO's order
// (upgrade_monitor.go allConditionTypes; the PinnedImageSets ones are the
// pinned image set manager's, which tandem does not run).
var Types = []mcfgv1.StateProgress{
	mcfgv1.MachineConfigNodeUpdatePrepared,
	mcfgv1.MachineConfigNodeUpdateExecuted,
	mcfgv1.MachineConfigNodeUpdatePostActionComplete,
	mcfgv1.MachineConfigNodeUpdateComplete,
	mcfgv1.MachineConfigNodeResumed,
	mcfgv1.MachineConfigNodeUpdateDrained,
	mcfgv1.MachineConfigNodeUpdateFilesAndOS,
	mcfgv1.MachineConfigNodeImagePulledFromRegistry,
	mcfgv1.MachineConfigNodeUpdateCordoned,
	mcfgv1.MachineConfigNodeUpdateRebooted,
	mcfgv1.MachineConfigNodeUpdated,
	mcfgv1.MachineConfigNodeUpdateUncordoned,
	mcfgv1.MachineConfigNodeNodeDegraded,
}

// progress are the conditions of an update in progress: they turn False
// when Updated turns True (the MCO resets every other condition then; tandem
// keeps ImagePulledFromRegistry, which reports a stage made ahead of the
// update, and NodeDegraded, which the daemon sets itself).
var progress = map[mcfgv1.StateProgress]bool{
	mcfgv1.MachineConfigNodeUpdatePrepared:           true,
	mcfgv1.MachineConfigNodeUpdateExecuted:           true,
	mcfgv1.MachineConfigNodeUpdatePostActionComplete: true,
	mcfgv1.MachineConfigNodeUpdateComplete:           true,
	mcfgv1.MachineConfigNodeResumed:                  true,
	mcfgv1.MachineConfigNodeUpdateDrained:            true,
	mcfgv1.MachineConfigNodeUpdateFilesAndOS:         true,
	mcfgv1.MachineConfigNodeUpdateCordoned:           true,
	mcfgv1.MachineConfigNodeUpdateRebooted:           true,
	mcfgv1.MachineConfigNodeUpdateUncordoned:         true,
}

// IsProgress tells whether a condition type is reset to False when Updated
// turns True.
func IsProgress(t string) bool { return progress[mcfgv1.StateProgress(t)] }

// Node is what the status is derived from: the node's annotations as read
// for the write.
type Node struct {
	Current, Desired, State string
}

// NodeOf reads Node from a node's annotations.
func NodeOf(n *corev1.Node) Node {
	a := n.Annotations
	return Node{Current: a[constants.CurrentConfigAnnotation], Desired: a[constants.DesiredConfigAnnotation], State: a[constants.StateAnnotation]}
}

// DesiredOrNotYetSet is the desired config as the MachineConfigNode names it.
func (n Node) DesiredOrNotYetSet() string {
	if n.Desired == "" {
		return NotYetSet
	}
	return n.Desired
}

// updated is the truth Updated reports: the node runs its desired config
// and its daemon says Done (the MCO's daemon writes Updated=True when its
// sync finds nothing to update, daemon.go syncNode).
func (n Node) updated() bool {
	return n.Current != "" && n.Current == n.Desired && n.State == constants.MachineConfigDaemonStateDone
}

// Next returns the status after queued (the daemon's conditions since the
// last write, oldest first) for a node in state n, at now. It never
// returns a status without every condition of Types. Conditions whose
// status does not change keep their transition time.
func Next(prev mcfgv1.MachineConfigNodeStatus, generation int64, n Node, queued []metav1.Condition, now metav1.Time) mcfgv1.MachineConfigNodeStatus {
	st := *prev.DeepCopy()
	for _, t := range Types {
		if meta.FindStatusCondition(st.Conditions, string(t)) == nil {
			st.Conditions = append(st.Conditions, metav1.Condition{
				Type: string(t), Status: metav1.ConditionFalse, Reason: "NotYetOccurred",
				Message: fmt.Sprintf("This node has not yet entered the %s phase", t), LastTransitionTime: now,
			})
		}
	}
	var updatedMsg *metav1.Condition
	for _, c := range queued {
		if c.Type == string(mcfgv1.MachineConfigNodeUpdated) {
			updatedMsg = &c
			continue
		}
		c.LastTransitionTime = now
		meta.SetStatusCondition(&st.Conditions, c)
	}
	setUpdated(&st, n, updatedMsg, now)
	if st.ConfigVersion == nil {
		st.ConfigVersion = &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{}
	}
	st.ConfigVersion.Desired = n.DesiredOrNotYetSet()
	if n.Current != "" {
		// The MCO keeps the last current config while the annotation is absent.
		st.ConfigVersion.Current = n.Current
	}
	if generation > 0 {
		st.ObservedGeneration = generation
	}
	return st
}

// setUpdated sets Updated from n (see the package comment); queued, when the
// daemon queued an Updated condition of the same status, gives its message.
func setUpdated(st *mcfgv1.MachineConfigNodeStatus, n Node, queued *metav1.Condition, now metav1.Time) {
	want := metav1.ConditionFalse
	if n.updated() && !meta.IsStatusConditionTrue(st.Conditions, string(mcfgv1.MachineConfigNodeNodeDegraded)) {
		want = metav1.ConditionTrue
	}
	cur := meta.FindStatusCondition(st.Conditions, string(mcfgv1.MachineConfigNodeUpdated))
	wasTrue := cur.Status == metav1.ConditionTrue
	next := metav1.Condition{Type: cur.Type, Status: want, Reason: string(mcfgv1.MachineConfigNodeUpdated), LastTransitionTime: now}
	switch {
	case queued != nil && queued.Status == want:
		next.Reason, next.Message = queued.Reason, queued.Message
	case want == cur.Status && cur.Reason != "NotYetOccurred":
		return // nothing new to say
	case want == metav1.ConditionTrue:
		next.Message = fmt.Sprintf("Node Machine Config updated to %s", n.Current)
	default:
		next.Message = fmt.Sprintf("Node is not updated: currentConfig %s, desiredConfig %s, state %s",
			orNone(n.Current), orNone(n.Desired), orNone(n.State))
	}
	meta.SetStatusCondition(&st.Conditions, next)
	if want != metav1.ConditionTrue || wasTrue {
		return
	}
	// As the MCO: once Updated, the progress conditions of the finished
	// update turn False and say what they did.
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if IsProgress(c.Type) && c.Status != metav1.ConditionFalse {
			c.Status, c.LastTransitionTime = metav1.ConditionFalse, now
			c.Message = fmt.Sprintf("Action during update to %s: %s", n.DesiredOrNotYetSet(), c.Message)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
