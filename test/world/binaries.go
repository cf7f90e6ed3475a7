package world

import (
	"context"

	"github.com/tandem-mco/tandem/test/framework"
)

// binaries are the programs the world runs as processes, built from this tree.
type binaries struct {
	daemon, rpmOstree, controller string
}

func (w *World) buildBinaries(ctx context.Context) error {
	dir := w.path("bin")
	var err error
	if w.bins.daemon, w.bins.rpmOstree, err = framework.BuildSimNodeBinaries(ctx, dir); err != nil {
		return err
	}
	w.bins.controller, err = framework.BuildControllerBinary(ctx, dir)
	return err
}
