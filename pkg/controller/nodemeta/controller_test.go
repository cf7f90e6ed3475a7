package nodemeta

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// A node update wakes the controller only when it changes what a sync
// reads: pool placement (labels), the annotations Decide compares, taints.
func TestMetaInputsChanged(t *testing.T) {
	base := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:   "worker-0",
				Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
				Annotations: map[string]string{
					constants.DesiredConfigAnnotation: "rendered-worker-a",
					constants.CurrentConfigAnnotation: "rendered-worker-a",
				},
			},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{UpdateInProgressTaint}},
		}
	}
	cases := []struct {
		name   string
		change func(n *corev1.Node)
		want   bool
	}{
		{"heartbeat", func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		}, false},
		{"resourceVersion only", func(n *corev1.Node) { n.ResourceVersion = "42" }, false},
		{"the daemon's state", func(n *corev1.Node) { n.Annotations[constants.StateAnnotation] = "Working" }, false},
		{"cordon", func(n *corev1.Node) { n.Spec.Unschedulable = true }, false},
		{"desiredConfig", func(n *corev1.Node) { n.Annotations[constants.DesiredConfigAnnotation] = "rendered-worker-b" }, true},
		{"controlPlaneTopology", func(n *corev1.Node) {
			n.Annotations[constants.ControlPlaneTopologyAnnotation] = "HighlyAvailable"
		}, true},
		{"a label", func(n *corev1.Node) { n.Labels["node-role.kubernetes.io/infra"] = "" }, true},
		{"a label removed", func(n *corev1.Node) { delete(n.Labels, "node-role.kubernetes.io/worker") }, true},
		{"taint removed", func(n *corev1.Node) { n.Spec.Taints = nil }, true},
		{"taint added", func(n *corev1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule})
		}, true},
		{"taint value", func(n *corev1.Node) { n.Spec.Taints[0].Value = "v" }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, n := base(), base()
			tc.change(n)
			if got := metaInputsChanged(o, n); got != tc.want {
				t.Errorf("metaInputsChanged = %v, want %v", got, tc.want)
			}
		})
	}
}
