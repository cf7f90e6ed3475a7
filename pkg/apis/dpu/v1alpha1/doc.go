// Package v1alpha1 is tandem's DPU API, group dpu.machineconfiguration.openshift.io.
//
// HostMaintenance lives in the tenant cluster. The infra (DPU) side, or an
// external coordinator, creates one to have a tenant host drained and held
// (Drain) or drained, rebooted and released (Reboot); the tenant's
// machine-config-controller carries it out and reports progress in status.
// docs/dpu.md describes the protocol.
//
// +kubebuilder:object:generate=true
// +groupName=dpu.machineconfiguration.openshift.io
package v1alpha1
