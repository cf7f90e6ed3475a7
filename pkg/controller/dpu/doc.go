// Package dpu pairs infra (DPU) nodes with their tenant hosts and carries out
// the HostMaintenance API (pkg/apis/dpu/v1alpha1) on both sides.
//
// Tenant side (follower): TenantController serves HostMaintenance requests
// in the tenant cluster. Drain cordons and drains a node and holds it until
// the request is deleted; Reboot drains it, has its machine-config-daemon
// reboot it (rebootRequest/lastReboot), releases it and ends Completed. A
// reboot of a host with a staged OS update pending is coalesced with it: the
// update is granted together with the reboot request, so the daemon drains
// once and reboots once for both. Requests are admitted in order within
// the node's pool maxUnavailable. TenantController.Gate keeps the tenant's
// node planner from granting updates to nodes that requests hold or wait for.
//
// Infra side (leader): InfraController opens a tenant maintenance cycle for
// each infra node that needs its pool's update: it asks for a Drain of the
// paired tenant host, and, once the infra node rebooted onto its new config,
// for a Reboot of the host; then it deletes both requests. InfraController.Gate
// vetoes the infra planner's grant until the host is Drained, and reports a
// tenant that holds the update back too long (metric, event, and the pool's
// DisruptionHeld condition through the veto message). In external mode the
// gate is the whole infra side: an external coordinator writes the requests.
//
// Every decision is a pure function (DecideTenant, DecideInfra, GateVerdict)
// of a snapshot; the controllers only observe and apply.
package dpu
