package pagecachefs

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// FS is a mounted pagecachefs.
type FS struct {
	// Mountpoint is where it is mounted; Backing is the directory it was
	// loaded from and is saved to when unmounted.
	Mountpoint, Backing string

	m         *Model
	srv       *server
	fs        *fuse.Server
	unmounted bool
}

// unmountWait bounds how long Unmount waits for the kernel to let go of the
// connection after a lazy unmount.
const unmountWait = 2 * time.Minute

// Mount loads backing (a disk after a clean shutdown: all of it durable)
// and serves it at mountpoint. It needs /dev/fuse, and root for mount(2)
// (otherwise go-fuse runs fusermount3 or fusermount: Debian's fuse3).
func Mount(mountpoint, backing string) (*FS, error) {
	m, err := Load(backing)
	if err != nil {
		return nil, err
	}
	srv := newServer(m)
	opts := &fuse.MountOptions{
		FsName: "pagecachefs:" + backing,
		Name:   "pagecachefs",
		// mount(2) directly when root; fusermount otherwise.
		DirectMount: true,
		// The kernel checks permissions from the attributes.
		Options:            []string{"default_permissions"},
		DisableXAttrs:      true,
		DisableReadDirPlus: true,
		// Ioctls on directories reach the server too (IoctlSyncfs on a
		// directory fd).
		ExtraCapabilities: fuse.CAP_IOCTL_DIR,
		MaxWrite:          1 << 20,
	}
	fsrv, err := fuse.NewServer(srv, mountpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("pagecachefs: mounting %s: %w", mountpoint, err)
	}
	go fsrv.Serve()
	if err := fsrv.WaitMount(); err != nil {
		_ = unix.Unmount(mountpoint, unix.MNT_DETACH)
		return nil, fmt.Errorf("pagecachefs: mounting %s: %w", mountpoint, err)
	}
	return &FS{Mountpoint: mountpoint, Backing: backing, m: m, srv: srv, fs: fsrv}, nil
}

// SyncAll makes everything durable (what syncfs(2) would, and what an
// orderly shutdown does).
func (f *FS) SyncAll() { f.m.SyncAll() }

// PowerLoss drops everything not durable, at once: the file system is
// what the next boot finds. The caller kills every process using it first.
// It returns the bytes written and never made durable that it dropped.
func (f *FS) PowerLoss() int64 { return f.srv.powerLoss() }

// Stats returns what the file system dropped so far.
func (f *FS) Stats() Stats { return f.m.Stats() }

// Unmount is a clean shutdown: everything is made durable, the mount goes
// (lazily if something still uses it) and the tree is saved to Backing.
func (f *FS) Unmount() error {
	if f.unmounted {
		return nil
	}
	f.unmounted = true
	f.m.SyncAll()
	err := unix.Unmount(f.Mountpoint, 0)
	if errors.Is(err, syscall.EBUSY) {
		err = unix.Unmount(f.Mountpoint, unix.MNT_DETACH)
	}
	if err != nil && !errors.Is(err, syscall.EINVAL) { // EINVAL: not mounted any more
		return fmt.Errorf("pagecachefs: unmounting %s: %w", f.Mountpoint, err)
	}
	done := make(chan struct{})
	go func() { f.fs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(unmountWait):
		return fmt.Errorf("pagecachefs: %s still served %v after a lazy unmount (a process keeps it open)", f.Mountpoint, unmountWait)
	}
	if err := os.RemoveAll(f.Backing); err != nil {
		return fmt.Errorf("pagecachefs: %w", err)
	}
	if err := f.m.Save(f.Backing); err != nil {
		return fmt.Errorf("pagecachefs: saving %s: %w", f.Backing, err)
	}
	return nil
}

// Syncfs is syncfs(2) on fd; on a pagecachefs it also sends IoctlSyncfs,
// which the file system sees (syncfs(2) never reaches it). On another file
// system the ioctl fails with ENOTTY (or EINVAL, EOPNOTSUPP), which is
// ignored.
func Syncfs(fd int) error {
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("syncfs: %w", err)
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), IoctlSyncfs, 0)
	switch e {
	case 0, unix.ENOTTY, unix.EINVAL, unix.EOPNOTSUPP, unix.ENOSYS:
		return nil
	}
	return fmt.Errorf("syncfs ioctl: %w", e)
}
