//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestEtcdFactsOnRealCluster checks pkg/etcd against a real 3-member
// cluster: the snapshot names the leader and every healthy member, a stopped
// member is unhealthy, MoveLeader hands leadership to the member asked for,
// and a cluster without quorum is unreachable.
func TestEtcdFactsOnRealCluster(t *testing.T) {
	cluster := framework.NewEtcdCluster(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := etcd.New(etcd.Config{Endpoints: cluster.ClientURLs(), RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	st := c.Snapshot(ctx)
	if st.Err() != nil || st.Leader() == "" || len(st.Members()) != 3 {
		t.Fatalf("snapshot of a healthy cluster: %s (err %v)", st, st.Err())
	}
	for _, m := range st.Members() {
		if ok, why := st.Healthy(m); !ok {
			t.Errorf("member %s unhealthy in a healthy cluster: %s", m, why)
		}
	}

	leader := st.Leader()
	var to string
	for _, m := range st.Members() {
		if m != leader {
			to = m
			break
		}
	}
	if err := c.MoveLeader(ctx, to); err != nil {
		t.Fatalf("MoveLeader %s -> %s: %v", leader, to, err)
	}
	if got := c.Snapshot(ctx).Leader(); got != to {
		t.Fatalf("leader after MoveLeader = %s, want %s", got, to)
	}
	if err := c.MoveLeader(ctx, to); err != nil {
		t.Fatalf("MoveLeader to the leader itself must be a no-op: %v", err)
	}

	// Stop a follower: still reachable, that member unhealthy.
	var follower int
	for i := range 3 {
		if cluster.MemberName(i) != to {
			follower = i
			break
		}
	}
	if err := cluster.StopMember(follower); err != nil {
		t.Fatal(err)
	}
	st = c.Snapshot(ctx)
	if st.Err() != nil {
		t.Fatalf("a cluster with quorum must be reachable: %v", st.Err())
	}
	if ok, _ := st.Healthy(cluster.MemberName(follower)); ok {
		t.Errorf("stopped member %s reported healthy", cluster.MemberName(follower))
	}

	// Stop a second member: no quorum, unreachable.
	var second int
	for i := range 3 {
		if i != follower && cluster.MemberName(i) != to {
			second = i
		}
	}
	if err := cluster.StopMember(second); err != nil {
		t.Fatal(err)
	}
	if st = c.Snapshot(ctx); st.Err() == nil {
		t.Errorf("a cluster without quorum reported reachable: %s", st)
	} else {
		t.Logf("without quorum: %v", st.Err())
	}
	for _, i := range []int{follower, second} {
		if err := cluster.StartMember(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
}
