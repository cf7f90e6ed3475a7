package world

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/test/framework"
)

// waitReadyReplicas waits until the workload has n ready pods.
func waitReadyReplicas(ctx context.Context, w *World, n int) error {
	return framework.Await(ctx, fmt.Sprintf("the workload's %d ready pods", n), 2*time.Minute, 250*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			d, err := w.Tenant.CP.Kube.AppsV1().Deployments(WorkloadNamespace).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			return int(d.Status.ReadyReplicas) >= n, fmt.Sprintf("deployment web: %d ready, %d available, conditions %v",
				d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.Conditions), nil
		})
}
