package mcoworld

import (
	"context"
	"fmt"
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/tandem-mco/tandem/test/framework"
)

// EtcdOperator stands in for cluster-etcd-operator's static pod rollout
// (a library-go static pod operator): it keeps etcds.operator.openshift.io
// "cluster" with one node status per master, and rolls a new revision the
// way its installer pods do, one master at a time: the node's
// targetRevision set, the member restarted (its static pod replaced), then
// currentRevision raised. While it rolls, NodeInstallerProgressing is True
// (library-go's installer controller condition, which the operator's
// ClusterOperator Progressing unions). Fields as openshift/api operator/v1
// types.go (the vendored version) documents them.
type EtcdOperator struct {
	client  operatorclientset.Interface
	etcd    *framework.EtcdCluster
	masters []string
	members map[string]int

	mu       sync.Mutex
	revision int32
	restarts []MemberRestart
	rolls    []RevisionRoll
}

// MemberRestart is one member's restart for a revision: from its stop until
// it was healthy again.
type MemberRestart struct {
	Node             string
	Revision         int32
	Stopped, Healthy time.Time
}

// RevisionRoll is one revision's rollout, from the status that announced
// it to the status that ended it.
type RevisionRoll struct {
	Revision   int32
	Start, End time.Time
	Err        error
}

// installerPause is how long an installer pod takes between the revision's
// announcement on a node and the member's restart.
const installerPause = 2 * time.Second

// StartEtcdOperator creates etcds/cluster at revision 1 on every master.
func StartEtcdOperator(ctx context.Context, w *World, etcd *framework.EtcdCluster, members map[string]int) (*EtcdOperator, error) {
	client, err := operatorclientset.NewForConfig(w.CP.RESTConfig)
	if err != nil {
		return nil, err
	}
	o := &EtcdOperator{client: client, etcd: etcd, masters: w.opts.Masters, members: members, revision: 1}
	e := &operatorv1.Etcd{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: operatorv1.EtcdSpec{StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}}}
	created, err := client.OperatorV1().Etcds().Create(ctx, e, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating etcds/cluster: %w", err)
	}
	created.Status.LatestAvailableRevision = 1
	created.Status.Conditions = []operatorv1.OperatorCondition{{Type: "NodeInstallerProgressing", Status: operatorv1.ConditionFalse,
		Reason: "AllNodesAtLatestRevision", LastTransitionTime: metav1.Now()}}
	// The CRD refuses a revision on a node status's creation, as the
	// operator adds a node before its installer ran: two writes.
	for _, m := range o.masters {
		created.Status.NodeStatuses = append(created.Status.NodeStatuses, operatorv1.NodeStatus{NodeName: m})
	}
	if _, err := client.OperatorV1().Etcds().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("etcds/cluster status: %w", err)
	}
	if err := o.status(ctx, func(s *operatorv1.EtcdStatus) {
		for i := range s.NodeStatuses {
			s.NodeStatuses[i].CurrentRevision = 1
		}
	}); err != nil {
		return nil, fmt.Errorf("etcds/cluster status at revision 1: %w", err)
	}
	return o, nil
}

// Announce makes the next revision available (latestAvailableRevision,
// NodeInstallerProgressing True) and returns it; Roll installs it.
func (o *EtcdOperator) Announce(ctx context.Context) (int32, error) {
	o.mu.Lock()
	o.revision++
	rev := o.revision
	o.rolls = append(o.rolls, RevisionRoll{Revision: rev, Start: time.Now()})
	o.mu.Unlock()
	err := o.status(ctx, func(s *operatorv1.EtcdStatus) {
		s.LatestAvailableRevision = rev
		setInstallerProgressing(s, true, fmt.Sprintf("%d nodes are at revision %d; 0 nodes have achieved new revision %d", len(o.masters), rev-1, rev))
	})
	return rev, err
}

// Roll installs revision rev on each master in turn (bounded: each member
// must be healthy within 2 minutes) and ends the rollout.
func (o *EtcdOperator) Roll(ctx context.Context, rev int32) error {
	err := o.roll(ctx, rev)
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.rolls {
		if o.rolls[i].Revision == rev {
			o.rolls[i].End, o.rolls[i].Err = time.Now(), err
		}
	}
	return err
}

func (o *EtcdOperator) roll(ctx context.Context, rev int32) error {
	for done, node := range o.masters {
		i, ok := o.members[node]
		if !ok {
			return fmt.Errorf("master %s has no etcd member", node)
		}
		if err := o.status(ctx, func(s *operatorv1.EtcdStatus) { nodeStatus(s, node).TargetRevision = rev }); err != nil {
			return err
		}
		time.Sleep(installerPause)
		stopped := time.Now()
		if err := o.etcd.StopMember(i); err != nil {
			return fmt.Errorf("revision %d on %s: stopping its member: %w", rev, node, err)
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		err := o.etcd.StartMember(sctx, i)
		cancel()
		if err != nil {
			return fmt.Errorf("revision %d on %s: its member did not come back: %w", rev, node, err)
		}
		o.mu.Lock()
		o.restarts = append(o.restarts, MemberRestart{Node: node, Revision: rev, Stopped: stopped, Healthy: time.Now()})
		o.mu.Unlock()
		last := done == len(o.masters)-1
		if err := o.status(ctx, func(s *operatorv1.EtcdStatus) {
			ns := nodeStatus(s, node)
			ns.CurrentRevision, ns.TargetRevision = rev, 0
			if last {
				setInstallerProgressing(s, false, "")
			} else {
				setInstallerProgressing(s, true, fmt.Sprintf("%d nodes have achieved new revision %d", done+1, rev))
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// Restarts are the member restarts so far; Rolls the revisions' rollouts.
func (o *EtcdOperator) Restarts() []MemberRestart {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]MemberRestart(nil), o.restarts...)
}

// Rolls are the revisions' rollouts so far.
func (o *EtcdOperator) Rolls() []RevisionRoll {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]RevisionRoll(nil), o.rolls...)
}

// status changes the status on the latest object (retried on conflicts).
func (o *EtcdOperator) status(ctx context.Context, change func(*operatorv1.EtcdStatus)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		e, err := o.client.OperatorV1().Etcds().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(&e.Status)
		_, err = o.client.OperatorV1().Etcds().UpdateStatus(ctx, e, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("etcds/cluster is gone: %w", err)
	}
	return err
}

func nodeStatus(s *operatorv1.EtcdStatus, node string) *operatorv1.NodeStatus {
	for i := range s.NodeStatuses {
		if s.NodeStatuses[i].NodeName == node {
			return &s.NodeStatuses[i]
		}
	}
	s.NodeStatuses = append(s.NodeStatuses, operatorv1.NodeStatus{NodeName: node})
	return &s.NodeStatuses[len(s.NodeStatuses)-1]
}

func setInstallerProgressing(s *operatorv1.EtcdStatus, on bool, msg string) {
	st, reason := operatorv1.ConditionFalse, "AllNodesAtLatestRevision"
	if on {
		st, reason = operatorv1.ConditionTrue, "NodeInstaller"
	}
	for i := range s.Conditions {
		if c := &s.Conditions[i]; c.Type == "NodeInstallerProgressing" {
			if c.Status != st {
				c.LastTransitionTime = metav1.Now()
			}
			c.Status, c.Reason, c.Message = st, reason, msg
			return
		}
	}
	s.Conditions = append(s.Conditions, operatorv1.OperatorCondition{Type: "NodeInstallerProgressing", Status: st, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()})
}
