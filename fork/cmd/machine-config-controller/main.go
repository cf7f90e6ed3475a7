// Command machine-config-controller is tandem's controller as the MCO image
// carries it: tandem's node (rollout planner), node metadata, drain and DPU
// controllers, with the MCO's template, kubelet-config,
// container-runtime-config, render, pinnedimageset, internalreleaseimage,
// bootimage and certrotation controllers from the pinned MCO source
// running beside them in the same process, and the MCO's bootstrap render.
// The command line is tandem's pkg/cli/mcc, which is the MCO's.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/cli/mcc"
)

func main() {
	err := mcc.New(mcoControllers{}).ExecuteContext(context.Background())
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "machine-config-controller:", err)
		os.Exit(1)
	}
}
