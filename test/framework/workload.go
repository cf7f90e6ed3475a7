package framework

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Workload is the guarded workload every drain of a world meets: the
// Deployment "web" on the nodes of NodeSelector with a PodDisruptionBudget
// that lets one pod down at a time, and a DaemonSet "node-agent" on every
// node (drains leave it).
type Workload struct {
	Namespace    string
	Replicas     int
	NodeSelector map[string]string
	// SpreadOverNodes puts at most one pod more on a node than on any other
	// (a hard constraint, DoNotSchedule): a pod evicted from a cordoned node
	// waits for it instead of doubling up elsewhere, so the next drain finds
	// the budget spent until the first node is back.
	SpreadOverNodes bool
}

// WorkloadSelector selects the Deployment's pods.
const WorkloadSelector = "app=web"

// StartWorkload creates the workload and waits (at most 2 minutes) until all
// its replicas are Ready.
func StartWorkload(ctx context.Context, kube kubernetes.Interface, w Workload) error {
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.Namespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", w.Namespace, err)
	}
	labels := map[string]string{"app": "web"}
	spec := corev1.PodSpec{
		NodeSelector: w.NodeSelector,
		Containers:   []corev1.Container{{Name: "web", Image: "registry.invalid/web:1"}},
	}
	if w.SpreadOverNodes {
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
		}}
	}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: w.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(w.Replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}
	if _, err := kube.AppsV1().Deployments(w.Namespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating deployment: %w", err)
	}
	minAvailable := intstr.FromInt(w.Replicas - 1)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: w.Namespace},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	if _, err := kube.PolicyV1().PodDisruptionBudgets(w.Namespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PDB: %w", err)
	}
	agentLabels := map[string]string{"app": "node-agent"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: w.Namespace},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: agentLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: agentLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.invalid/agent:1"}}},
			},
		},
	}
	if _, err := kube.AppsV1().DaemonSets(w.Namespace).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating daemonset: %w", err)
	}
	return WaitWorkloadReady(ctx, kube, w.Namespace, w.Replicas)
}

// WaitWorkloadReady waits (at most 2 minutes) until n pods of the workload's
// Deployment are Ready.
func WaitWorkloadReady(ctx context.Context, kube kubernetes.Interface, namespace string, n int) error {
	return Await(ctx, fmt.Sprintf("the workload's %d ready pods", n), 2*time.Minute, 250*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			d, err := kube.AppsV1().Deployments(namespace).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			return int(d.Status.ReadyReplicas) >= n, fmt.Sprintf("deployment web: %d ready, %d available, conditions %v",
				d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.Conditions), nil
		})
}

// IsDaemonSetPod reports whether a pod belongs to a DaemonSet.
func IsDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
