// Package etcd is the node controller's source of etcd facts: who leads,
// which members are healthy, and MoveLeader. It wraps
// go.etcd.io/etcd/client/v3. Members are named like the nodes that run them
// (etcd --name == Node name), as on OpenShift masters.
//
// Gathering is I/O (Client.Snapshot); judging what was gathered is a pure
// function (Summarize) with table tests.
package etcd
