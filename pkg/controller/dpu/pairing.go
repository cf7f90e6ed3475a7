package dpu

import (
	"bufio"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// TenantNodeEnv is the dpu-network-operator's env-overrides key naming the
// tenant host of a DPU node.
const TenantNodeEnv = "TENANT_K8S_NODE"

// ParseEnvOverrides reads the dpu-network-operator's env-overrides
// ConfigMap: each key is a DPU node's name, each value env-file lines
// (KEY=VALUE) among which TENANT_K8S_NODE names the tenant host. It returns
// DPU node -> tenant host for the entries that name one.
func ParseEnvOverrides(data map[string]string) map[string]string {
	out := map[string]string{}
	for dpuNode, env := range data {
		sc := bufio.NewScanner(strings.NewReader(env))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			line = strings.TrimPrefix(line, "export ")
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.TrimSpace(k) != TenantNodeEnv {
				continue
			}
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			if v != "" {
				out[dpuNode] = v
			}
		}
	}
	return out
}

// TenantHostOf returns the tenant host paired with an infra node: its
// TenantNodeAnnotation, else the imported mapping; "" when unpaired.
func TenantHostOf(n *corev1.Node, imported map[string]string) string {
	if h := strings.TrimSpace(n.Annotations[constants.TenantNodeAnnotation]); h != "" {
		return h
	}
	return imported[n.Name]
}
