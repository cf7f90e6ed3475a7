// Package constants holds every name of the node protocol that the daemon
// and the controller share: annotations, labels, states and well-known
// prefixes. Keeping them in one file makes the protocol reviewable in one
// place and stops the two sides drifting apart.
package constants

// Prefix of every MCO node annotation. tandem keeps the MCO's names so stock
// tools and dashboards keep working.
const Prefix = "machineconfiguration.openshift.io/"

// Annotations kept from the MCO, with the same meaning.
const (
	// CurrentConfigAnnotation is the rendered config the node runs (daemon-owned).
	CurrentConfigAnnotation = Prefix + "currentConfig"
	// DesiredConfigAnnotation is the rendered config the controller allows the
	// node to disrupt for (controller-owned): "you may drain and reboot now".
	DesiredConfigAnnotation = Prefix + "desiredConfig"
	// StateAnnotation is the daemon's state: one of the MachineConfigDaemonState* values.
	StateAnnotation = Prefix + "state"
	// ReasonAnnotation explains a Degraded or Unreconcilable state to a person.
	ReasonAnnotation = Prefix + "reason"
	// DesiredDrainAnnotation is written by the daemon: drain-<config> or uncordon-<config>.
	DesiredDrainAnnotation = Prefix + "desiredDrain"
	// LastAppliedDrainAnnotation is written by the drain controller once the
	// request in DesiredDrainAnnotation has been carried out.
	LastAppliedDrainAnnotation = Prefix + "lastAppliedDrain"
	// ControlPlaneTopologyAnnotation is set by the MCO on nodes; kept for parity.
	ControlPlaneTopologyAnnotation = Prefix + "controlPlaneTopology"
	// GeneratedByControllerVersionAnnotation on a rendered MachineConfig names
	// the controller version that rendered it (MCO name).
	GeneratedByControllerVersionAnnotation = Prefix + "generated-by-controller-version"
)

// Annotations added by tandem. A stock MCD ignores them, so a half-rolled-out
// image is safe.
const (
	// StageConfigAnnotation (controller -> daemon): you may stage this config's
	// OS now, finalization-locked; no disruption allowed.
	StageConfigAnnotation = Prefix + "stageConfig"
	// StagedConfigAnnotation (daemon -> controller): this config's OS is staged
	// and finalization-locked (or the config needs no OS change).
	StagedConfigAnnotation = Prefix + "stagedConfig"
	// StageProgressAnnotation (daemon): human-readable staging progress, e.g. "42%".
	StageProgressAnnotation = Prefix + "stageProgress"
	// RebootRequestAnnotation (controller -> daemon): reboot once for this token,
	// used by HostMaintenance Reboot requests. The node must already be drained.
	RebootRequestAnnotation = Prefix + "rebootRequest"
	// LastRebootAnnotation (daemon -> controller): the last reboot token served.
	LastRebootAnnotation = Prefix + "lastReboot"
	// CordonedByAdminAnnotation records that a person had cordoned the node
	// before tandem drained it, so the uncordon does not undo that person's cordon.
	CordonedByAdminAnnotation = Prefix + "cordonedBeforeDrain"
)

// Values of StateAnnotation, as the MCO writes them.
const (
	MachineConfigDaemonStateWorking        = "Working"
	MachineConfigDaemonStateDone           = "Done"
	MachineConfigDaemonStateDegraded       = "Degraded"
	MachineConfigDaemonStateUnreconcilable = "Unreconcilable"
)

// Drain handshake values: "drain-<config>" and "uncordon-<config>".
const (
	DrainerStateDrain    = "drain"
	DrainerStateUncordon = "uncordon"
)

// DrainRequest returns the desiredDrain value asking for a drain for config.
func DrainRequest(config string) string { return DrainerStateDrain + "-" + config }

// UncordonRequest returns the desiredDrain value asking for an uncordon for config.
func UncordonRequest(config string) string { return DrainerStateUncordon + "-" + config }

