package etcd

import (
	"context"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// errProposalDropped is raft's ErrProposalDropped as a client sees it: the
// etcd server returns it from Propose unmapped (etcdserver/v3_server.go
// processInternalRaftRequestOnce), so it arrives as codes.Unknown with
// raft's message (go.etcd.io/raft/v3 raft.go).
const errProposalDropped = "raft proposal dropped"

// Unapplied reports whether err proves that etcd did not apply the write:
// raft refused the proposal before appending it to its log (a leader in
// transfer, or a member without a leader, during a hand-over), or the
// server refused the request before proposing it (no leader). Retrying
// such a write cannot apply it twice. A timeout proves nothing: the
// proposal may be in the log.
func Unapplied(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch {
	case st.Code() == codes.Unknown && strings.Contains(st.Message(), errProposalDropped):
		return true
	case st.Code() == codes.Unavailable && st.Message() == status.Convert(rpctypes.ErrGRPCNoLeader).Message():
		return true
	}
	return false
}

// writeMethods are the KV RPCs that change data.
var writeMethods = map[string]bool{
	"/etcdserverpb.KV/Put":         true,
	"/etcdserverpb.KV/Txn":         true,
	"/etcdserverpb.KV/DeleteRange": true,
}

// RetryUnapplied returns a gRPC client interceptor that retries an etcd
// write etcd refused without applying it (Unapplied), with a backoff from
// 10 ms doubling to 200 ms, until the call's context ends. clientv3 itself
// never retries a write once connected (client/v3/retry.go
// isSafeRetryMutableRPC), so without this a leader hand-over costs the
// client the writes raft dropped in its window. onRetry, when set, counts
// the retries.
func RetryUnapplied(onRetry func(method string, err error)) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if !writeMethods[method] {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		wait := 10 * time.Millisecond
		for {
			err := invoker(ctx, method, req, reply, cc, opts...)
			if err == nil || !Unapplied(err) {
				return err
			}
			if onRetry != nil {
				onRetry(method, err)
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(wait):
			}
			wait = min(2*wait, 200*time.Millisecond)
		}
	}
}
