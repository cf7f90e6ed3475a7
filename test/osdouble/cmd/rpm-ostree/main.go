// Command rpm-ostree is the rpm-ostree test double (see package osdouble).
// Tests build it and put it first on PATH. `rpm-ostree start-daemon` is the
// transaction daemon (rpmostreed); every other command is a client.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-mco/tandem/test/osdouble"
)

func main() {
	// The client catches only SIGINT, to cancel its transaction; SIGTERM
	// kills it and the transaction carries on in the daemon
	// (rpmostree-clientlib.cxx). The daemon stops on either
	// (rpmostree-builtin-start-daemon.cxx).
	sigs := []os.Signal{syscall.SIGINT}
	if len(os.Args) > 1 && os.Args[1] == "start-daemon" {
		sigs = append(sigs, syscall.SIGTERM)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	code := osdouble.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
