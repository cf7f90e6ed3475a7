package etcd

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Which errors prove a write unapplied, by etcd's and raft's own values.
func TestUnapplied(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		// What etcd's togRPCError makes of raft.ErrProposalDropped.
		{status.Error(codes.Unknown, "raft proposal dropped"), true},
		{rpctypes.ErrGRPCNoLeader, true},
		// May be in the log: never retried.
		{rpctypes.ErrGRPCTimeout, false},
		{rpctypes.ErrGRPCTimeoutDueToLeaderFail, false},
		{rpctypes.ErrGRPCLeaderChanged, false},
		{status.Error(codes.DeadlineExceeded, "context deadline exceeded"), false},
		{context.DeadlineExceeded, false},
		{status.Error(codes.Unknown, "something else"), false},
		{errors.New("raft proposal dropped"), false}, // not from the server
		{nil, false},
	} {
		if got := Unapplied(c.err); got != c.want {
			t.Errorf("Unapplied(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// The interceptor retries a dropped write until it goes through, leaves
// reads and ambiguous errors alone, and stops at the context's end.
func TestRetryUnapplied(t *testing.T) {
	dropped := status.Error(codes.Unknown, "raft proposal dropped")
	calls := 0
	script := func(errs ...error) grpc.UnaryInvoker {
		calls = 0
		return func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
			calls++
			if calls <= len(errs) {
				return errs[calls-1]
			}
			return nil
		}
	}
	retries := 0
	in := RetryUnapplied(func(string, error) { retries++ })
	ctx := context.Background()
	if err := in(ctx, "/etcdserverpb.KV/Put", nil, nil, nil, script(dropped, dropped)); err != nil || calls != 3 || retries != 2 {
		t.Errorf("put dropped twice: err %v, %d calls, %d retries; want success on the third", err, calls, retries)
	}
	if err := in(ctx, "/etcdserverpb.KV/Put", nil, nil, nil, script(rpctypes.ErrGRPCTimeout)); err == nil || calls != 1 {
		t.Errorf("ambiguous timeout: err %v after %d calls, want it returned at once", err, calls)
	}
	if err := in(ctx, "/etcdserverpb.KV/Range", nil, nil, nil, script(dropped)); err == nil || calls != 1 {
		t.Errorf("range: err %v after %d calls; reads are clientv3's own business", err, calls)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	always := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return dropped }
	if err := in(short, "/etcdserverpb.KV/Txn", nil, nil, nil, always); !Unapplied(err) {
		t.Errorf("txn dropped until the deadline: %v, want the last drop", err)
	}
}
