package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HostMaintenanceAction is what a request asks the tenant cluster to do to a host.
// +kubebuilder:validation:Enum=Drain;Reboot;Pair;Taint
type HostMaintenanceAction string

const (
	// ActionDrain cordons and drains the host, then holds it cordoned until
	// the request is deleted. The host is then uncordoned, unless a person
	// had cordoned it before.
	ActionDrain HostMaintenanceAction = "Drain"
	// ActionReboot drains the host, reboots it through its
	// machine-config-daemon, uncordons it and ends Completed. A staged OS
	// update pending on the host is applied by the same reboot.
	ActionReboot HostMaintenanceAction = "Reboot"
	// ActionPair says the host has a DPU whose updates need it (the
	// request's infra-node annotation names the DPU). It holds nothing and
	// stays Active until deleted. While it exists, the tenant reports the
	// host's pending config update in status.pendingUpdate, and a new
	// update of the host waits (up to status.holdUpdateUntil) for the DPU
	// to ask for a Drain, so that one drain and one reboot serve both.
	ActionPair HostMaintenanceAction = "Pair"
	// ActionTaint says the host's DPU is down: the tenant taints the host
	// NoSchedule (key dpu.machineconfiguration.openshift.io/dpu-not-ready)
	// until the request is deleted. Pods already running stay.
	ActionTaint HostMaintenanceAction = "Taint"
)

// Holds reports whether the action cordons and drains the host (Drain,
// Reboot), taking a place of its pool's maxUnavailable.
func (a HostMaintenanceAction) Holds() bool { return a == ActionDrain || a == ActionReboot }

// HostMaintenancePhase is where a request stands.
type HostMaintenancePhase string

const (
	// PhasePending: queued; waiting for its turn, for the pool's
	// maxUnavailable, or for a config update of the node to finish.
	PhasePending HostMaintenancePhase = "Pending"
	// PhaseDraining: admitted; the node is cordoned and being drained.
	PhaseDraining HostMaintenancePhase = "Draining"
	// PhaseDrained: the node is cordoned and drained. A Drain request stays
	// here until it is deleted.
	PhaseDrained HostMaintenancePhase = "Drained"
	// PhaseRebooting: the node's daemon was asked to reboot it (Reboot only).
	PhaseRebooting HostMaintenancePhase = "Rebooting"
	// PhaseCompleted: a Reboot request is done: rebooted and released.
	PhaseCompleted HostMaintenancePhase = "Completed"
	// PhaseActive: a Pair or Taint request is in effect (Taint: the host
	// carries the taint). It stays Active until deleted.
	PhaseActive HostMaintenancePhase = "Active"
	// PhaseRejected: the request cannot be served (see the Admitted
	// condition's reason). Terminal; delete it.
	PhaseRejected HostMaintenancePhase = "Rejected"
)

// Terminal reports whether the phase is final.
func (p HostMaintenancePhase) Terminal() bool {
	return p == PhaseCompleted || p == PhaseRejected
}

// Condition types of a HostMaintenance.
const (
	// ConditionAdmitted is True once the request holds the node (it got its
	// place within the pool's maxUnavailable); False with a reason while it
	// waits or when it is rejected.
	ConditionAdmitted = "Admitted"
	// ConditionDrained is True while the node is cordoned and drained for the request.
	ConditionDrained = "Drained"
	// ConditionRebooted is True once the node's daemon acknowledged the
	// reboot (Reboot only).
	ConditionRebooted = "Rebooted"
)

// Condition reasons of a HostMaintenance.
const (
	ReasonQueued          = "Queued"
	ReasonMaxUnavailable  = "MaxUnavailable"
	ReasonNodeUpdating    = "NodeUpdating"
	ReasonAdmitted        = "Admitted"
	ReasonNodeNotFound    = "NodeNotFound"
	ReasonControlPlane    = "ControlPlaneNode"
	ReasonDuplicate       = "Duplicate"
	ReasonNoPool          = "NoPool"
	ReasonDraining        = "Draining"
	ReasonDrainFailing    = "DrainFailing"
	ReasonDrained         = "Drained"
	ReasonReleased        = "Released"
	ReasonRebootRequested = "RebootRequested"
	ReasonWaitingForStage = "WaitingForStagedUpdate"
	// ReasonWaitingForRelease: the cluster upgrades to a release whose
	// config for the host's pool is not rendered yet; the host's reboot
	// waits for it, so that one reboot applies both.
	ReasonWaitingForRelease = "WaitingForReleaseRender"
	ReasonRebooted          = "Rebooted"
	ReasonCoalesced         = "CoalescedWithUpdate"
	ReasonPaired            = "Paired"
	ReasonTainted           = "Tainted"
)

