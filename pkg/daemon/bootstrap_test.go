package daemon

import (
	"reflect"
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A new node's first start, from the MCO's loadNodeAnnotations and
// checkStateOnFirstRun (pkg/daemon/node.go, daemon.go, release-4.21).
func TestNextBootstraps(t *testing.T) {
	initial := map[string]string{
		constants.CurrentConfigAnnotation: "a", constants.DesiredConfigAnnotation: "a", constants.StateAnnotation: done,
	}
	withFile := func(m map[string]string) func(*Observed) { return func(o *Observed) { o.InitialAnnotations = m } }
	fresh := node(func(n *NodeState) { *n = NodeState{} })
	cases := []struct {
		name string
		o    Observed
		want Action
	}{
		{"a Node without currentConfig takes the machine-config-server's annotations", world(fresh, withFile(initial)),
			Action{Kind: ActLoadInitialAnnotations, Config: "a", Reason: "the node has no currentConfig; " + InitialAnnotationsPath + " names a"}},
		{"a file without currentConfig is reported", world(fresh, withFile(map[string]string{})),
			Action{Kind: ActReportDegraded, Reason: InitialAnnotationsPath + " names no " + constants.CurrentConfigAnnotation}},
		{"the booted OS is the current config's: the on-disk currentconfig and the .bak", world(withFile(initial)),
			Action{Kind: ActFinishBootstrap, Config: "a"}},
		{"the booted OS is not the current config's: no pivot; the validation reports it", world(withFile(initial),
			func(o *Observed) { o.OS.Booted = Deployment{Checksum: csB, Image: imgB} }),
			Action{Kind: ActReportDegraded, Reason: `unexpected on-disk state validating against a: expected target osImageURL "` + imgA + `", have "` + imgB + `"`}},
		{"a Node that has currentConfig keeps it; the file is only retired", world(node(func(n *NodeState) { n.Current, n.Desired = "c", "c" }), withFile(initial)),
			Action{Kind: ActFinishBootstrap, Config: "c"}},
		{"no file: nothing of the bootstrap", world(fresh), Action{Kind: ActWait, Reason: "node runs "}},
		{"an update in progress comes first", world(withFile(initial), record(Record{Config: "b", FromConfig: "a", Phase: PhaseWriting})),
			Action{Kind: ActRollbackFiles, Reason: "the daemon stopped while writing files"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Next(c.o); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Next:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestInitialAnnotationsToSet(t *testing.T) {
	got := initialAnnotationsToSet(map[string]string{constants.CurrentConfigAnnotation: "a", "machineconfiguration.openshift.io/currentImage": "img"})
	want := map[string]string{constants.CurrentConfigAnnotation: "a", constants.DesiredConfigAnnotation: "a", constants.StateAnnotation: done}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
