package daemon

import (
	"fmt"

	opv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// NodeEvent is an event the daemon records about its Node.
type NodeEvent struct {
	// Namespace is where it goes: the MCO's for what its node writer
	// records, default for OSUpdateStaged (the MCO writes that one itself,
	// unnamespaced, so it survives the daemon's exit).
	Namespace, Type, Reason, Message string
}

// The MCO daemon's node events tandem records, with the MCO's reasons and
// messages (pkg/daemon/update.go, drain.go and daemon.go, release-4.21),
// so what reads them — `oc get events`, openshift/origin's node state
// analyzer and its "Nodes should reach OSUpdateStaged in a timely fashion"
// test, which times OSUpdateStarted to OSUpdateStaged — reads tandem's
// update as the MCO's. Where the orders differ, the event goes with the
// step tandem takes: the OS is staged ahead, before the drain.

// EventsBefore are the events recorded as a starts.
func EventsBefore(a Action, node string) []NodeEvent {
	mco := func(reason, msg string) NodeEvent {
		return NodeEvent{constants.MCONamespace, corev1.EventTypeNormal, reason, msg}
	}
	switch a.Kind {
	case ActStage:
		return []NodeEvent{mco("InClusterUpgrade", "Updating from oscontainer "+a.Image), mco("OSUpdateStarted", "Upgrading OS")}
	case ActRequestDrain:
		return []NodeEvent{mco("Cordon", "Cordoned node to apply update"), mco("Drain", "Draining node to update config.")}
	case ActFinalize, ActReboot:
		// Finalizing the staged deployment is the reboot into the config.
		return []NodeEvent{mco("Reboot", "Node will reboot into config "+a.Config)}
	case ActSetDone:
		return []NodeEvent{mco("NodeDone", fmt.Sprintf("Setting node %s, currentConfig %s to Done", node, a.Config))}
	}
	return nil
}

// EventsAfter are the events recorded once a is done.
func EventsAfter(a Action) []NodeEvent {
	mco := func(reason, msg string) NodeEvent {
		return NodeEvent{constants.MCONamespace, corev1.EventTypeNormal, reason, msg}
	}
	switch a.Kind {
	case ActStage:
		return []NodeEvent{{metav1.NamespaceDefault, corev1.EventTypeNormal, "OSUpdateStaged", "Changes to OS staged"}}
	case ActRequestUncordon:
		return []NodeEvent{mco("Uncordon", fmt.Sprintf("Update completed for config %s and node has been uncordoned", a.Config))}
	case ActPostConfigAction:
		if a.Index < 0 || a.Index >= len(a.PostActions) {
			return nil
		}
		switch p := a.PostActions[a.Index]; p.Type {
		case opv1.NoneStatusAction:
			return []NodeEvent{mco("SkipReboot", "Config changes do not require reboot.")}
		case opv1.ReloadStatusAction:
			if p.Reload != nil {
				return []NodeEvent{mco("ServiceReload", fmt.Sprintf("Config changes do not require reboot. Service %s was reloaded.", p.Reload.ServiceName))}
			}
		case opv1.RestartStatusAction:
			if p.Restart != nil {
				return []NodeEvent{mco("ServiceRestart", fmt.Sprintf("Config changes do not require reboot. Service %s was restarted.", p.Restart.ServiceName))}
			}
		}
	case ActReportDegraded:
		return []NodeEvent{{constants.MCONamespace, corev1.EventTypeWarning, "FailedToReconcile", a.Reason}}
	}
	return nil
}
