package world

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// WorkloadNamespace holds the tenant workload.
const WorkloadNamespace = "workload"

// startWorkload runs a Deployment on the tenant workers whose PDB allows one
// pod down at a time, and a DaemonSet on every tenant node (drains skip it).
func (w *World) startWorkload(ctx context.Context) error {
	kube := w.Tenant.CP.Kube
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: WorkloadNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace: %w", err)
	}
	labels := map[string]string{"app": "web"}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
			Containers:   []corev1.Container{{Name: "web", Image: "registry.invalid/web:1"}},
		},
	}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: WorkloadNamespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(w.Opts.Replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: pod,
		},
	}
	if _, err := kube.AppsV1().Deployments(WorkloadNamespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating deployment: %w", err)
	}
	minAvailable := intstr.FromInt(w.Opts.Replicas - 1)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: WorkloadNamespace},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	if _, err := kube.PolicyV1().PodDisruptionBudgets(WorkloadNamespace).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PDB: %w", err)
	}
	agentLabels := map[string]string{"app": "node-agent"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: WorkloadNamespace},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: agentLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: agentLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.invalid/agent:1"}}},
			},
		},
	}
	if _, err := kube.AppsV1().DaemonSets(WorkloadNamespace).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating daemonset: %w", err)
	}
	return waitReadyReplicas(ctx, w, w.Opts.Replicas)
}

// isDaemonSetPod reports whether a pod belongs to a DaemonSet.
func isDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
