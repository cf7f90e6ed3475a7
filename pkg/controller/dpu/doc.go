// Package dpu pairs infra (DPU) nodes with their tenant hosts and carries out
// the HostMaintenance API (pkg/apis/dpu/v1alpha1) on both sides.
//
// Tenant side (follower): TenantController serves HostMaintenance requests
// in the tenant cluster, and the dpu-network-operator's medik8s
// NodeMaintenance objects as Drain requests. Drain cordons and drains a node
// and holds it until the request is deleted; Reboot drains it, has its
// machine-config-daemon reboot it (rebootRequest/lastReboot), releases it
// and ends Completed; Pair marks a host with a DPU; Taint taints the host of
// a DPU that is down. Drain and Reboot requests are admitted in order within
// the node's pool maxUnavailable, by the planner's rule (node.PlacesUsed).
// Coalescing: a reboot of a host with a staged OS update pending applies the
// update too (one drain, one reboot), and a held host whose maintenance ends
// is handed to its staged update before release. TenantController.Gate keeps
// the tenant's node planner from granting updates to nodes that requests
// hold, and holds a paired host's new update back for a while so that its
// DPU's maintenance can take it along.
//
// Infra side (leader): InfraController keeps a Pair request per paired host
// and opens a tenant maintenance cycle for each infra node that needs its
// pool's update (or whose host's update is pending): it asks for a Drain of
// the paired tenant host, and, once the infra node rebooted onto its new
// config, for a Reboot of the host; then it deletes both requests.
// InfraController.Gate vetoes the infra planner's grant until the host is
// Drained, and reports a tenant that holds the update back too long (metric,
// event, and the pool's DisruptionHeld condition through the veto message),
// from a start recorded on the infra node. A DPU that is down past a grace
// gets its host tainted through a Taint request. In external mode the gate
// is the whole infra side: an external coordinator writes the requests.
//
// Every decision is a pure function (DecideTenant, TenantGateVerdict,
// DecideInfra, DecideOutage, GateVerdict) of a snapshot; the controllers
// only observe and apply.
package dpu
