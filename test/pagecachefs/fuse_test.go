package pagecachefs

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// applyKernel runs one step through the kernel, with the system calls a
// program makes.
func applyKernel(f *FS, s step) error {
	p := filepath.Join(f.Mountpoint, s.path)
	q := filepath.Join(f.Mountpoint, s.arg)
	switch s.op {
	case "mkdir":
		return os.Mkdir(p, os.FileMode(s.n))
	case "create":
		fh, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(s.n))
		if err != nil {
			return err
		}
		_, err = fh.WriteString(s.arg)
		return errors.Join(err, fh.Close())
	case "write", "append":
		flags := os.O_WRONLY
		if s.op == "append" {
			flags |= os.O_APPEND
		}
		fh, err := os.OpenFile(p, flags, 0)
		if err != nil {
			return err
		}
		if s.op == "append" {
			_, err = fh.WriteString(s.arg)
		} else {
			_, err = fh.WriteAt([]byte(s.arg), s.n)
		}
		return errors.Join(err, fh.Close())
	case "truncate":
		return os.Truncate(p, s.n)
	case "chmod":
		return os.Chmod(p, os.FileMode(s.n))
	case "fsync", "fdatasync":
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		if s.op == "fsync" {
			err = fh.Sync()
		} else {
			err = unix.Fdatasync(int(fh.Fd()))
		}
		return errors.Join(err, fh.Close())
	case "rename":
		return os.Rename(p, q)
	case "exchange":
		return unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, q, unix.RENAME_EXCHANGE)
	case "link":
		return os.Link(p, q)
	case "unlink":
		return unix.Unlink(p)
	case "rmdir":
		return unix.Rmdir(p)
	case "symlink":
		return os.Symlink(s.arg, p)
	case "syncfs":
		fh, err := os.Open(f.Mountpoint)
		if err != nil {
			return err
		}
		return errors.Join(Syncfs(int(fh.Fd())), fh.Close())
	case "powerloss":
		f.PowerLoss()
		return nil
	}
	return fmt.Errorf("unknown step %q", s.op)
}

// treeOf describes the tree under root as programs see it.
func treeOf(t *testing.T, root string) tree {
	t.Helper()
	out := tree{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		rel := strings.TrimPrefix(p, root)
		switch {
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %o", fi.Mode().Perm())
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + target
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %o n=%d %s", fi.Mode().Perm(), fi.Sys().(*syscall.Stat_t).Nlink, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMountedPowerLoss runs the crash table through the kernel: what a
// program's system calls make durable on the mounted file system.
func TestMountedPowerLoss(t *testing.T) {
	old := syscall.Umask(0o022) // the table's modes are what programs ask for
	defer syscall.Umask(old)
	for _, c := range crashCases() {
		t.Run(c.name, func(t *testing.T) {
			f := MountTemp(t, "")
			for _, s := range c.setup {
				if err := applyKernel(f, s); err != nil {
					t.Fatalf("setup %+v: %v", s, err)
				}
			}
			f.SyncAll()
			for _, s := range c.steps {
				if err := applyKernel(f, s); err != nil {
					t.Fatalf("step %+v: %v", s, err)
				}
			}
			f.PowerLoss()
			if got := treeOf(t, f.Mountpoint); !maps.Equal(got, c.after) {
				t.Errorf("after the power loss:\n got  %q\n want %q", got, c.after)
			}
			if got := f.Stats().DroppedBytes; got != c.dropped {
				t.Errorf("dropped %d bytes, want %d", got, c.dropped)
			}
		})
	}
}

// TestKilledWriterKeepsPageCache: a process that writes and dies (here,
// exits; kill -9 is the same to the file system) leaves its writes in the
// page cache; only a power loss drops them.
func TestKilledWriterKeepsPageCache(t *testing.T) {
	f := MountTemp(t, "")
	p := filepath.Join(f.Mountpoint, "f")
	cmd := exec.Command("/bin/sh", "-c", `printf unsynced > "$1"; kill -9 $$`, "sh", p)
	if err := cmd.Run(); err == nil {
		t.Fatal("the writer was not killed")
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "unsynced" {
		t.Fatalf("after kill -9 of the writer: %q, %v; want the page cache kept", b, err)
	}
	if got := f.PowerLoss(); got != int64(len("unsynced")) {
		t.Errorf("power loss dropped %d bytes, want %d", got, len("unsynced"))
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("after the power loss: %v, want the unsynced file gone", err)
	}
}

// TestKernelDoesNotForwardSyncfs pins the reason for IoctlSyncfs: a plain
// syncfs(2) never reaches a /dev/fuse server, so it makes nothing durable
// here. If a kernel starts forwarding it, this fails, and the ioctl can go.
func TestKernelDoesNotForwardSyncfs(t *testing.T) {
	f := MountTemp(t, "")
	if err := os.WriteFile(filepath.Join(f.Mountpoint, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(f.Mountpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := unix.Syncfs(int(fh.Fd())); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Syncs != 0 {
		t.Fatalf("syncfs(2) reached the server (%d syncs): the kernel forwards it now", s.Syncs)
	}
	if err := Syncfs(int(fh.Fd())); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Syncs != 1 {
		t.Fatalf("Syncfs: %d syncs seen, want 1", s.Syncs)
	}
}

// TestSyncfsElsewhere: Syncfs on another file system is plain syncfs(2).
func TestSyncfsElsewhere(t *testing.T) {
	fh, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := Syncfs(int(fh.Fd())); err != nil {
		t.Fatal(err)
	}
}

// TestBackingRoundTrip: a mount shows its backing directory (modes,
// owners, symlinks, hard links), and an unmount saves what it holds then.
func TestBackingRoundTrip(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	backing := t.TempDir()
	for _, s := range []step{mkdir("/d"), create("/d/f", "x"), chmod("/d/f", 0o600), link("/d/f", "/g"), symlink("d/f", "/l")} {
		if err := applyDisk(backing, s); err != nil {
			t.Fatal(err)
		}
	}
	want := treeOf(t, backing)
	f := MountTemp(t, backing)
	if got := treeOf(t, f.Mountpoint); !maps.Equal(got, want) {
		t.Fatalf("mounted %q, backing %q", got, want)
	}
	// Loaded means durable: a power loss right away changes nothing.
	f.PowerLoss()
	if got := treeOf(t, f.Mountpoint); !maps.Equal(got, want) {
		t.Fatalf("after a power loss %q, want the backing %q", got, want)
	}
	if err := applyKernel(f, create("/new", "y")); err != nil {
		t.Fatal(err)
	}
	want = treeOf(t, f.Mountpoint)
	if err := f.Unmount(); err != nil {
		t.Fatal(err)
	}
	if got := treeOf(t, backing); !maps.Equal(got, want) {
		t.Errorf("saved %q, want %q", got, want)
	}
}

// applyDisk makes a step on a plain directory.
func applyDisk(root string, s step) error {
	return applyKernel(&FS{Mountpoint: root}, s)
}
