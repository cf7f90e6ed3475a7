// Package files writes a MachineConfig's Ignition files and systemd units
// under a root prefix: each path is replaced by an atomic rename of a fsynced
// temporary file, what it replaces is backed up first, and a backup set can
// be restored after a crash or a power loss.
package files

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tmpMarker is part of every temporary file name, so leftovers of a killed
// write can be found and removed.
const tmpMarker = ".tandem-tmp-"

// IsTemp tells whether a file name is one of this package's temporary files.
func IsTemp(name string) bool { return strings.Contains(filepath.Base(name), tmpMarker) }

func tempName(path string) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random temp name: %w", err)
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+tmpMarker+hex.EncodeToString(b[:])), nil
}

// WriteFileAtomic replaces path with data: it writes a temporary file in the
// same directory, sets mode and owner (uid/gid < 0 keep the process's), fsyncs
// it, renames it over path and fsyncs the directory. A crash leaves either
// the old or the new content, never a mix.
func WriteFileAtomic(path string, data []byte, mode os.FileMode, uid, gid int) error {
	return writeAtomic(path, mode, uid, gid, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, nil)
}

// writeAtomic is WriteFileAtomic with fill writing the content; h (may be
// nil) holds the test hooks inside it.
func writeAtomic(path string, mode os.FileMode, uid, gid int, fill func(io.Writer) error, h *Hooks) (retErr error) {
	dir := filepath.Dir(path)
	if err := MkdirAllDurably(dir, 0o755); err != nil {
		return err
	}
	tmp, err := tempName(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("creating temporary file for %s: %w", path, err)
	}
	defer func() {
		if retErr != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if uid >= 0 || gid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			return fmt.Errorf("chown %s: %w", path, err)
		}
	}
	// Chmod after chown: chown clears setuid/setgid bits.
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err := h.written(path); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s: %w", path, err)
	}
	if err := h.renamed(path); err != nil {
		return err
	}
	return SyncDir(dir)
}

func (h *Hooks) written(path string) error {
	if h == nil || h.Written == nil {
		return nil
	}
	return h.Written(path)
}

func (h *Hooks) renamed(path string) error {
	if h == nil || h.Renamed == nil {
		return nil
	}
	return h.Renamed(path)
}

// SymlinkAtomic makes path a symlink to target, replacing what is there.
func SymlinkAtomic(target, path string) error { return symlinkAtomic(target, path, nil) }

func symlinkAtomic(target, path string, h *Hooks) error {
	dir := filepath.Dir(path)
	if err := MkdirAllDurably(dir, 0o755); err != nil {
		return err
	}
	tmp, err := tempName(path)
	if err != nil {
		return err
	}
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("symlink %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("renaming %s: %w", path, err)
	}
	if err := h.renamed(path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// RemoveDurably removes path (a missing path is fine) and fsyncs its directory.
func RemoveDurably(path string) error {
	if err := os.Remove(path); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// MkdirAllDurably is os.MkdirAll whose new directories survive a power
// loss: each directory it makes is followed by an fsync of its parent. A
// new directory's name lives in its parent, and "calling fsync() does not
// necessarily ensure that the entry in the directory containing the file
// has also reached disk. For that an explicit fsync() on a file descriptor
// for the directory is also needed" (fsync(2)). Without it, a file written
// and synced in a new directory can vanish with the directory.
func MkdirAllDurably(dir string, perm os.FileMode) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("creating %s: %w", dir, syscall.ENOTDIR)
		}
		return nil
	}
	if !os.IsNotExist(err) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := MkdirAllDurably(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil && !os.IsExist(err) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return SyncDir(parent)
}

// SyncDir fsyncs a directory so a rename or removal in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// RemoveStaleTemps removes this package's temporary files left in dir by a
// write that was killed before its rename.
func RemoveStaleTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	for _, e := range ents {
		if IsTemp(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("removing stale %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
