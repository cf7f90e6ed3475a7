package node

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// EtcdOrdering says whether the controller orders the control plane's
// disruptions by etcd leadership (followers first, the leader last after
// moving leadership), and from which configuration; when it does not, why.
// The control-plane pool's EtcdLeaderOrdering condition shows it.
type EtcdOrdering struct {
	On bool
	// Reason is a CamelCase word (the condition's reason), Message says it
	// for people: where the configuration came from, or what is missing.
	Reason, Message string
}

// EtcdOrderingSource is an EtcdSource whose configuration comes and goes:
// read from the cluster's objects rather than given by flags
// (pkg/etcddiscovery). A source that does not implement it always orders.
type EtcdOrderingSource interface {
	EtcdSource
	// Ordering is the source's state now. While it is off, the planner rolls
	// the control plane out like the MCO (Facts.Etcd nil) and Facts is not
	// asked.
	Ordering() EtcdOrdering
	// OnOrderingChange registers f, called after every change of Ordering
	// (the controller re-plans its pools then).
	OnOrderingChange(f func())
}

// Event reasons of the EtcdLeaderOrdering condition's transitions.
const (
	EventEtcdOrderingOn  = "EtcdLeaderOrderingOn"
	EventEtcdOrderingOff = "EtcdLeaderOrderingOff"
)

// setEtcdOrdering reports o in the pool's EtcdLeaderOrdering condition and
// returns the event of a change: a warning when ordering is off, or on from
// a stale configuration. Only control-plane pools carry the condition.
func setEtcdOrdering(status *mcfgv1.MachineConfigPoolStatus, prev mcfgv1.MachineConfigPoolStatus, pool PoolView, o *EtcdOrdering, now metav1.Time) []Event {
	if o == nil || !pool.ControlPlane {
		return nil
	}
	s := corev1.ConditionFalse
	if o.On {
		s = corev1.ConditionTrue
	}
	setCondition(status, mcfgv1.MachineConfigPoolCondition{Type: constants.PoolEtcdLeaderOrderingCondition, Status: s,
		Reason: o.Reason, Message: o.Message, LastTransitionTime: now})
	was := FindCondition(prev.Conditions, constants.PoolEtcdLeaderOrderingCondition)
	if was != nil && was.Status == s && was.Reason == o.Reason && was.Message == o.Message {
		return nil
	}
	msg := o.Reason + ": " + o.Message
	switch {
	case !o.On:
		return []Event{warning(EventEtcdOrderingOff, msg)}
	case o.Reason == EtcdOrderingDiscovered || o.Reason == EtcdOrderingFlags:
		return []Event{normal(EventEtcdOrderingOn, msg)}
	default: // on, from a configuration that is no longer what the cluster says
		return []Event{warning(EventEtcdOrderingOn, msg)}
	}
}

// Reasons of an ordering that is on and healthy (the others warn).
const (
	// EtcdOrderingFlags: --etcd-endpoints (and TLS flags) configure etcd.
	EtcdOrderingFlags = "EtcdEndpointsFlag"
	// EtcdOrderingDiscovered: the cluster's own etcd objects configure it.
	EtcdOrderingDiscovered = "EtcdObjectsDiscovered"
)

// etcdOrderingOf is the source's ordering: sources given by flags always order.
func etcdOrderingOf(src EtcdSource) EtcdOrdering {
	if s, ok := src.(EtcdOrderingSource); ok {
		return s.Ordering()
	}
	return EtcdOrdering{On: true, Reason: EtcdOrderingFlags, Message: "etcd is configured by --etcd-endpoints"}
}
