package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Backup is one path an update touched and where its old content is kept.
type Backup struct {
	// Path is the host path (without the root prefix).
	Path string `json:"path"`
	// Name is the backup's file name in the backup directory; empty when the
	// path did not exist before (a rollback removes it).
	Name string `json:"backup,omitempty"`
}

// Writer applies nodes under Root and keeps backups in BackupDir (a path
// that already includes the root prefix).
type Writer struct {
	Root      string
	BackupDir string
}

// HostPath maps a host path to its place under the root prefix.
func (w *Writer) HostPath(p string) string { return filepath.Join(w.Root, p) }

// Backup discards earlier backups and copies what every node's path holds
// now (content, mode, owner; symlinks as symlinks) into BackupDir. Nothing
// outside BackupDir is changed.
func (w *Writer) Backup(nodes []Node) ([]Backup, error) {
	if err := w.DropBackups(); err != nil {
		return nil, err
	}
	if err := MkdirAllDurably(w.BackupDir, 0o700); err != nil {
		return nil, err
	}
	out := make([]Backup, 0, len(nodes))
	for i, n := range nodes {
		src := w.HostPath(n.Path)
		if _, err := os.Lstat(src); err != nil {
			if os.IsNotExist(err) {
				out = append(out, Backup{Path: n.Path})
				continue
			}
			return nil, fmt.Errorf("backing up %s: %w", n.Path, err)
		}
		name := fmt.Sprintf("%05d", i)
		if err := copyPreserving(src, filepath.Join(w.BackupDir, name)); err != nil {
			return nil, fmt.Errorf("backing up %s: %w", n.Path, err)
		}
		out = append(out, Backup{Path: n.Path, Name: name})
	}
	if err := SyncDir(w.BackupDir); err != nil {
		return nil, err
	}
	return out, nil
}

// Apply makes every path what its node says, one atomic replacement each.
// afterEach, when set, runs after each path (tests use it to crash mid-way).
func (w *Writer) Apply(nodes []Node, afterEach func(i int)) error {
	return w.ApplyHooked(nodes, Hooks{AfterEach: afterEach})
}

// Hooks are test hooks of ApplyHooked: crash tests hold the daemon there
// and kill it or cut its power. Nil ones are skipped; production sets none.
type Hooks struct {
	// AfterEach runs after each path.
	AfterEach func(i int)
	// Written runs inside a file's replacement once the new content is in
	// the temporary file, before its fsync; Renamed once the temporary file
	// (or symlink) is renamed over the path, before the directory's fsync.
	// An error stops the write and is returned.
	Written, Renamed func(path string) error
}

// ApplyHooked is Apply with test hooks inside the durable writes too.
func (w *Writer) ApplyHooked(nodes []Node, h Hooks) error {
	afterEach := h.AfterEach
	for i, n := range nodes {
		p := w.HostPath(n.Path)
		if err := RemoveStaleTemps(filepath.Dir(p)); err != nil {
			return err
		}
		var err error
		switch n.Kind {
		case KindFile:
			err = writeAtomic(p, n.Mode, n.UID, n.GID, func(w io.Writer) error {
				_, err := w.Write(n.Contents)
				return err
			}, &h)
		case KindSymlink:
			if t, lerr := os.Readlink(p); lerr == nil && t == n.Target {
				break
			}
			err = symlinkAtomic(n.Target, p, &h)
		case KindAbsent:
			err = RemoveDurably(p)
		default:
			err = fmt.Errorf("unknown node kind %q", n.Kind)
		}
		if err != nil {
			return fmt.Errorf("applying %s: %w", n.Path, err)
		}
		if afterEach != nil {
			afterEach(i)
		}
	}
	return nil
}

// Restore puts every backed-up path back as it was (removing the paths
// that did not exist). It is idempotent, so an interrupted restore is
// simply run again.
func (w *Writer) Restore(backups []Backup) error {
	for _, b := range backups {
		p := w.HostPath(b.Path)
		if err := RemoveStaleTemps(filepath.Dir(p)); err != nil {
			return err
		}
		if b.Name == "" {
			if err := RemoveDurably(p); err != nil {
				return fmt.Errorf("restoring %s: %w", b.Path, err)
			}
			continue
		}
		if err := copyPreserving(filepath.Join(w.BackupDir, b.Name), p); err != nil {
			return fmt.Errorf("restoring %s: %w", b.Path, err)
		}
	}
	return nil
}

// DropBackups deletes the backup directory.
func (w *Writer) DropBackups() error {
	if err := os.RemoveAll(w.BackupDir); err != nil {
		return fmt.Errorf("removing backups: %w", err)
	}
	return nil
}

// Verify checks that every path is what its node says: content, mode and
// owner of files, targets of symlinks, absence.
func (w *Writer) Verify(nodes []Node) error {
	var errs []error
	for _, n := range nodes {
		if err := w.verifyOne(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (w *Writer) verifyOne(n Node) error {
	p := w.HostPath(n.Path)
	fi, err := os.Lstat(p)
	if n.Kind == KindAbsent {
		if err == nil {
			return fmt.Errorf("%s exists but the config removes it", n.Path)
		}
		if !os.IsNotExist(err) {
			return fmt.Errorf("%s: %w", n.Path, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", n.Path, err)
	}
	switch n.Kind {
	case KindSymlink:
		t, err := os.Readlink(p)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Path, err)
		}
		if t != n.Target {
			return fmt.Errorf("%s links to %s, want %s", n.Path, t, n.Target)
		}
	case KindFile:
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", n.Path)
		}
		if fi.Mode().Perm() != n.Mode.Perm() {
			return fmt.Errorf("%s has mode %o, want %o", n.Path, fi.Mode().Perm(), n.Mode.Perm())
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != n.UID || int(st.Gid) != n.GID) {
			return fmt.Errorf("%s is owned by %d:%d, want %d:%d", n.Path, st.Uid, st.Gid, n.UID, n.GID)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Path, err)
		}
		if !bytes.Equal(b, n.Contents) {
			return fmt.Errorf("%s content differs from the config (%d bytes, want %d)", n.Path, len(b), len(n.Contents))
		}
	}
	return nil
}

// copyPreserving copies src to dst atomically, keeping a symlink a symlink
// and a file's mode and owner.
func copyPreserving(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return SymlinkAtomic(t, dst)
	case fi.Mode().IsRegular():
		uid, gid := -1, -1
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			uid, gid = int(st.Uid), int(st.Gid)
		}
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		return writeAtomic(dst, fi.Mode().Perm(), uid, gid, func(w io.Writer) error {
			_, err := io.Copy(w, in)
			return err
		}, nil)
	default:
		return fmt.Errorf("%s is neither a regular file nor a symlink (%s)", src, fi.Mode().Type())
	}
}
