package node

import (
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A pool a MachineOSConfig selects is on-cluster layered: the MCO builds
// an image for it and rolls that image out (desiredImage), which tandem does
// not do (pkg/controller/layering). The MCO's node controller writes no
// desiredConfig to such a pool's nodes until the image is built
// (syncMachineConfigPool, release-4.21 db84d8368ef7); tandem, which never
// builds one, holds the pool as long as the MachineOSConfig exists and
// says why, rather than rolling out the config without the image.

// LayeringRefusedReason is the reason of the OnClusterLayeringRefused
// condition while it is True.
const LayeringRefusedReason = "MachineOSConfigSelectsPool"

// layeringMessage says why the pool is refused.
func layeringMessage(mosc string) string {
	return fmt.Sprintf("MachineOSConfig %s selects this pool for on-cluster image layering, which tandem does not roll out", mosc)
}

// refuseLayered holds every node that would move to the target, and
// withdraws stageConfig from nodes not granted yet: a staged OS the pool
// will not get is not kept locked on the node. A node granted before the
// MachineOSConfig appeared finishes on its own, as the MCO's would.
func refuseLayered(r *Result, pool PoolView, nodes []NodeView, mosc string) {
	msg := layeringMessage(mosc)
	for _, n := range nodes {
		if n.Desired == pool.Target {
			continue
		}
		if n.Current != pool.Target {
			r.Holds = append(r.Holds, Hold{Node: n.Name, Reason: HoldOnClusterLayering, Message: msg})
		}
		if n.Stage != "" {
			r.Unstage = append(r.Unstage, n.Name)
		}
	}
}

// setLayeringRefused reports the refusal in the OnClusterLayeringRefused
// condition and announces its transitions (and a change of the
// MachineOSConfig it names) with an event.
func setLayeringRefused(status *mcfgv1.MachineConfigPoolStatus, pool PoolView, mosc string, now time.Time) []Event {
	c := mcfgv1.MachineConfigPoolCondition{Type: constants.PoolOnClusterLayeringRefusedCondition, Status: corev1.ConditionFalse,
		LastTransitionTime: metav1.NewTime(now)}
	if mosc != "" {
		c.Status, c.Reason = corev1.ConditionTrue, LayeringRefusedReason
		c.Message = layeringMessage(mosc) + "; no node of the pool is staged or granted a new MachineConfig while it exists"
	}
	setCondition(status, c)
	was := FindCondition(pool.Status.Conditions, constants.PoolOnClusterLayeringRefusedCondition)
	wasTrue := was != nil && was.Status == corev1.ConditionTrue
	switch {
	case mosc != "" && (!wasTrue || was.Message != c.Message):
		return []Event{warning(EventOnClusterLayeringRefused, c.Message)}
	case mosc == "" && wasTrue:
		return []Event{normal(EventOnClusterLayeringCleared, "No MachineOSConfig selects the pool any more; its rollout resumes")}
	}
	return nil
}
