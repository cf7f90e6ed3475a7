// Command machine-config-controller runs tandem's controllers: render (pool
// -> rendered MachineConfig), node (the staged rollout planner with etcd
// leader ordering), node metadata, drain and the DPU controllers. Only the
// holder of the leader Lease runs them. Its command line is the MCO's
// (pkg/cli/mcc); the MCO image build (fork/) adds the MCO's other
// controllers.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/cli/mcc"
)

func main() {
	err := mcc.New(nil).ExecuteContext(context.Background())
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "machine-config-controller:", err)
		os.Exit(1)
	}
}
