package node

import (
	"fmt"
	"slices"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// computeStatus reports the pool as the MCO's node controller does: counts
// from the node annotations (getUpdatedMachines, getReadyMachines,
// getUnavailableMachines, getDegradedMachines) and the Updated, Updating,
// NodeDegraded and Degraded conditions; plus tandem's DisruptionHeld.
func computeStatus(pool PoolView, nodes []NodeView, holds []Hold, mosc string, now time.Time) mcfgv1.MachineConfigPoolStatus {
	var updated, ready, unavailable int32
	var degraded []NodeView
	for _, n := range nodes {
		if n.updated(pool.Target) {
			updated++
			if n.schedulable() {
				ready++
			}
		}
		if n.Unavailable() {
			unavailable++
		}
		if n.degraded() {
			degraded = append(degraded, n)
		}
	}
	machines := int32(len(nodes))
	prev := pool.Status
	status := mcfgv1.MachineConfigPoolStatus{
		ObservedGeneration:      pool.Generation,
		Configuration:           prev.Configuration,
		MachineCount:            machines,
		UpdatedMachineCount:     updated,
		ReadyMachineCount:       ready,
		UnavailableMachineCount: unavailable,
		DegradedMachineCount:    int32(len(degraded)),
		Conditions:              slices.Clone(prev.Conditions),
		CertExpirys:             slices.Clone(prev.CertExpirys),
		PoolSynchronizersStatus: slices.Clone(prev.PoolSynchronizersStatus),
		OSImageStream:           prev.OSImageStream,
	}
	if status.CertExpirys == nil {
		status.CertExpirys = []mcfgv1.CertExpiry{}
	}
	line := "MachineConfig " + pool.Target
	set := func(t mcfgv1.MachineConfigPoolConditionType, s corev1.ConditionStatus, reason, msg string) {
		setCondition(&status, mcfgv1.MachineConfigPoolCondition{Type: t, Status: s, Reason: reason, Message: msg,
			LastTransitionTime: metav1.NewTime(now)})
	}

	if updated == machines && ready == machines && unavailable == 0 {
		set(mcfgv1.MachineConfigPoolUpdated, corev1.ConditionTrue, "", "All nodes are updated with "+line)
		set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", "")
		status.Configuration = pool.Configuration
	} else {
		set(mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "", "")
		switch {
		case pool.Paused:
			set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", "Pool is paused; will not update to "+line)
		case mosc != "":
			set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", layeringMessage(mosc)+"; will not update to "+line)
		default:
			set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionTrue, "", "All nodes are updating to "+line)
		}
	}

	nodeDegraded := len(degraded) > 0
	var degradedMsg string
	if nodeDegraded {
		var reasons []string
		for _, n := range degraded {
			reasons = append(reasons, fmt.Sprintf("Node %s is reporting: %q", n.Name, n.Reason))
		}
		degradedMsg = strings.Join(reasons, ", ")
		set(mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue,
			fmt.Sprintf("%d nodes are reporting degraded status on sync", len(degraded)), degradedMsg)
	} else {
		set(mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionFalse, "", "")
	}
	renderDegraded := conditionTrue(prev.Conditions, mcfgv1.MachineConfigPoolRenderDegraded)
	if nodeDegraded || renderDegraded {
		set(mcfgv1.MachineConfigPoolDegraded, corev1.ConditionTrue, "", degradedMsg)
	} else {
		set(mcfgv1.MachineConfigPoolDegraded, corev1.ConditionFalse, "", "")
	}

	if reason, msg := safetyHolds(holds); reason != "" {
		set(constants.PoolDisruptionHeldCondition, corev1.ConditionTrue, string(reason), msg)
	} else {
		set(constants.PoolDisruptionHeldCondition, corev1.ConditionFalse, "", "")
	}
	return status
}

// safetyHolds summarises the safety holds: the first reason, and each
// distinct message once with the nodes it held.
func safetyHolds(holds []Hold) (HoldReason, string) {
	var first HoldReason
	var msgs []string
	nodes := map[string][]string{}
	for _, h := range holds {
		if !h.Reason.Safety() {
			continue
		}
		if first == "" {
			first = h.Reason
		}
		if _, seen := nodes[h.Message]; !seen {
			msgs = append(msgs, h.Message)
		}
		nodes[h.Message] = append(nodes[h.Message], h.Node)
	}
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		parts = append(parts, fmt.Sprintf("%s (holding %s)", m, nodeList(nodes[m])))
	}
	return first, strings.Join(parts, "; ")
}

// heldEvents announces DisruptionHeld transitions once, not on every sync.
func heldEvents(prev, next mcfgv1.MachineConfigPoolStatus) []Event {
	was := FindCondition(prev.Conditions, constants.PoolDisruptionHeldCondition)
	now := FindCondition(next.Conditions, constants.PoolDisruptionHeldCondition)
	wasHeld := was != nil && was.Status == corev1.ConditionTrue
	isHeld := now != nil && now.Status == corev1.ConditionTrue
	switch {
	case isHeld && (!wasHeld || was.Reason != now.Reason || was.Message != now.Message):
		return []Event{warning(EventDisruptionHeld, fmt.Sprintf("%s: %s", now.Reason, now.Message))}
	case wasHeld && !isHeld:
		return []Event{normal(EventDisruptionResume, "Disruption no longer held: "+was.Reason+" cleared")}
	}
	return nil
}

// setCondition is the MCO's SetMachineConfigPoolCondition: an unchanged
// condition is left as it is, and the transition time only moves when the
// status changes.
func setCondition(status *mcfgv1.MachineConfigPoolStatus, c mcfgv1.MachineConfigPoolCondition) {
	cur := FindCondition(status.Conditions, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason && cur.Message == c.Message {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	status.Conditions = slices.DeleteFunc(status.Conditions, func(x mcfgv1.MachineConfigPoolCondition) bool {
		return x.Type == c.Type
	})
	status.Conditions = append(status.Conditions, c)
}

// FindCondition is the pool condition of type t, nil when the pool has none.
func FindCondition(cs []mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

func conditionTrue(cs []mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType) bool {
	c := FindCondition(cs, t)
	return c != nil && c.Status == corev1.ConditionTrue
}
