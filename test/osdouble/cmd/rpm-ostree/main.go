// Command rpm-ostree is the rpm-ostree test double (see package osdouble).
// Tests build it and put it first on PATH.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-mco/tandem/test/osdouble"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := osdouble.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
