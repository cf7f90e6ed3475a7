package framework

import "testing"

// Every openshift/api CRD the control planes install is read from the
// module at go.mod's version, and is what its file name says.
func TestOpenshiftCRDsComeFromTheModule(t *testing.T) {
	crds, err := loadOpenshiftCRDs()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range crds {
		got[c.Name] = true
	}
	for _, want := range []string{"machineconfigs.machineconfiguration.openshift.io", "machineconfigpools.machineconfiguration.openshift.io",
		"machineconfignodes.machineconfiguration.openshift.io", "controllerconfigs.machineconfiguration.openshift.io",
		"machineosconfigs.machineconfiguration.openshift.io", "machineconfigurations.operator.openshift.io", "schedulers.config.openshift.io"} {
		if !got[want] {
			t.Errorf("no CRD %s among %v", want, got)
		}
	}
}
