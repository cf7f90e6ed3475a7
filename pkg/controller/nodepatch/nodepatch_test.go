package nodepatch

import "testing"

func TestPatch(t *testing.T) {
	var p Patch
	b, err := p.Test("machineconfiguration.openshift.io/desiredConfig", "rendered-a", true).
		Test("machineconfiguration.openshift.io/state", "", false).
		Test("a~b", "", true).
		Replace("machineconfiguration.openshift.io/desiredConfig", "rendered-b").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"test","path":"/metadata/annotations/machineconfiguration.openshift.io~1desiredConfig","value":"rendered-a"},` +
		`{"op":"test","path":"/metadata/annotations/machineconfiguration.openshift.io~1state","value":null},` +
		`{"op":"test","path":"/metadata/annotations/a~0b","value":""},` +
		`{"op":"replace","path":"/metadata/annotations/machineconfiguration.openshift.io~1desiredConfig","value":"rendered-b"}]`
	if string(b) != want {
		t.Errorf("patch\n got %s\nwant %s", b, want)
	}
}
