package daemon

import (
	"reflect"
	"testing"

	opv1 "github.com/openshift/api/operator/v1"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// The expected actions below are read off the MCO's rules
// (calculatePostConfigChangeNodeDisruptionActionFromMCDiffs and
// isDrainRequiredForNodeDisruptionActions, pkg/daemon/update.go and
// drain.go, release-4.20 at afed09939d80) and its default policies
// (pkg/apihelpers/apihelpers.go), not from PlanDisruption.
func TestPlanDisruption(t *testing.T) {
	specReload := func(unit string) opv1.NodeDisruptionPolicySpecAction {
		return opv1.NodeDisruptionPolicySpecAction{Type: opv1.ReloadSpecAction, Reload: &opv1.ReloadService{ServiceName: opv1.NodeDisruptionPolicyServiceName(unit)}}
	}
	admin := MergeClusterPolicies(opv1.NodeDisruptionPolicyConfig{
		Files: []opv1.NodeDisruptionPolicySpecFile{
			{Path: "/etc/chrony.conf", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.RestartSpecAction, Restart: &opv1.RestartService{ServiceName: "chronyd.service"}}}},
			{Path: "/etc/app", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.DrainSpecAction}, specReload("app.service")}},
			{Path: "/etc/app/big", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.RebootSpecAction}}},
			{Path: "/var/lib/kubelet/config.json", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.DaemonReloadSpecAction}}},
		},
		Units: []opv1.NodeDisruptionPolicySpecUnit{
			{Name: "app.service", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.DaemonReloadSpecAction}, {Type: opv1.NoneSpecAction}}},
		},
	})
	defaults := DefaultClusterPolicies()
	reboot := []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.RebootStatusAction}}
	noneA := []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.NoneStatusAction}}
	crioReload := opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: "crio.service"}}
	special := opv1.NodeDisruptionPolicyStatusAction{Type: opv1.SpecialStatusAction}
	cases := []struct {
		name     string
		diff     mcfg.Diff
		policies opv1.NodeDisruptionPolicyClusterStatus
		force    bool
		want     []opv1.NodeDisruptionPolicyStatusAction
		drain    bool
	}{
		{name: "empty diff: None, no drain", want: noneA},
		{name: "OS image", diff: mcfg.Diff{OSUpdate: true, Files: []string{"/var/lib/kubelet/config.json"}}, want: reboot, drain: true},
		{name: "kernel arguments", diff: mcfg.Diff{KernelArgs: true}, want: reboot, drain: true},
		{name: "FIPS", diff: mcfg.Diff{FIPS: true}, want: reboot, drain: true},
		{name: "kernel type", diff: mcfg.Diff{KernelType: true}, want: reboot, drain: true},
		{name: "extensions", diff: mcfg.Diff{Extensions: true}, want: reboot, drain: true},
		{name: "force file reboots even an SSH key change", diff: mcfg.Diff{Passwd: true}, force: true, want: reboot, drain: true},
		{name: "SSH key: None", diff: mcfg.Diff{Passwd: true}, want: noneA},
		{name: "pull secret: None", diff: mcfg.Diff{Files: []string{"/var/lib/kubelet/config.json"}}, want: noneA},
		{name: "registries.conf, safe change: Special without drain", diff: mcfg.Diff{Files: []string{"/etc/containers/registries.conf"}, RegistriesConfSafe: true}, want: []opv1.NodeDisruptionPolicyStatusAction{special}},
		{name: "registries.conf, unsafe change: Special with drain", diff: mcfg.Diff{Files: []string{"/etc/containers/registries.conf"}}, want: []opv1.NodeDisruptionPolicyStatusAction{special}, drain: true},
		{name: "SSH key, pull secret and registries.conf together: None dropped", diff: mcfg.Diff{Passwd: true, Files: []string{"/etc/containers/registries.conf", "/var/lib/kubelet/config.json"}, RegistriesConfSafe: true},
			want: []opv1.NodeDisruptionPolicyStatusAction{special}},
		{name: "policy.json: reload crio", diff: mcfg.Diff{Files: []string{"/etc/containers/policy.json"}}, want: []opv1.NodeDisruptionPolicyStatusAction{crioReload}},
		{name: "a file under registries.d: reload crio (directory policy)", diff: mcfg.Diff{Files: []string{"/etc/containers/registries.d/quay.yaml"}}, want: []opv1.NodeDisruptionPolicyStatusAction{crioReload}},
		{name: "a sibling with a common prefix is not under the directory", diff: mcfg.Diff{Files: []string{"/etc/containers/registries.dx"}}, want: reboot, drain: true},
		{name: "user CA bundle: two restarts in order", diff: mcfg.Diff{Files: []string{"/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"}},
			want: []opv1.NodeDisruptionPolicyStatusAction{
				{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: "coreos-update-ca-trust.service"}},
				{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: "crio.service"}}}},
		{name: "nmstate directory: None", diff: mcfg.Diff{Files: []string{"/etc/nmstate/openshift/br-ex.yml"}}, want: noneA},
		{name: "an unlisted file reboots", diff: mcfg.Diff{Files: []string{"/etc/containers/policy.json", "/etc/motd"}}, want: reboot, drain: true},
		{name: "an unlisted unit reboots", diff: mcfg.Diff{Units: []string{"kubelet.service"}}, want: reboot, drain: true},
		{name: "admin file policy: restart", diff: mcfg.Diff{Files: []string{"/etc/chrony.conf"}}, policies: admin,
			want: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: "chronyd.service"}}}},
		{name: "admin policy overrides a default in place", diff: mcfg.Diff{Files: []string{"/var/lib/kubelet/config.json"}}, policies: admin,
			want: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.DaemonReloadStatusAction}}},
		{name: "admin directory policy: drain and reload", diff: mcfg.Diff{Files: []string{"/etc/app/conf.d/x"}}, policies: admin,
			want: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.DrainStatusAction}, {Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: "app.service"}}}, drain: true},
		{name: "longest path wins: reboot", diff: mcfg.Diff{Files: []string{"/etc/app/big"}}, policies: admin, want: reboot, drain: true},
		{name: "admin unit policy, its None dropped", diff: mcfg.Diff{Units: []string{"app.service"}}, policies: admin,
			want: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.DaemonReloadStatusAction}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policies
			if p.Files == nil && p.Units == nil {
				p = defaults
			}
			got := PlanDisruption(tc.diff, p, tc.force)
			if !reflect.DeepEqual(got.Actions, tc.want) || got.Drain != tc.drain {
				t.Fatalf("got actions %s drain=%v (%s), want %s drain=%v", describeActions(got.Actions), got.Drain, got.Why, describeActions(tc.want), tc.drain)
			}
			if wantReboot := len(tc.want) == 1 && tc.want[0].Type == opv1.RebootStatusAction; got.Reboot != wantReboot {
				t.Fatalf("Reboot = %v, want %v", got.Reboot, wantReboot)
			}
		})
	}
}

