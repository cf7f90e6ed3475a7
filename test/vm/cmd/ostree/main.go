// Command ostree is the VM node's `ostree admin finalize-staged`, run by
// ostree-finalize-staged.service at an orderly shutdown (test/vm/guest): it
// finalizes the rpm-ostree double's staged deployment unless it is
// finalization-locked (osdouble.FinalizeStaged), and prints what ostree
// prints in each case.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/tandem-mco/tandem/test/osdouble"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "admin" || os.Args[2] != "finalize-staged" {
		fmt.Fprintf(os.Stderr, "error: only `ostree admin finalize-staged` is implemented (got %s)\n", strings.Join(os.Args[1:], " "))
		os.Exit(1)
	}
	sysroot, run := os.Getenv(osdouble.EnvSysroot), os.Getenv(osdouble.EnvRun)
	if sysroot == "" || run == "" {
		fmt.Fprintf(os.Stderr, "error: %s and %s must be set\n", osdouble.EnvSysroot, osdouble.EnvRun)
		os.Exit(1)
	}
	staged, locked, err := osdouble.StagedDeployment(run)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: reading the staged deployment: %v\n", err)
		os.Exit(1)
	}
	done, err := osdouble.FinalizeStaged(sysroot, run)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "error: finalizing the staged deployment: %v\n", err)
		os.Exit(1)
	case staged == nil:
		fmt.Println("No deployment staged for finalization")
	case !done && locked:
		fmt.Println("Not finalizing; deployment is locked for finalization")
	case done:
		fmt.Printf("Finalized deployment %s\n", staged.ID())
	default:
		fmt.Printf("Staged deployment %s is the booted one: nothing to finalize\n", staged.ID())
	}
}
