// Command vm-image builds (or finds cached) the VM node image of test/vm and
// prints its directory. make vm-image runs it; the VM tests call the same
// code.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-mco/tandem/test/vm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	img, err := vm.EnsureImage(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vm-image:", err)
		os.Exit(1)
	}
	if img.Built {
		fmt.Fprintf(os.Stderr, "vm-image: built in %s\n", img.Duration.Round(1e9))
	}
	fmt.Println(img.Dir)
}
