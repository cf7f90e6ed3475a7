package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// NIC-pinning kernel arguments. The first line of the firstboot unit
// (`firstboot-complete-machineconfig --persist-nics`) has nmstatectl pin
// the NIC names and appends its ifname= arguments with `rpm-ostree kargs`,
// which stages a deployment. The second line starts from the booted
// deployment (the MCO's applyOSChanges removes the pending deployment,
// pkg/daemon/update.go release-4.21; so does FirstbootPlan), which would
// drop them: on the MCO, a node that also changes its OS image boots
// without them. tandem records them here, and the first boot sets them on
// the deployment it stages.

// nicKargsFile is where --persist-nics records the arguments it appended,
// under the daemon's state directory of the host's root.
const nicKargsFile = "nmstate-kargs"

// NICKargsPath is the record under root (the host's root as this process
// sees it).
func NICKargsPath(root string) string { return filepath.Join(root, StateDir, nicKargsFile) }

// RecordNICKargs records the kernel arguments --persist-nics appended,
// durably (the reboot that finalizes the first boot comes later).
func RecordNICKargs(root string, kargs []string) error {
	p := NICKargsPath(root)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("recording the NIC kernel arguments: %w", err)
	}
	if err := files.WriteFileAtomic(p, []byte(strings.Join(kargs, " ")+"\n"), 0o644, -1, -1); err != nil {
		return fmt.Errorf("recording the NIC kernel arguments: %w", err)
	}
	return nil
}

// readNICKargs reads the record; none is no arguments.
func readNICKargs(root string) ([]string, error) {
	b, err := os.ReadFile(NICKargsPath(root))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the NIC kernel arguments: %w", err)
	}
	return strings.Fields(string(b)), nil
}
