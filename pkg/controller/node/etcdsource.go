package node

import (
	"context"

	"github.com/tandem-mco/tandem/pkg/etcd"
)

// EtcdSource is what the reconciler needs from etcd: a fresh snapshot per
// plan, and MoveLeader.
type EtcdSource interface {
	Facts(ctx context.Context) EtcdFacts
	MoveLeader(ctx context.Context, to string) error
}

// EtcdClientSource adapts a pkg/etcd client.
type EtcdClientSource struct{ Client *etcd.Client }

// Facts takes a snapshot.
func (s EtcdClientSource) Facts(ctx context.Context) EtcdFacts { return s.Client.Snapshot(ctx) }

// MoveLeader moves leadership and waits until it is observed.
func (s EtcdClientSource) MoveLeader(ctx context.Context, to string) error {
	return s.Client.MoveLeader(ctx, to)
}
