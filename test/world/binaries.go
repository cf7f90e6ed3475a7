package world

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

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
	w.bins.controller = filepath.Join(dir, "machine-config-controller")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", w.bins.controller, "./cmd/machine-config-controller")
	root, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("finding the module root: %w", err)
	}
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building machine-config-controller: %w\n%s", err, out)
	}
	return nil
}
