package node

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func etcdAt(latest int32, nodes ...operatorv1.NodeStatus) *operatorv1.Etcd {
	e := &operatorv1.Etcd{}
	e.Name = "cluster"
	e.Status.LatestAvailableRevision = latest
	e.Status.NodeStatuses = nodes
	return e
}

func progressing(e *operatorv1.Etcd, status operatorv1.ConditionStatus) *operatorv1.Etcd {
	e.Status.Conditions = append(e.Status.Conditions,
		operatorv1.OperatorCondition{Type: "EtcdMembersAvailable", Status: operatorv1.ConditionTrue},
		operatorv1.OperatorCondition{Type: "NodeInstallerProgressing", Status: status, Message: "1 node is at revision 7; 2 nodes are at revision 8"})
	return e
}

// TestEtcdRevisionVerdict reads the etcd operator's status by the
// meaning openshift/api gives its fields (operator/v1 NodeStatus:
// currentRevision "the generation of the most recently successful
// deployment", targetRevision "the generation of the deployment we're
// trying to apply"; latestAvailableRevision "the deploymentID of the most
// recent deployment").
func TestEtcdRevisionVerdict(t *testing.T) {
	at := func(node string, current, target int32) operatorv1.NodeStatus {
		return operatorv1.NodeStatus{NodeName: node, CurrentRevision: current, TargetRevision: target}
	}
	tests := []struct {
		name    string
		s       EtcdRevisionState
		rolling bool
		why     string
	}{
		{"no etcd operator: nothing to wait for", EtcdRevisionState{}, false, ""},
		{"every master at the latest revision", EtcdRevisionState{Etcd: progressing(etcdAt(8, at("m0", 8, 0), at("m1", 8, 0), at("m2", 8, 0)), operatorv1.ConditionFalse)}, false, ""},
		{"a new revision, not yet installed anywhere", EtcdRevisionState{Etcd: etcdAt(9, at("m0", 8, 0), at("m1", 8, 0), at("m2", 8, 0))}, true, "m0 at revision 8"},
		{"one master installing", EtcdRevisionState{Etcd: etcdAt(9, at("m0", 9, 0), at("m1", 8, 9), at("m2", 8, 0))}, true, "m1 installing revision 9 (current 8)"},
		{"a stale target at the current revision is no rollout", EtcdRevisionState{Etcd: etcdAt(9, at("m0", 9, 9), at("m1", 9, 0), at("m2", 9, 0))}, false, ""},
		{"the operator Progressing alone", EtcdRevisionState{Etcd: progressing(etcdAt(8, at("m0", 8, 0)), operatorv1.ConditionTrue)}, true, "etcd operator is Progressing (NodeInstallerProgressing: 1 node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rolling, why := EtcdRevisionVerdict(tt.s)
			if rolling != tt.rolling || !strings.Contains(why, tt.why) {
				t.Fatalf("got %v %q, want %v with %q", rolling, why, tt.rolling, tt.why)
			}
		})
	}
}

// TestEtcdRevisionGateHoldsOnlyTheControlPlane: while etcd rolls a
// revision the master pool grants nothing and says why in DisruptionHeld;
// a worker pool is not held; an unreadable state holds (fails closed).
func TestEtcdRevisionGateHoldsOnlyTheControlPlane(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rollingState := EtcdRevisionState{Etcd: etcdAt(9, operatorv1.NodeStatus{NodeName: "m1", CurrentRevision: 8, TargetRevision: 9})}
	gate := func(s EtcdRevisionState, err error) DisruptionGate {
		return EtcdRevisionGate{Read: func() (EtcdRevisionState, error) { return s, err }}
	}
	workers := pool("worker")
	masters := pool("master")
	masters.ControlPlane = true
	a, b := doneNode("a", oldCfg, 0), doneNode("b", oldCfg, 1)
	cases := []struct {
		name   string
		pool   PoolView
		gate   DisruptionGate
		grants []string
		reason HoldReason
		msg    string
	}{
		{"masters, etcd at rest", masters, gate(EtcdRevisionState{Etcd: etcdAt(8, operatorv1.NodeStatus{NodeName: "m1", CurrentRevision: 8})}, nil), []string{"a"}, "", ""},
		{"masters, etcd rolling", masters, gate(rollingState, nil), nil, HoldEtcdRevision, "m1 installing revision 9"},
		{"masters, state unknown", masters, gate(EtcdRevisionState{}, errors.New("caches not synced")), nil, HoldEtcdRevision, "caches not synced"},
		{"workers, etcd rolling", workers, gate(rollingState, nil), []string{"a"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Plan(c.pool, []NodeView{a, b}, Facts{Now: now, Gates: []DisruptionGate{c.gate}})
			if got := grantNames(r); !slices.Equal(got, c.grants) {
				t.Fatalf("grants = %v, want %v (holds %+v)", got, c.grants, r.Holds)
			}
			held := cond(r.Status, constants.PoolDisruptionHeldCondition)
			if c.reason == "" {
				if held.Status == corev1.ConditionTrue {
					t.Fatalf("DisruptionHeld = %s %s, want not held", held.Reason, held.Message)
				}
				return
			}
			if held.Status != corev1.ConditionTrue || held.Reason != string(c.reason) || !strings.Contains(held.Message, c.msg) {
				t.Fatalf("DisruptionHeld = %s/%s %q, want True/%s with %q", held.Status, held.Reason, held.Message, c.reason, c.msg)
			}
		})
	}
}
