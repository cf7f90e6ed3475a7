//go:build integration

package controller

import (
	"context"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// createWorkers creates worker nodes done on config, as their daemons
// would leave them, and the worker pool on config with maxUnavailable 1.
func createWorkers(ctx context.Context, t *testing.T, cp *framework.ControlPlane, config string, paused bool, names ...string) {
	t.Helper()
	createWorkerNodes(ctx, t, cp, config, names...)
	one := intstr.FromInt(1)
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}},
			Configuration:  mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: config}},
			MaxUnavailable: &one, Paused: paused,
		}}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createWorkerNodes creates worker nodes done on config, as their daemons
// would leave them.
func createWorkerNodes(ctx context.Context, t *testing.T, cp *framework.ControlPlane, config string, names ...string) {
	t.Helper()
	for _, name := range names {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
			Annotations: map[string]string{constants.CurrentConfigAnnotation: config, constants.DesiredConfigAnnotation: config,
				constants.StateAnnotation: constants.MachineConfigDaemonStateDone}}}
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// workerConfigs creates the worker pool selecting the worker role's
// MachineConfigs, with maxUnavailable, and its first MachineConfig; the
// controller renders it.
func workerConfigs(ctx context.Context, t *testing.T, cp *framework.ControlPlane, maxUnavailable int) {
	t.Helper()
	mu := intstr.FromInt(maxUnavailable)
	poolConfigs(ctx, t, cp, constants.WorkerPool, &mu)
}

// poolConfigs creates role's pool, selecting the role's MachineConfigs and
// nodes (maxUnavailable nil: the MCO's default), and its first
// MachineConfig; the controller renders it.
func poolConfigs(ctx context.Context, t *testing.T, cp *framework.ControlPlane, role string, maxUnavailable *intstr.IntOrString) {
	t.Helper()
	addMachineConfig(ctx, t, cp, role, "00-"+role, "")
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: role},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: &metav1.LabelSelector{MatchLabels: map[string]string{constants.MachineConfigRoleLabel: role}},
			NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + role: ""}},
			MaxUnavailable:        maxUnavailable,
		}}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
