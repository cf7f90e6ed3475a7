package mcd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
)

// defaultNmstatectl is where the MCO image has nmstatectl (its Dockerfile's
// `dnf install nmstate`, release-4.21).
const defaultNmstatectl = "/usr/bin/nmstatectl"

// nicMode is what --persist-nics does on a host.
type nicMode int

const (
	nicNothing nicMode = iota
	// nicPersist pins the NIC names before a RHEL major upgrade (EL 8, 9).
	nicPersist
	// nicCleanup removes pins that no longer change a name (EL 10).
	nicCleanup
)

// nicModeFor is the MCO's choice in PersistNetworkInterfaces
// (pkg/daemon/daemon.go, release-4.21): persist on EL 8 and 9, clean up on
// EL 10, nothing elsewhere.
func nicModeFor(elMajor string) nicMode {
	switch elMajor {
	case "8", "9":
		return nicPersist
	case "10":
		return nicCleanup
	}
	return nicNothing
}

// kargsEdit turns nmstatectl's --kargs-out (space-separated arguments)
// into rpm-ostree kargs options: --append when persisting, --delete when
// cleaning up. The MCO passes --remove there, an option rpm-ostree kargs
// does not have (its options are --append, --delete, --replace,
// --delete-if-present, rpmostree-builtin-kargs.cxx), so that path can only
// fail; tandem deletes what nmstatectl says to delete.
func kargsEdit(mode nicMode, out string) []string {
	var args []string
	opt := "--append"
	if mode == nicCleanup {
		opt = "--delete-if-present"
	}
	for _, k := range strings.Fields(out) {
		args = append(args, opt+"="+k)
	}
	return args
}

// persistNics is the MCO's PersistNetworkInterfaces: on an EL CoreOS host
// it runs nmstatectl persist-nic-names on the host's root (--cleanup on
// EL 10), then adds (removes) the kernel arguments nmstatectl asks for with
// rpm-ostree, in the host's root. A cleanup's errors are not failures, as
// in the MCO: nmstatectl fails when no pins were ever made.
func persistNics(ctx context.Context, root, nmstatectl string) error {
	b, err := os.ReadFile(filepath.Join(root, "etc/os-release"))
	if errors.Is(err, os.ErrNotExist) {
		b, err = os.ReadFile(filepath.Join(root, "usr/lib/os-release"))
	}
	if err != nil {
		return fmt.Errorf("--persist-nics: reading os-release: %w", err)
	}
	major := elMajor(string(b))
	mode := nicModeFor(major)
	if mode == nicNothing {
		klog.InfoS("--persist-nics: not an EL 8, 9 or 10 CoreOS host; nothing to persist")
		return nil
	}
	if _, err := os.Stat(nmstatectl); err != nil {
		return fmt.Errorf("--persist-nics on an EL %s CoreOS host runs %s persist-nic-names, which this image lacks (build the MCO image on the release's machine-config-operator base image, which installs nmstate): %w", major, nmstatectl, err)
	}
	out, err := os.CreateTemp("", "nmstate-kargs")
	if err != nil {
		return fmt.Errorf("--persist-nics: %w", err)
	}
	out.Close()
	defer os.Remove(out.Name())
	args := []string{"persist-nic-names", "--root", root, "--kargs-out", out.Name()}
	if mode == nicCleanup {
		args = append(args, "--cleanup")
	}
	if err := run(ctx, nmstatectl, args...); err != nil {
		if mode == nicCleanup {
			klog.InfoS("--persist-nics: nmstatectl's cleanup failed; nothing was pinned", "err", err)
			return nil
		}
		return fmt.Errorf("--persist-nics: %w", err)
	}
	kargs, err := os.ReadFile(out.Name())
	if err != nil {
		return fmt.Errorf("--persist-nics: reading nmstatectl's kernel arguments: %w", err)
	}
	edit := kargsEdit(mode, string(kargs))
	if len(edit) == 0 {
		return nil // nmstatectl's .link files do it all
	}
	cmd := append([]string{"rpm-ostree", "kargs"}, edit...)
	if root != "/" {
		cmd = append([]string{"chroot", root}, cmd...)
	}
	if err := run(ctx, cmd[0], cmd[1:]...); err != nil {
		return fmt.Errorf("--persist-nics: %w", err)
	}
	return nil
}

// run runs a command with its output on ours (nmstatectl logs to stderr).
func run(ctx context.Context, name string, args ...string) error {
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	klog.InfoS("Running", "command", strings.Join(c.Args, " "))
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(c.Args, " "), err)
	}
	return nil
}
