package node

import "time"

// Facts are what the planner knows besides the pool and its nodes. Each
// source is a small interface so adapters (pkg/etcd, the DPU pairing) and
// test doubles are interchangeable, and the planner stays free of I/O: the
// reconciler takes a snapshot first and hands it in.
type Facts struct {
	// Now stamps condition transitions.
	Now time.Time
	// Etcd is a snapshot of the etcd cluster behind the control plane. Nil
	// means no etcd source is configured: control-plane pools roll out like
	// the MCO's (no leader ordering). A snapshot whose Err is not nil means
	// etcd is unreachable: no control-plane disruption is granted.
	Etcd EtcdFacts
	// Gates may each veto a node's disruption grant (e.g. a DPU whose tenant
	// host is not drained yet). A veto never consumes maxUnavailable capacity.
	Gates []DisruptionGate
}

// EtcdFacts is a snapshot of etcd membership. Members are named like the
// nodes that run them (etcd --name == Node name), as on OpenShift masters.
type EtcdFacts interface {
	// Err is non-nil when the cluster could not be asked (or has no leader).
	Err() error
	// Leader is the name of the leader member, "" if none is known.
	Leader() string
	// Members lists the member names.
	Members() []string
	// Healthy reports whether a member answers and is in sync; why says what
	// is wrong when it is not.
	Healthy(member string) (ok bool, why string)
}

// DisruptionGate may veto the disruption of one node. It is the extension
// point for facts beyond etcd, such as DPU pairing and tenant maintenance.
type DisruptionGate interface {
	// Name names the gate in hold reasons and events.
	Name() string
	// MayDisrupt reports whether node may be granted now; reason says why not.
	MayDisrupt(pool PoolView, node NodeView) (ok bool, reason string)
}
