package daemon

import (
	opv1 "github.com/openshift/api/operator/v1"
)

// Paths and units of the MCO's built-in node disruption policies
// (openshift/machine-config-operator pkg/apihelpers/apihelpers.go
// defaultClusterPolicies and pkg/daemon/constants/constants.go, release-4.20
// at afed09939d80).
const (
	KubeletAuthFile             = "/var/lib/kubelet/config.json"
	GPGNoRebootPath             = "/etc/machine-config-daemon/no-reboot/containers-gpg.pub"
	ContainerRegistryPolicyPath = "/etc/containers/policy.json"
	ContainerRegistryConfPath   = "/etc/containers/registries.conf"
	SigstoreRegistriesConfigDir = "/etc/containers/registries.d"
	CrioPoliciesDir             = "/etc/crio/policies"
	OpenShiftNMStateConfigDir   = "/etc/nmstate/openshift"
	UserCABundlePath            = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"
	UpdateCATrustServiceName    = "coreos-update-ca-trust.service"
	CRIOServiceName             = "crio.service"
)

func none() []opv1.NodeDisruptionPolicyStatusAction {
	return []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.NoneStatusAction}}
}

func reload(unit string) opv1.NodeDisruptionPolicyStatusAction {
	return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: opv1.NodeDisruptionPolicyServiceName(unit)}}
}

func restart(unit string) opv1.NodeDisruptionPolicyStatusAction {
	return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: opv1.NodeDisruptionPolicyServiceName(unit)}}
}

// DefaultClusterPolicies returns the MCO's built-in node disruption policies:
// the pull secret needs nothing, the image signature and policy files and
// the sigstore and crio policy directories a crio reload, registries.conf the
// Special action (crio reload, drain only for an unsafe change), the
// nmstate directory nothing, the user CA bundle a restart of the CA trust
// service and crio, and an SSH key change nothing.
func DefaultClusterPolicies() opv1.NodeDisruptionPolicyClusterStatus {
	f := func(path string, actions ...opv1.NodeDisruptionPolicyStatusAction) opv1.NodeDisruptionPolicyStatusFile {
		return opv1.NodeDisruptionPolicyStatusFile{Path: path, Actions: actions}
	}
	return opv1.NodeDisruptionPolicyClusterStatus{
		Files: []opv1.NodeDisruptionPolicyStatusFile{
			f(KubeletAuthFile, none()...),
			f(GPGNoRebootPath, reload(CRIOServiceName)),
			f(ContainerRegistryPolicyPath, reload(CRIOServiceName)),
			f(ContainerRegistryConfPath, opv1.NodeDisruptionPolicyStatusAction{Type: opv1.SpecialStatusAction}),
			f(SigstoreRegistriesConfigDir, reload(CRIOServiceName)),
			f(CrioPoliciesDir, reload(CRIOServiceName)),
			f(OpenShiftNMStateConfigDir, none()...),
			f(UserCABundlePath, restart(UpdateCATrustServiceName), restart(CRIOServiceName)),
		},
		SSHKey: opv1.NodeDisruptionPolicyStatusSSHKey{Actions: none()},
	}
}

// MergeClusterPolicies merges an admin's NodeDisruptionPolicy (the spec of
// MachineConfiguration cluster) into the defaults the way the MCO's operator
// fills status.nodeDisruptionPolicyStatus (apihelpers.MergeClusterPolicies,
// same file and tag): a file or unit policy of the same path or name replaces
// the default in place, others are appended in order; an SSH policy with
// actions replaces the default one.
func MergeClusterPolicies(spec opv1.NodeDisruptionPolicyConfig) opv1.NodeDisruptionPolicyClusterStatus {
	out := DefaultClusterPolicies()
	defaults := len(out.Files)
	for _, uf := range spec.Files {
		sf := opv1.NodeDisruptionPolicyStatusFile{Path: uf.Path, Actions: statusActions(uf.Actions)}
		replaced := false
		for i := 0; i < defaults; i++ {
			if out.Files[i].Path == uf.Path {
				out.Files[i], replaced = sf, true
				break
			}
		}
		if !replaced {
			out.Files = append(out.Files, sf)
		}
	}
	for _, uu := range spec.Units {
		out.Units = append(out.Units, opv1.NodeDisruptionPolicyStatusUnit{Name: uu.Name, Actions: statusActions(uu.Actions)})
	}
	if len(spec.SSHKey.Actions) > 0 {
		out.SSHKey = opv1.NodeDisruptionPolicyStatusSSHKey{Actions: statusActions(spec.SSHKey.Actions)}
	}
	return out
}

// statusActions converts spec actions to status actions (Reload and Restart
// keep their service name).
func statusActions(in []opv1.NodeDisruptionPolicySpecAction) []opv1.NodeDisruptionPolicyStatusAction {
	out := []opv1.NodeDisruptionPolicyStatusAction{}
	for _, a := range in {
		s := opv1.NodeDisruptionPolicyStatusAction{Type: opv1.NodeDisruptionPolicyStatusActionType(a.Type)}
		if a.Reload != nil {
			s.Reload = &opv1.ReloadService{ServiceName: a.Reload.ServiceName}
		}
		if a.Restart != nil {
			s.Restart = &opv1.RestartService{ServiceName: a.Restart.ServiceName}
		}
		out = append(out, s)
	}
	return out
}

// ClusterPolicies returns the policies to apply: the status the MCO's
// operator wrote when it is current (observedGeneration matches), else the
// spec merged into the defaults here, else the defaults when there is no
// MachineConfiguration cluster at all (tandem without the MCO's operator).
func ClusterPolicies(mc *opv1.MachineConfiguration) opv1.NodeDisruptionPolicyClusterStatus {
	if mc == nil {
		return DefaultClusterPolicies()
	}
	st := mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies
	if mc.Status.ObservedGeneration == mc.Generation && (len(st.Files) > 0 || len(st.Units) > 0 || len(st.SSHKey.Actions) > 0) {
		return st
	}
	return MergeClusterPolicies(mc.Spec.NodeDisruptionPolicy)
}
