package world

import (
	"context"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// WorkloadNamespace holds the tenant workload.
const WorkloadNamespace = "workload"

// startWorkload runs the guarded workload on the tenant workers.
func (w *World) startWorkload(ctx context.Context) error {
	return framework.StartWorkload(ctx, w.Tenant.CP.Kube, framework.Workload{
		Namespace: WorkloadNamespace, Replicas: w.Opts.Replicas,
		NodeSelector: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
	})
}
