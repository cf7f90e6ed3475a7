package node

import (
	"fmt"
	"sort"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// EtcdRevisionState is what the etcd operator tells of its static pods'
// rollout: the etcds.operator.openshift.io "cluster" object (nil when there
// is none: no etcd operator manages etcd). The MCO's controller may read
// etcds (its ClusterRole, manifests/machineconfigcontroller/clusterrole.yaml
// at the pinned MCO commit) but not ClusterOperators, so the etcd
// ClusterOperator's Progressing is read where it comes from: library-go's
// status controller sets it from the operator's own conditions whose type
// ends in "Progressing" (pkg/operator/status/status_controller.go,
// UnionClusterCondition).
type EtcdRevisionState struct {
	Etcd *operatorv1.Etcd
}

// EtcdRevisionVerdict says whether etcd is rolling a revision now, and
// why. The etcd operator (a library-go static pod operator) deploys a new
// revision to one master at a time: the installer pod writes the member's
// new static pod and the kubelet restarts the member. While it does, a
// node's status has a targetRevision above its currentRevision, or a
// currentRevision below the latestAvailableRevision (openshift/api
// operator/v1 types.go NodeStatus and StaticPodOperatorStatus, the version
// vendored here), and the operator reports Progressing. A master rebooted
// meanwhile takes a second member down: the quorum-loss race of
// cluster-etcd-operator #1663. Pure.
func EtcdRevisionVerdict(s EtcdRevisionState) (rolling bool, why string) {
	var reasons []string
	if e := s.Etcd; e != nil {
		latest := e.Status.LatestAvailableRevision
		var behind []string
		for _, ns := range e.Status.NodeStatuses {
			switch {
			case ns.TargetRevision > ns.CurrentRevision:
				behind = append(behind, fmt.Sprintf("%s installing revision %d (current %d)", ns.NodeName, ns.TargetRevision, ns.CurrentRevision))
			case ns.CurrentRevision < latest:
				behind = append(behind, fmt.Sprintf("%s at revision %d", ns.NodeName, ns.CurrentRevision))
			}
		}
		sort.Strings(behind)
		if len(behind) > 0 {
			reasons = append(reasons, fmt.Sprintf("etcd is rolling out revision %d: %s", latest, strings.Join(behind, ", ")))
		}
	}
	if e := s.Etcd; e != nil {
		var progressing []string
		for _, c := range e.Status.Conditions {
			if strings.HasSuffix(c.Type, "Progressing") && c.Status == operatorv1.ConditionTrue {
				progressing = append(progressing, fmt.Sprintf("%s: %s", c.Type, c.Message))
			}
		}
		sort.Strings(progressing)
		if len(progressing) > 0 {
			reasons = append(reasons, "the etcd operator is Progressing ("+strings.Join(progressing, "; ")+")")
		}
	}
	if len(reasons) == 0 {
		return false, ""
	}
	return true, strings.Join(reasons, "; ") + "; the control plane's grants wait until it is done"
}

// EtcdRevisionGate holds the control-plane pool's grants while etcd rolls
// a revision (EtcdRevisionVerdict). Read reads the operator's objects (an
// informer's cache); an error, or caches not synced yet, holds: the gate
// fails closed.
type EtcdRevisionGate struct {
	Read func() (EtcdRevisionState, error)
}

// Name names the gate in hold messages.
func (EtcdRevisionGate) Name() string { return "EtcdRevision" }

// HoldReason is the pool's DisruptionHeld reason while the gate holds.
func (EtcdRevisionGate) HoldReason() HoldReason { return HoldEtcdRevision }

// MayDisrupt vetoes a control-plane node while etcd rolls a revision; the
// other pools are not its concern.
func (g EtcdRevisionGate) MayDisrupt(pool PoolView, _ NodeView) (bool, string) {
	if !pool.ControlPlane {
		return true, ""
	}
	s, err := g.Read()
	if err != nil {
		return false, fmt.Sprintf("the etcd operator's state is not known (%v); the control plane's grants wait", err)
	}
	rolling, why := EtcdRevisionVerdict(s)
	return !rolling, why
}