func TestClusterPolicies(t *testing.T) {
	spec := opv1.NodeDisruptionPolicyConfig{SSHKey: opv1.NodeDisruptionPolicySpecSSHKey{Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.DrainSpecAction}}}}
	written := opv1.NodeDisruptionPolicyClusterStatus{SSHKey: opv1.NodeDisruptionPolicyStatusSSHKey{Actions: []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.RebootStatusAction}}}}
	mk := func(gen, observed int64, status opv1.NodeDisruptionPolicyClusterStatus) *opv1.MachineConfiguration {
		m := &opv1.MachineConfiguration{}
		m.Generation, m.Status.ObservedGeneration = gen, observed
		m.Spec.NodeDisruptionPolicy = spec
		m.Status.NodeDisruptionPolicyStatus.ClusterPolicies = status
		return m
	}
	if got := ClusterPolicies(nil); !reflect.DeepEqual(got, DefaultClusterPolicies()) {
		t.Errorf("without MachineConfiguration: %+v, want the defaults", got)
	}
	if got := ClusterPolicies(mk(2, 2, written)).SSHKey.Actions[0].Type; got != opv1.RebootStatusAction {
		t.Errorf("current status not used: SSH action %s", got)
	}
	if got := ClusterPolicies(mk(3, 2, written)).SSHKey.Actions[0].Type; got != opv1.DrainStatusAction {
		t.Errorf("stale status used instead of the spec merged into the defaults: SSH action %s", got)
	}
	merged := ClusterPolicies(mk(1, 1, opv1.NodeDisruptionPolicyClusterStatus{}))
	if merged.SSHKey.Actions[0].Type != opv1.DrainStatusAction || len(merged.Files) != len(DefaultClusterPolicies().Files) {
		t.Errorf("empty status: %+v, want the spec merged into the defaults", merged)
	}
	// The defaults, as listed in apihelpers.defaultClusterPolicies.
	d := DefaultClusterPolicies()
	var paths []string
	for _, f := range d.Files {
		paths = append(paths, f.Path)
	}
	want := []string{"/var/lib/kubelet/config.json", "/etc/machine-config-daemon/no-reboot/containers-gpg.pub", "/etc/containers/policy.json",
		"/etc/containers/registries.conf", "/etc/containers/registries.d", "/etc/crio/policies", "/etc/nmstate/openshift",
		"/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"}
	if !reflect.DeepEqual(paths, want) || d.SSHKey.Actions[0].Type != opv1.NoneStatusAction || len(d.Units) != 0 {
		t.Errorf("defaults = %v ssh=%v units=%v", paths, d.SSHKey.Actions, d.Units)
	}
}
