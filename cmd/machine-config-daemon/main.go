// Command machine-config-daemon is tandem's node agent: it stages the next
// OS ahead of the disruption, then drains, writes the MachineConfig's files
// and units and reboots into the staged OS when the controller grants it.
// Its command line is the MCO's (pkg/cli/mcd).
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/cli/mcd"
)

func main() {
	err := mcd.New().ExecuteContext(context.Background())
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "machine-config-daemon:", err)
		os.Exit(1)
	}
}
