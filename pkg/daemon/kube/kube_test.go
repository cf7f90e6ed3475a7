package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestPoolName(t *testing.T) {
	for want, labels := range map[string]map[string]string{
		"master":     {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/worker": ""},
		"worker":     {"node-role.kubernetes.io/worker": ""},
		"dpu-worker": {"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/dpu-worker": ""},
	} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
		if got := PoolName(n); got != want {
			t.Errorf("PoolName(%v) = %s, want %s", labels, got, want)
		}
	}
	if got := PoolName(&corev1.Node{}); got != "worker" {
		t.Errorf("unlabelled node: %s", got)
	}
}

// TestDecisionInputChanged: a status heartbeat does not wake the daemon;
// what it decides on (annotations, labels, spec) does.
func TestDecisionInputChanged(t *testing.T) {
	base := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "1",
				Annotations: map[string]string{"a": "1"}, Labels: map[string]string{"l": "1"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
	}
	for name, tc := range map[string]struct {
		edit func(*corev1.Node)
		want bool
	}{
		"status heartbeat": {func(n *corev1.Node) {
			n.ResourceVersion = "2"
			n.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
		}, false},
		"annotation":         {func(n *corev1.Node) { n.Annotations["a"] = "2" }, true},
		"annotation removed": {func(n *corev1.Node) { delete(n.Annotations, "a") }, true},
		"label":              {func(n *corev1.Node) { n.Labels["m"] = "" }, true},
		"cordon":             {func(n *corev1.Node) { n.Spec.Unschedulable = true }, true},
		"taint":              {func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}} }, true},
		"nothing":            {func(*corev1.Node) {}, false},
		"resync":             {func(n *corev1.Node) { n.ResourceVersion = "1" }, false},
	} {
		o, n := base(), base()
		tc.edit(n)
		if got := decisionInputChanged(o, n); got != tc.want {
			t.Errorf("%s: decisionInputChanged = %v, want %v", name, got, tc.want)
		}
	}
	if !decisionInputChanged(cache.DeletedFinalStateUnknown{}, base()) {
		t.Error("an object that is not a node must wake the daemon")
	}
}
