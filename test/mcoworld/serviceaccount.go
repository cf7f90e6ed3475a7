package mcoworld

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Identity is what a kubelet gives a pod's containers to reach the API
// server as the pod's service account: the projected token volume
// (a TokenRequest bound to the pod, so that the API server adds the
// node-name claim the MCO's admission policies read) at
// /var/run/secrets/kubernetes.io/serviceaccount, and the
// KUBERNETES_SERVICE_HOST and _PORT variables of the kubernetes Service.
type Identity struct {
	// Server is the API server's URL; CA its serving certificate's CA.
	Server string
	CA     []byte
	// PodNS is the podns binary (cmd/podns), which mounts a pod's secrets
	// directory over /var/run/secrets for the process it execs.
	PodNS string
}

// tokenLifetime is the token's; a kubelet refreshes it at 80% of its life,
// the stand-in never does: longer than any test world lives.
const tokenLifetime = 6 * 3600

// mount writes pod's service account files under dir (dir/kubernetes.io/
// serviceaccount) and returns the environment the container gets.
func (id *Identity) mount(ctx context.Context, k *Kubelet, pod *corev1.Pod, dir string) ([]string, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	exp := int64(tokenLifetime)
	tr, err := k.Kube.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: &exp,
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("a token for service account %s/%s (pod %s): %w", pod.Namespace, sa, pod.Name, err)
	}
	sadir := filepath.Join(dir, "kubernetes.io", "serviceaccount")
	if err := os.MkdirAll(sadir, 0o755); err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"token": []byte(tr.Status.Token), "ca.crt": id.CA, "namespace": []byte(pod.Namespace)} {
		if err := os.WriteFile(filepath.Join(sadir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	u, err := url.Parse(id.Server)
	if err != nil {
		return nil, fmt.Errorf("API server %q: %w", id.Server, err)
	}
	return []string{"KUBERNETES_SERVICE_HOST=" + u.Hostname(), "KUBERNETES_SERVICE_PORT=" + u.Port()}, nil
}

// Wrap is the command line that runs argv with c's service account
// files and Secret volumes mounted at the pod's paths.
func (id *Identity) Wrap(c Container, argv ...string) []string {
	out := []string{id.PodNS}
	if len(c.Volumes) > 0 {
		out = append(out, "-scratch", c.Scratch)
		for _, target := range slices.Sorted(maps.Keys(c.Volumes)) {
			out = append(out, "-v", c.Volumes[target]+":"+target)
		}
	}
	return append(append(out, c.Secrets, "--"), argv...)
}
