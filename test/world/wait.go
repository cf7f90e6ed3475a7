package world

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// waitReadyReplicas waits until the workload has n ready pods.
func waitReadyReplicas(ctx context.Context, w *World, n int) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := w.Tenant.CP.Kube.AppsV1().Deployments(WorkloadNamespace).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && int(d.Status.ReadyReplicas) >= n, nil
	})
	if err != nil {
		return fmt.Errorf("workload did not reach %d ready pods: %w", n, err)
	}
	return nil
}
