// Package node is tandem's node controller: a pure planner and the thin
// reconciler around it.
//
// The planner works like etcd-io/raft's state machine: every fact comes in as
// a value (the pool, its nodes, etcd membership, disruption gates) and every
// decision comes out in a Result (which nodes may stage, which nodes may
// disrupt, whether etcd leadership must move first, the pool status, events).
// Plan does no I/O, so each rule is a table test and a randomized fleet
// simulation can check the safety invariants over thousands of schedules.
//
// The reconciler (Controller) watches Nodes and MachineConfigPools, builds the
// views, asks etcd for a fresh snapshot when the pool is the control plane,
// calls Plan and applies the Result: node annotation patches, MoveLeader,
// pool status, events and metrics.
package node