// HostMaintenanceSpec is the request. It cannot be changed once created:
// delete the request and create another.
type HostMaintenanceSpec struct {
	// nodeName is the tenant Node to act on.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	NodeName string `json:"nodeName"`
	// action is Drain (cordon, drain and hold until deleted), Reboot
	// (drain, reboot through the node's daemon, uncordon), Pair (the host
	// has a DPU: coordinate its updates with the DPU's) or Taint (the
	// host's DPU is down: no new pods until deleted).
	// +required
	Action HostMaintenanceAction `json:"action"`
	// reason says why, for people reading the request.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`
	// requester names who asked, e.g. the infra controller or a coordinator.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Requester string `json:"requester,omitempty"`
}

// HostMaintenanceStatus is what the tenant cluster reports.
type HostMaintenanceStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// phase is where the request stands.
	// +optional
	// +kubebuilder:validation:Enum=Pending;Draining;Drained;Rebooting;Completed;Rejected;Active
	Phase HostMaintenancePhase `json:"phase,omitempty"`
	// message explains the phase to a person.
	// +optional
	Message string `json:"message,omitempty"`
	// conditions: Admitted, Drained, Rebooted.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// rebootToken is the token written to the node's rebootRequest
	// annotation for this request (Reboot only).
	// +optional
	RebootToken string `json:"rebootToken,omitempty"`
	// coalescedConfig names the rendered config whose update the reboot
	// also applied, when it was coalesced with a staged update.
	// +optional
	CoalescedConfig string `json:"coalescedConfig,omitempty"`
	// pendingUpdate (Pair only) names the rendered config the host's pool
	// rolls out and the host does not run yet: the host is about to be
	// drained for its own update. The infra side reads it to ask for the
	// DPU's maintenance now, so that the same drain serves both.
	// +optional
	PendingUpdate string `json:"pendingUpdate,omitempty"`
	// holdUpdateUntil (Pair only): until then the host's pending update
	// waits for its DPU to ask for maintenance; after it, the update goes
	// ahead on its own.
	// +optional
	HoldUpdateUntil *metav1.Time `json:"holdUpdateUntil,omitempty"`
	// admittedTime is when the request got the node.
	// +optional
	AdmittedTime *metav1.Time `json:"admittedTime,omitempty"`
	// drainedTime is when the node was drained for the request.
	// +optional
	DrainedTime *metav1.Time `json:"drainedTime,omitempty"`
	// rebootRequestedTime is when the node's daemon was asked to reboot.
	// +optional
	RebootRequestedTime *metav1.Time `json:"rebootRequestedTime,omitempty"`
	// completedTime is when the request reached Completed or Rejected.
	// +optional
	CompletedTime *metav1.Time `json:"completedTime,omitempty"`
}

// HostMaintenance asks the tenant cluster to drain (and hold) or reboot one
// of its hosts, typically because the host's DPU is about to reboot.
//
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=hm
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.spec.nodeName`
// +kubebuilder:printcolumn:name="Action",type=string,JSONPath=`.spec.action`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Requester",type=string,JSONPath=`.spec.requester`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HostMaintenance struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the request; it is immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable; delete the request and create another"
	Spec HostMaintenanceSpec `json:"spec"`
	// status is reported by the tenant's machine-config-controller.
	// +optional
	Status HostMaintenanceStatus `json:"status,omitempty"`
}

// HostMaintenanceList is a list of HostMaintenance.
//
// +kubebuilder:object:root=true
type HostMaintenanceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HostMaintenance `json:"items"`
}
