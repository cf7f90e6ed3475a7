package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
