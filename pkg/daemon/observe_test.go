package daemon

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// On-cluster layering's node annotations (the MCO's
// pkg/daemon/constants CurrentImageAnnotationKey and
// DesiredImageAnnotationKey, release-4.21 db84d8368ef7), which make the
// MCO's daemon rebase to a built image. tandem does not roll out on-cluster
// layering (its controller refuses a pool a MachineOSConfig selects), so its
// daemon must not act on them: a node carrying them reads exactly as the
// same node without them.
func TestNodeStateIgnoresLayeredImageAnnotations(t *testing.T) {
	const (
		currentImage = "machineconfiguration.openshift.io/currentImage"
		desiredImage = "machineconfiguration.openshift.io/desiredImage"
	)
	plain := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Annotations: map[string]string{
		constants.CurrentConfigAnnotation: "rendered-worker-a", constants.DesiredConfigAnnotation: "rendered-worker-a",
		constants.StateAnnotation: constants.MachineConfigDaemonStateDone,
	}}}
	layered := plain.DeepCopy()
	layered.Annotations[currentImage] = "registry.example.com/layered/worker@sha256:" + sha('a')
	layered.Annotations[desiredImage] = "registry.example.com/layered/worker@sha256:" + sha('b')
	if got, want := NodeStateOf(layered), NodeStateOf(plain); !reflect.DeepEqual(got, want) {
		t.Errorf("the image annotations changed what the daemon reads:\n got %+v\nwant %+v", got, want)
	}
}

func sha(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
