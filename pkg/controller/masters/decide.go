// Package masters keeps the master nodes' scheduling as the cluster
// Scheduler config (config.openshift.io/v1 Scheduler "cluster",
// spec.mastersSchedulable) asks, and their control-plane label, as the
// MCO's node controller does (openshift/machine-config-operator
// pkg/controller/node/node_controller.go reconcileMaster,
// makeMasterNodeSchedulable, makeMasterNodeUnSchedulable,
// updateMasterNodeControlPlaneLabel, checkMasterNodesOnAdd/OnUpdate/OnDelete,
// getMastersSchedulable; release-4.21 at
// db84d8368ef78e50f3bc0961dcf2b27a7975e053). Decide is pure; the controller
// applies it.
//
// The MCO's rule, as read there:
//   - a master is a node with the node-role.kubernetes.io/master label (the
//     key; its value is not looked at on node events);
//   - every master gets node-role.kubernetes.io/control-plane="" when it has
//     no such label, whatever the Scheduler says;
//   - mastersSchedulable true: the node-role.kubernetes.io/worker="" label is
//     added if absent, and every taint with key node-role.kubernetes.io/master
//     and effect NoSchedule is removed;
//   - mastersSchedulable false: the worker label is removed, and the taint
//     node-role.kubernetes.io/master:NoSchedule (no value) is added unless one
//     with that key and effect is there;
//   - no Scheduler "cluster": the scheduling is left as it is (the MCO logs
//     an error and does nothing), except right after the Scheduler is
//     deleted, when the masters are made unschedulable ("to restore default
//     behaviour").
//
// The MCO reconciles on master Node add and update and on the Scheduler's
// add, spec update and delete; tandem reconciles the same objects level by
// level, keyed by node.
package masters

import (
	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The labels and the Scheduler of the MCO's rule (pkg/controller/common
// MasterLabel; node_controller.go WorkerLabel, ControlPlaneLabel,
// schedulerCRName).
const (
	MasterLabel       = constants.NodeRoleLabelPrefix + constants.MasterPool
	WorkerLabel       = constants.NodeRoleLabelPrefix + constants.WorkerPool
	ControlPlaneLabel = constants.NodeRoleLabelPrefix + "control-plane"
	SchedulerName     = "cluster"
)

// MasterTaint keeps workloads off unschedulable masters.
var MasterTaint = corev1.Taint{Key: MasterLabel, Effect: corev1.TaintEffectNoSchedule}

// Scheduling is what the cluster asks of the masters.
type Scheduling int

const (
	// Leave: no Scheduler "cluster"; only the control-plane label is kept.
	Leave Scheduling = iota
	// Schedulable: mastersSchedulable is true.
	Schedulable
	// Unschedulable: mastersSchedulable is false, or the Scheduler was just
	// deleted.
	Unschedulable
)

// SchedulingOf is what the Scheduler says; nil (none named "cluster") leaves
// the masters as they are.
func SchedulingOf(s *configv1.Scheduler) Scheduling {
	switch {
	case s == nil:
		return Leave
	case s.Spec.MastersSchedulable:
		return Schedulable
	default:
		return Unschedulable
	}
}

// Change is what a node needs: its whole new label map and taint list, each
// only when it changes.
type Change struct {
	Labels    map[string]string
	SetLabels bool
	Taints    []corev1.Taint
	SetTaints bool
}

// Empty tells whether the node needs nothing.
func (c Change) Empty() bool { return !c.SetLabels && !c.SetTaints }

// IsMaster tells whether the rule applies to the node.
func IsMaster(n *corev1.Node) bool {
	_, ok := n.Labels[MasterLabel]
	return ok
}

// Decide returns what node n needs under s; nothing for a node that is not
// a master.
func Decide(n *corev1.Node, s Scheduling) Change {
	var c Change
	if !IsMaster(n) {
		return c
	}
	labels := make(map[string]string, len(n.Labels)+2)
	for k, v := range n.Labels {
		labels[k] = v
	}
	if _, ok := labels[ControlPlaneLabel]; !ok {
		labels[ControlPlaneLabel] = ""
		c.SetLabels = true
	}
	_, hasWorker := labels[WorkerLabel]
	hasTaint := false
	var others []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Key == MasterTaint.Key && t.Effect == MasterTaint.Effect {
			hasTaint = true
			continue
		}
		others = append(others, t)
	}
	switch s {
	case Schedulable:
		if !hasWorker {
			labels[WorkerLabel] = ""
			c.SetLabels = true
		}
		if hasTaint {
			c.Taints, c.SetTaints = others, true
		}
	case Unschedulable:
		if hasWorker {
			delete(labels, WorkerLabel)
			c.SetLabels = true
		}
		if !hasTaint {
			c.Taints, c.SetTaints = append(append([]corev1.Taint{}, n.Spec.Taints...), MasterTaint), true
		}
	}
	if c.SetLabels {
		c.Labels = labels
	}
	return c
}
