package ostree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Whether a staged deployment is finalization-locked, on every rpm-ostree:
//
//  1. `finalization-locked: true` in status --json. rpm-ostree shows it only
//     when /run/ostree/staged-deployment-locked exists (rust/src/daemon.rs
//     deployment_populate_variant, unchanged since): that is how rpm-ostree
//     before 2024.6 locks, so on those releases the field is the whole
//     answer.
//  2. Otherwise the "locked" key of /run/ostree/staged-deployment, a GVariant
//     a{sv} ostree writes when staging with opts->locked, as rpm-ostree does
//     since 2024.6 (commit 37c7228d). Its status no longer shows the lock
//     (the "XXX" comment in daemon.rs), so the file is the only source.
//  3. And the legacy lock file itself, which ostree's shutdown finalizer
//     still honours after the key (ostree-sysroot-deploy.c,
//     _ostree_sysroot_finalize_impl_staged_deployment).
//
// 2 and 3 are exactly what ostree-finalize-staged.service decides at
// shutdown, which is the question: will an orderly reboot apply this
// deployment? `ostree admin status` is not used: it reports the key only
// (ostree_deployment_is_finalization_locked), not the legacy file, has
// --json only since ostree 2025.3, and is one more binary the daemon's
// container would need.

// stagedFileLocked reads the lock of the staged deployment d from the host's
// /run (hostRun). The file must describe d: its target is d's
// "<checksum>.<serial>".
func stagedFileLocked(hostRun string, d *Deployment) (bool, error) {
	path := filepath.Join(hostRun, "ostree", "staged-deployment")
	b, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("reading the finalization lock of %s: %w", d.ID, err)
	}
	dict, err := parseVariantDict(b)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	target, err := dict.lookupDict("target")
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	name, err := target.lookupString("name")
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if want := d.Checksum + "." + strconv.Itoa(int(d.Serial)); name != want {
		return false, fmt.Errorf("%s stages %q, but rpm-ostree shows %q staged", path, name, want)
	}
	locked, _, err := dict.lookupBool("locked")
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if locked {
		return true, nil
	}
	_, err = os.Stat(filepath.Join(hostRun, "ostree", "staged-deployment-locked"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
