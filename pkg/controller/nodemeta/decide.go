// Package nodemeta keeps the node metadata the MCO's node controller keeps
// besides the rollout itself: the UpdateInProgress:PreferNoSchedule taint on
// the nodes of a pool that still have to move to the pool's config, and the
// controlPlaneTopology annotation from the ControllerConfig
// (openshift/machine-config-operator pkg/controller/node/node_controller.go
// syncMachineConfigPool, setClusterConfigAnnotation, setUpdateInProgressTaint
// and removeUpdateInProgressTaint; pkg/constants NodeUpdateInProgressTaint;
// release-4.20 at afed09939d80). Decide is pure; the controller applies it.
// The node controller's stageConfig and desiredConfig writes carry the
// taint when they can (FoldTaint), so this controller waits DefaultDelay
// after a change and usually finds nothing left to write.
package nodemeta

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// UpdateInProgressTaint is the MCO's NodeUpdateInProgressTaint: the
// scheduler prefers nodes without it, so pods evicted from a node being
// updated are less likely to land on another node that will be.
var UpdateInProgressTaint = corev1.Taint{Key: "UpdateInProgress", Effect: corev1.TaintEffectPreferNoSchedule}

// Change is what a node needs: taints to set (nil: keep) and annotations.
type Change struct {
	Taints      []corev1.Taint
	SetTaints   bool
	Annotations map[string]string
}

// Empty tells whether the node needs nothing.
func (c Change) Empty() bool { return !c.SetTaints && len(c.Annotations) == 0 }

// Decide returns what node, a member of pool, needs. The taint follows the
// MCO's rule: it is present exactly while the node's desiredConfig is not
// the pool's spec.configuration (the node has yet to be granted the pool's
// config). A paused pool is left alone (the MCO's sync returns before both
// for a paused pool), a pool without a rendered config gets no taint. The
// annotation is set when topology is known ("" without a ControllerConfig)
// and differs.
func Decide(node *corev1.Node, pool *mcfgv1.MachineConfigPool, topology string) Change {
	var c Change
	if pool.Spec.Paused {
		return c
	}
	if topology != "" && node.Annotations[constants.ControlPlaneTopologyAnnotation] != topology {
		c.Annotations = map[string]string{constants.ControlPlaneTopologyAnnotation: topology}
	}
	target := pool.Spec.Configuration.Name
	if target == "" {
		return c
	}
	want := node.Annotations[constants.DesiredConfigAnnotation] != target
	has := false
	var others []corev1.Taint
	for _, t := range node.Spec.Taints {
		if t.MatchTaint(&UpdateInProgressTaint) {
			has = true
			continue
		}
		others = append(others, t)
	}
	switch {
	case want && !has:
		c.Taints, c.SetTaints = append(append([]corev1.Taint{}, node.Spec.Taints...), UpdateInProgressTaint), true
	case !want && has:
		c.Taints, c.SetTaints = others, true
	}
	return c
}

// Topology is the controlPlaneTopology the MCO copies to nodes from the
// ControllerConfig (spec.infra.status.controlPlaneTopology), "" without one.
func Topology(cc *mcfgv1.ControllerConfig) string {
	if cc == nil || cc.Spec.Infra == nil {
		return ""
	}
	return string(cc.Spec.Infra.Status.ControlPlaneTopology)
}
