package osdouble

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Environment variables through which the CLI finds its node.
const (
	// EnvSysroot is the node's persistent sysroot directory.
	EnvSysroot = "TANDEM_OSDOUBLE_SYSROOT"
	// EnvRun is the node's volatile run directory (its /run), wiped on reboot.
	EnvRun = "TANDEM_OSDOUBLE_RUN"
	// EnvRebootFile is the file finalize-deployment (and --reboot) writes to ask
	// the harness to reboot the node. Default: <run>/reboot-requested.
	EnvRebootFile = "TANDEM_OSDOUBLE_REBOOT_FILE"
	// EnvRoot is the node's root filesystem as rpm-ostree sees it: its /etc
	// (yum.repos.d for package layering; containers/registries.conf,
	// containers/certs.d and ostree/auth.json for pulls) and the paths
	// repositories and symlinks name, except /run, which is EnvRun.
	// Optional: without it the node has no package repositories, trusts
	// no registry's CA and has only /run/ostree/auth.json.
	EnvRoot = "TANDEM_OSDOUBLE_ROOT"
	// EnvClientID is the variable rpm-ostree clients set to identify themselves.
	EnvClientID = "RPMOSTREE_CLIENT_ID"
)

// DefaultOSName is the stateroot of deployments made by Init.
const DefaultOSName = "rhcos"

// layout names every file of a node.
type layout struct {
	sysroot string
	run     string
}

func (l layout) ostreeDir() string  { return filepath.Join(l.sysroot, "ostree") }
func (l layout) repoDir() string    { return filepath.Join(l.sysroot, "ostree", "repo") }
func (l layout) bootFile() string   { return filepath.Join(l.sysroot, "ostree", "boot.json") }
func (l layout) lockFile() string   { return filepath.Join(l.sysroot, "ostree", "lock") }
func (l layout) stagedFile() string { return filepath.Join(l.run, "ostree", "staged-deployment") }
func (l layout) lockedFile() string {
	return filepath.Join(l.run, "ostree", "staged-deployment-locked")
}
func (l layout) rpmOstreeRun() string { return filepath.Join(l.run, "rpm-ostree") }
func (l layout) bootedFile() string   { return filepath.Join(l.run, "ostree-booted") }
func (l layout) txnFile() string      { return filepath.Join(l.rpmOstreeRun(), "transaction.json") }

// socketFile is an abstract unix socket ("@..."): one per run dir.
func (l layout) socketFile() string {
	sum := sha256.Sum256([]byte(filepath.Clean(l.run)))
	return "@tandem-rpm-ostreed-" + hex.EncodeToString(sum[:12])
}
func (l layout) pidFile() string      { return filepath.Join(l.rpmOstreeRun(), "rpm-ostreed.pid") }
func (l layout) progressFile() string { return filepath.Join(l.rpmOstreeRun(), "progress.json") }
func (l layout) commandLog() string   { return filepath.Join(l.rpmOstreeRun(), "commands.log") }

// DaemonPIDFile is where a node's transaction daemon (`rpm-ostree
// start-daemon`) writes its pid while it runs: the process whose I/O an
// isolation policy must target on hosts without systemd.
func DaemonPIDFile(run string) string { return layout{run: run}.pidFile() }

// DaemonSocket is the (abstract) unix socket the node's transaction daemon
// listens on.
func DaemonSocket(run string) string { return layout{run: run}.socketFile() }

// ProgressFile is the path of the progress file in a node's run dir.
func ProgressFile(run string) string { return layout{run: run}.progressFile() }

// CommandLogFile is the path of the command log in a node's run dir.
func CommandLogFile(run string) string { return layout{run: run}.commandLog() }

// writeFileAtomic replaces path with data through a temporary file and a
// rename. durable adds the fsyncs that make the new content survive a power
// loss (file before the rename, directory after).
func writeFileAtomic(path string, data []byte, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+randomSuffix())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if durable {
		return syncDir(dir)
	}
	return nil
}

func writeJSONAtomic(path string, v any, durable bool) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'), durable)
}

// readJSON reads path into v; found is false when the file does not exist.
func readJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("parsing %s: %w", path, err)
	}
	return true, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}
