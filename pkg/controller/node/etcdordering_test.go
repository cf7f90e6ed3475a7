package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// The control-plane pool says whether its disruptions are ordered by etcd
// leadership: the condition carries the source's state, an event marks each
// change (a warning unless ordering is on from a sound configuration), and
// pools without the state or outside the control plane carry nothing.
func TestEtcdLeaderOrderingCondition(t *testing.T) {
	master := pool(constants.MasterPool)
	master.ControlPlane = true
	nodes := []NodeView{doneNode("master-0", oldCfg, 0)}
	off := &EtcdOrdering{Reason: "EtcdObjectsNotFound", Message: "ConfigMap openshift-etcd/etcd-endpoints not found"}
	on := &EtcdOrdering{On: true, Reason: EtcdOrderingDiscovered, Message: "etcd at https://10.0.0.5:2379"}
	stale := &EtcdOrdering{On: true, Reason: "EtcdObjectsStale", Message: "ordering goes on with etcd as found before"}

	plan := func(p PoolView, o *EtcdOrdering) Result {
		return Plan(p, nodes, Facts{Now: epoch, EtcdOrdering: o, Etcd: nil})
	}
	for _, tc := range []struct {
		name      string
		steps     []*EtcdOrdering
		status    corev1.ConditionStatus
		reason    string
		lastEvent string // event of the last step, "" none
		eventType string
	}{
		{"off", []*EtcdOrdering{off}, corev1.ConditionFalse, off.Reason, EventEtcdOrderingOff, corev1.EventTypeWarning},
		{"off again: no second event", []*EtcdOrdering{off, off}, corev1.ConditionFalse, off.Reason, "", ""},
		{"comes on", []*EtcdOrdering{off, on}, corev1.ConditionTrue, on.Reason, EventEtcdOrderingOn, corev1.EventTypeNormal},
		{"on from a stale configuration warns", []*EtcdOrdering{on, stale}, corev1.ConditionTrue, stale.Reason, EventEtcdOrderingOn, corev1.EventTypeWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := master
			var r Result
			for _, o := range tc.steps {
				r = plan(p, o)
				p.Status = *r.Status
			}
			c := FindCondition(r.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition)
			if c == nil || c.Status != tc.status || c.Reason != tc.reason || c.Message == "" {
				t.Fatalf("condition = %+v, want %s %s with a message", c, tc.status, tc.reason)
			}
			var got []Event
			for _, e := range r.Events {
				if e.Reason == EventEtcdOrderingOn || e.Reason == EventEtcdOrderingOff {
					got = append(got, e)
				}
			}
			switch {
			case tc.lastEvent == "" && len(got) > 0:
				t.Errorf("events %+v, want none", got)
			case tc.lastEvent != "" && (len(got) != 1 || got[0].Reason != tc.lastEvent || got[0].Type != tc.eventType):
				t.Errorf("events %+v, want one %s %s", got, tc.eventType, tc.lastEvent)
			}
		})
	}
	if r := plan(pool(constants.WorkerPool), off); FindCondition(r.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition) != nil {
		t.Errorf("a worker pool got the condition")
	}
	if r := plan(master, nil); FindCondition(r.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition) != nil {
		t.Errorf("without an etcd source the pool got the condition")
	}
}
