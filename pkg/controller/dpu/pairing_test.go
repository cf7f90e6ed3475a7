package dpu

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func TestParseEnvOverrides(t *testing.T) {
	data := map[string]string{
		// The dpu-network-operator's sample.
		"bf2-worker-advnetlab13": "OVN_KUBE_LOG_LEVEL=5\nOVN_LOG_LEVEL=dbg\nTENANT_K8S_NODE=worker-advnetlab13\nSMART_NIC_IP=192.168.111.57\nMGMT_IFNAME=c1pf0vf0\n",
		"bf2-quoted":             "# comment\n  TENANT_K8S_NODE = \"worker-quoted\"  \n",
		"bf2-export":             "export TENANT_K8S_NODE='worker-export'",
		"bf2-none":               "MGMT_IFNAME=eth3\n",
		"bf2-empty":              "TENANT_K8S_NODE=\n",
		"bf2-prefix":             "NOT_TENANT_K8S_NODE=x\n",
	}
	want := map[string]string{
		"bf2-worker-advnetlab13": "worker-advnetlab13",
		"bf2-quoted":             "worker-quoted",
		"bf2-export":             "worker-export",
	}
	if got := ParseEnvOverrides(data); !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTenantHostOf(t *testing.T) {
	imported := map[string]string{"dpu-0": "host-from-cm", "dpu-1": "host-1"}
	annotated := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "dpu-0",
		Annotations: map[string]string{constants.TenantNodeAnnotation: "host-from-annotation"}}}
	plain := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "dpu-1"}}
	unpaired := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "dpu-9"}}
	for _, tt := range []struct {
		n    *corev1.Node
		want string
	}{{annotated, "host-from-annotation"}, {plain, "host-1"}, {unpaired, ""}} {
		if got := TenantHostOf(tt.n, imported); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.n.Name, got, tt.want)
		}
	}
}
