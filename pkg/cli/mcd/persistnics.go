package mcd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon"
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
//
// The host's root is rootMount (the unit's -v /:/rootfs), where rpm-ostree
// runs by chroot. A rootMount of "/" means this process already runs in
// the host's root (the MCO's osRoot == "/" case); its files are then under
// hostRoot, the daemon's --root ("/" on a host, a directory in tests).
func persistNics(ctx context.Context, rootMount, hostRoot, nmstatectl string) error {
	root := rootMount
	if rootMount == "/" {
		root = hostRoot
	}
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
	if rootMount != "/" {
		cmd = append([]string{"chroot", rootMount}, cmd...)
	}
	if err := run(ctx, cmd[0], cmd[1:]...); err != nil {
		return fmt.Errorf("--persist-nics: %w", err)
	}
	if mode == nicPersist {
		// The first boot's next line drops the deployment rpm-ostree just
		// staged; it sets these arguments again (daemon.NICKargsPath).
		return daemon.RecordNICKargs(root, strings.Fields(string(kargs)))
	}
	return nil
}

// run runs a command with its output on ours (nmstatectl logs to stderr);
// a failure's error ends with the last line the command printed there, so
// that the unit's failure names the cause (nmstate's message).
func run(ctx context.Context, name string, args ...string) error {
	c := exec.CommandContext(ctx, name, args...)
	var errOut bytes.Buffer
	c.Stdout, c.Stderr = os.Stdout, io.MultiWriter(os.Stderr, &errOut)
	klog.InfoS("Running", "command", strings.Join(c.Args, " "))
	if err := c.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
		if last := lines[len(lines)-1]; last != "" {
			return fmt.Errorf("%s: %w: %s", strings.Join(c.Args, " "), err, last)
		}
		return fmt.Errorf("%s: %w", strings.Join(c.Args, " "), err)
	}
	return nil
}