// Labels and selectors.
const (
	// MachineConfigRoleLabel selects MachineConfigs for a pool (MCO convention).
	MachineConfigRoleLabel = Prefix + "role"
	// NodeRoleLabelPrefix prefixes node role labels, e.g. node-role.kubernetes.io/worker.
	NodeRoleLabelPrefix = "node-role.kubernetes.io/"
	// MasterPool, WorkerPool and InfraDPUPool are the well-known pool names.
	MasterPool = "master"
	WorkerPool = "worker"
	// DPUWorkerPool is the infra cluster's pool of DPU (ARM) nodes.
	DPUWorkerPool = "dpu-worker"
	// RenderedPrefix prefixes rendered MachineConfig names: rendered-<pool>-<hash>.
	RenderedPrefix = "rendered-"
	// ZoneLabel breaks ties between nodes like the MCO does.
	ZoneLabel = "topology.kubernetes.io/zone"
)

// Pool tuning annotations read by the controller (absent means default).
const (
	// StageConcurrencyAnnotation on a MachineConfigPool: how many nodes may stage at once.
	StageConcurrencyAnnotation = Prefix + "stageConcurrency"
	// IOPolicyAnnotation on a Node: the staging I/O policy name, with the
	// governor's target after "@" if wanted (adaptive@3x, adaptive@5ms; see
	// iso.ParsePolicy).
	IOPolicyAnnotation = Prefix + "ioPolicy"
	// MaintenanceWindowsAnnotation on a MachineConfigPool: when disruption
	// may start, as cron windows "<cron spec> <duration>" separated by ";" or
	// newlines, e.g. "CRON_TZ=Europe/Berlin 0 22 * * 1-5 6h". Staging runs at
	// any time; only grants wait for a window. Absent: always.
	MaintenanceWindowsAnnotation = Prefix + "maintenanceWindows"
	// DisruptionHoldAnnotation on a MachineConfigPool or a Node: while set
	// (to any non-empty reason), no disruption is granted there; staging goes on.
	DisruptionHoldAnnotation = Prefix + "disruptionHold"
	// MaxFailedNodesAnnotation on a MachineConfigPool: the circuit breaker's
	// K. After K nodes fail on the pool's target the rollout stops. Default 1.
	MaxFailedNodesAnnotation = Prefix + "maxFailedNodes"
	// FailedNodeGraceAnnotation on a MachineConfigPool: how long a node's
	// Degraded condition (its MachineConfigNode's NodeDegraded) must hold
	// before the circuit breaker counts the node as failed, as a Go
	// duration ("5m", "90s", "0s": at once). Default 5m. A shorter
	// failure is a blip: it opens nothing and unstages nothing.
	FailedNodeGraceAnnotation = Prefix + "failedNodeGrace"
	// UpdateOrderAnnotation guides the order of grants (MCO #2059, "Allow
	// administrators to guide upgrade ordering"). On a Node, an integer as
	// proposed in MCO PR #2162: higher values are granted first, 0 keeps the
	// node out of updates (it still stages), absent counts as 1. On a MachineConfigPool, as proposed in MCO PR
	// #6407: OldestFirst (the default) or NewestFirst, the age order within
	// a zone. Never ahead of the etcd and DPU rules: the etcd leader still
	// goes last, and a DPU host still waits for its pair.
	UpdateOrderAnnotation = Prefix + "update-order"
	// ResumeRolloutAnnotation on a MachineConfigPool: set by an admin to the
	// target config's name to let a rollout go on past the circuit breaker.
	ResumeRolloutAnnotation = Prefix + "resumeRollout"
)

