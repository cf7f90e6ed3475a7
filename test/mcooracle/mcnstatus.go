package mcooracle

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PoolCounts is what the MCO's node controller takes from a pool's
// MachineConfigNodes.
type PoolCounts struct {
	// Updated and Degraded are the nodes counted updated and degraded from
	// their MachineConfigNode.
	Updated, Degraded []string
	// DegradedReasons are the messages the pool's NodeDegraded condition
	// carries from the MachineConfigNodes.
	DegradedReasons []string
	// StoppedAt names the MachineConfigNode at which the walk stopped for
	// every node after it ("" when it read them all), and Why.
	StoppedAt, Why string
}

// MCNPoolCounts is the MachineConfigNode part of the MCO's calculateStatus
// for a non-layered pool (openshift/machine-config-operator release-4.21 at
// db84d8368ef7, pkg/controller/node/status.go calculateStatus, the loop over
// mcns; pkg/controller/common/helpers.go IsMachineUpdatedMCN with
// layered=false). imageModeReporting is the ImageModeStatusReporting
// feature gate (TechPreview in 4.21): without it the MCO counts updated
// machines from the nodes, and only the degraded reasons come from here.
// mcns are in the order the MCO fetches them: one per node of the pool, in
// the node lister's order (status.go syncStatusOnly).
func MCNPoolCounts(mcns []*mcfgv1.MachineConfigNode, pool *mcfgv1.MachineConfigPool, nodes []*corev1.Node, imageModeReporting bool) PoolCounts {
	var pc PoolCounts
	for _, mcn := range mcns {
		if len(mcn.Status.Conditions) == 0 {
			pc.StoppedAt, pc.Why = mcn.Name, "no conditions"
			break // the MCO's `break`: later MachineConfigNodes are not read
		}
		var ourNode *corev1.Node
		for _, n := range nodes {
			if mcn.Name == n.Name {
				ourNode = n
				break
			}
		}
		if ourNode == nil {
			pc.StoppedAt, pc.Why = mcn.Name, "no node of that name in the pool"
			break
		}
		for _, c := range mcn.Status.Conditions {
			if mcfgv1.StateProgress(c.Type) == mcfgv1.MachineConfigNodeNodeDegraded && c.Status == metav1.ConditionTrue {
				pc.Degraded = append(pc.Degraded, ourNode.Name)
				pc.DegradedReasons = append(pc.DegradedReasons, fmt.Sprintf("Node %s is reporting: %q", ourNode.Name, c.Message))
				break
			}
			if imageModeReporting && mcfgv1.StateProgress(c.Type) == mcfgv1.MachineConfigNodeUpdated &&
				c.Status == metav1.ConditionTrue && isMachineUpdatedMCN(mcn, pool) {
				pc.Updated = append(pc.Updated, ourNode.Name)
				break
			}
		}
	}
	return pc
}

// isMachineUpdatedMCN is IsMachineUpdatedMCN for a non-layered pool.
func isMachineUpdatedMCN(mcn *mcfgv1.MachineConfigNode, pool *mcfgv1.MachineConfigPool) bool {
	if mcn == nil || pool == nil {
		return false
	}
	desired := ""
	if mcn.Status.ConfigVersion != nil {
		desired = mcn.Status.ConfigVersion.Desired
	}
	return desired == pool.Spec.Configuration.Name && mcn.Status.ConfigImage.DesiredImage == ""
}
