package framework

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileDurably writes a file into a simulated node the way a careful
// installer or admin tool does, so that it survives a power loss on a node
// with SimNodeOptions.PageCache: each missing directory made and its parent
// fsynced, the content written to a temporary file and fsynced, renamed
// over path, the directory fsynced (fsync(2): data needs the file's fsync,
// a name its directory's). It is the harness's own writer, not the daemon's
// (pkg/daemon/files), so it cannot make the daemon's mistakes look right.
func WriteFileDurably(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := mkdirDurably(dir); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".harness-tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = fsyncPath(dir)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// mkdirDurably makes dir and its missing parents, fsyncing the parent of
// each one it makes.
func mkdirDurably(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirDurably(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return fsyncPath(parent)
}

func fsyncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