// MachineConfigPool condition types added by tandem (the MCO's own types come
// from github.com/openshift/api/machineconfiguration/v1).
const (
	// PoolDisruptionHeldCondition is True while the node controller holds back a
	// disruption it had capacity for, for a safety reason (etcd unreachable, an
	// etcd member unhealthy, a disruption gate's veto); its reason says which.
	PoolDisruptionHeldCondition = "DisruptionHeld"
	// PoolControllerConfigCondition is True when the render controller renders
	// with the MCO's ControllerConfig (OS image, extensions image,
	// certificates) and False when it renders standalone without one.
	PoolControllerConfigCondition = "ControllerConfigAvailable"
	// PoolRolloutHaltedCondition is True while the pool's circuit breaker
	// stops the rollout: too many nodes failed on the target.
	PoolRolloutHaltedCondition = "RolloutHalted"
	// PoolEtcdLeaderOrderingCondition, on the control-plane pool, is True
	// while the node controller orders its disruptions by etcd leadership
	// (its reason says where etcd's configuration came from) and False, with
	// the reason, while it cannot: the pool then rolls out like the MCO's.
	PoolEtcdLeaderOrderingCondition = "EtcdLeaderOrdering"
	// PoolOnClusterLayeringRefusedCondition is True while a MachineOSConfig
	// selects the pool (the MCO's on-cluster layering, which tandem does not
	// roll out): no node of the pool is staged or granted a new config. Its
	// reason is MachineOSConfigSelectsPool, its message names the
	// MachineOSConfig.
	PoolOnClusterLayeringRefusedCondition = "OnClusterLayeringRefused"
)

// DPU pairing and the HostMaintenance API.
const (
	// DPUGroup is the API group of tandem's DPU CRDs.
	DPUGroup = "dpu.machineconfiguration.openshift.io"
	// TenantNodeAnnotation on an infra (DPU) Node names its tenant host.
	TenantNodeAnnotation = DPUGroup + "/tenant-node"
	// RequesterInfraController is the requester name the infra controller writes.
	RequesterInfraController = "tandem-infra-controller"
	// MaintenanceCordonAnnotation on a tenant Node marks a HostMaintenance
	// hold (tenant controller): present while requests hold the node
	// cordoned; "true" when a person had cordoned the node before the hold
	// began (the release keeps that cordon), "false" when tandem cordoned it.
	MaintenanceCordonAnnotation = DPUGroup + "/cordonedBeforeMaintenance"
	// HostMaintenanceCycleAnnotation on an infra Node (infra controller):
	// present while a tenant maintenance cycle for the node's update is
	// open; its value is the config the DPU ran when the cycle opened, so a
	// reboot onto another config is told apart from no reboot at all.
	HostMaintenanceCycleAnnotation = DPUGroup + "/hostMaintenanceFrom"
	// InfraNodeAnnotation on a HostMaintenance names the infra node whose
	// update asked for it (informational).
	InfraNodeAnnotation = DPUGroup + "/infra-node"
	// TenantHoldSinceAnnotation on an infra Node (infra controller): when
	// the infra planner began to wait for the node's tenant host to drain
	// (RFC 3339), so the hold time survives a controller restart.
	TenantHoldSinceAnnotation = DPUGroup + "/tenantHoldSince"
	// DPUDownSinceAnnotation on an infra Node (infra controller): since when
	// (RFC 3339) the DPU is down, recorded while it is down for a reason
	// that carries no time of its own (a required DaemonSet pod absent, no
	// Ready condition), so the outage's clock survives a controller restart.
	// Removed once the DPU is up.
	DPUDownSinceAnnotation = DPUGroup + "/dpuDownSince"
	// DPUNotReadyTaintKey is the NoSchedule taint the tenant controller puts
	// on a host whose DPU is down (a Taint HostMaintenance); its value names
	// the DPU.
	DPUNotReadyTaintKey = DPUGroup + "/dpu-not-ready"
	// NodeMaintenancePrefix prefixes the medik8s NodeMaintenance objects the
	// dpu-network-operator creates for a tenant host (dpu-tenant-<host>).
	NodeMaintenancePrefix = "dpu-tenant-"
)

// RPMOstreeClientID is sent as RPMOSTREE_CLIENT_ID so rpm-ostree logs who asked.
const RPMOstreeClientID = "tandem-machine-config-daemon"

// MCONamespace is the MCO's namespace. The MCO's daemon records its node
// events there, the node reference carrying it (pkg/controller/common
// NamespacedEventRecorder, release-4.21: "the logical namespace of this
// operator").
const MCONamespace = "openshift-machine-config-operator"
