//go:build integration

// Package dpu_test runs tandem's DPU pairing on real control planes: the
// HostMaintenance API and its RBAC, the tenant controller with kwok
// kubelets and the real drain controller, and two clusters (tenant + infra)
// whose nodes run the real machine-config-daemon with the rpm-ostree double.
package dpu_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/test/framework"
)

const workloadNS = "workload"

// waitFor polls cond until it holds, for at most within (each wait has its
// own bound, never the test's deadline), and fails with what it last saw.
func waitFor(t *testing.T, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if t.Context().Err() != nil || time.Now().After(deadline) {
			t.Fatalf("gave up waiting %s for %s; last: %s", within, what, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitNodesReady waits, for at most two minutes, until every named node
// reports Ready.
func waitNodesReady(t *testing.T, kube kubernetes.Interface, names ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := framework.WaitForNodesReady(ctx, kube, names...); err != nil {
		t.Fatalf("nodes %v not Ready within 2m: %v", names, err)
	}
}

// syncWithin waits, for at most a minute, for an informer factory's caches.
func syncWithin(t *testing.T, f informers.SharedInformerFactory) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("cache of %v not synced within 1m", typ)
		}
	}
}

func hmClient(t *testing.T, cfg *rest.Config) *dpu.HostMaintenances {
	t.Helper()
	c, err := dpu.NewHostMaintenances(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// applyManifest creates every object of a manifests/ YAML file.
func applyManifest(t *testing.T, kube kubernetes.Interface, path string) {
	t.Helper()
	if err := framework.ApplyManifest(t.Context(), kube, path); err != nil {
		t.Fatal(err)
	}
}

func ensureNamespace(t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	_, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

// workloadPods counts the pods on a node that are not terminal: those of
// DaemonSets, and the others.
func workloadPods(ctx context.Context, kube kubernetes.Interface, node string) (other, daemonSet int, err error) {
	pods, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
	if err != nil {
		return 0, 0, err
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		owned := false
		for _, o := range p.OwnerReferences {
			if o.Kind == "DaemonSet" {
				owned = true
			}
		}
		if owned {
			daemonSet++
		} else {
			other++
		}
	}
	return other, daemonSet, nil
}

// pinnedDeployment runs replicas pods on node only (a hard nodeSelector,
// never a soft spreading preference): evicted pods wait Pending for the
// node to come back.
func pinnedDeployment(name, node string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: workloadNS},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:   []corev1.Container{{Name: "app", Image: "app"}},
					NodeSelector: map[string]string{"kubernetes.io/hostname": node},
				},
			},
		},
	}
}

// runAppsOn starts two app pods pinned to each node (Deployments app-<node>).
func runAppsOn(t *testing.T, kube kubernetes.Interface, nodes ...string) {
	t.Helper()
	for _, n := range nodes {
		if _, err := kube.AppsV1().Deployments(workloadNS).Create(t.Context(), pinnedDeployment("app-"+n, n, 2), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitAppsOn waits until every node runs its app pods and the agent.
func waitAppsOn(t *testing.T, kube kubernetes.Interface, nodes ...string) {
	t.Helper()
	waitFor(t, "app pods on "+strings.Join(nodes, ", "), 3*time.Minute, func() (bool, string) {
		var s []string
		ok := true
		for _, n := range nodes {
			other, ds, err := workloadPods(t.Context(), kube, n)
			if err != nil {
				return false, err.Error()
			}
			ok = ok && other > 0 && ds == 1
			s = append(s, fmt.Sprintf("%s: app=%d agent=%d", n, other, ds))
		}
		return ok, strings.Join(s, ", ")
	})
}

func daemonSet(name string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: workloadNS},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent"}}},
			},
		},
	}
}

func nodeSummary(n *corev1.Node) string {
	var parts []string
	for k, v := range n.Annotations {
		if strings.HasPrefix(k, "machineconfiguration.openshift.io/") || strings.HasPrefix(k, "dpu.machineconfiguration.openshift.io/") {
			parts = append(parts, fmt.Sprintf("%s=%s", k[strings.LastIndex(k, "/")+1:], v))
		}
	}
	return fmt.Sprintf("%s unschedulable=%v %v", n.Name, n.Spec.Unschedulable, parts)
}
