package framework

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tandem-mco/tandem/test/pagecachefs"
)

// nodeDisks are a simulated node's file systems with their own page cache
// (SimNodeOptions.PageCache): its root and sysroot (one disk on a real
// node: here two mounts, so a syncfs of the sysroot does not sync the root,
// which only makes the check stricter) and its /run (a tmpfs on a real node:
// gone at every boot anyway).
type nodeDisks struct {
	root, sysroot, run *pagecachefs.FS
}

// mountPageCache mounts a pagecachefs over dir, holding what dir holds (all
// of it durable, as an installed disk). The reaper unmounts it if the test
// process dies first.
func mountPageCache(dir string) (*pagecachefs.FS, error) {
	TrackMount(dir)
	fs, err := pagecachefs.Mount(dir, dir)
	if err != nil {
		UntrackMount(dir)
		return nil, err
	}
	return fs, nil
}

func mountNodeDisks(n *SimNode) (*nodeDisks, error) {
	d := &nodeDisks{}
	for _, m := range []struct {
		fs  **pagecachefs.FS
		dir string
	}{{&d.root, n.Root}, {&d.sysroot, n.Sysroot}, {&d.run, n.Run}} {
		fs, err := mountPageCache(m.dir)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("simnode %s: %w", n.Name, err), d.unmount())
		}
		*m.fs = fs
	}
	return d, nil
}

func (d *nodeDisks) all() []*pagecachefs.FS {
	var out []*pagecachefs.FS
	for _, fs := range []*pagecachefs.FS{d.root, d.sysroot, d.run} {
		if fs != nil {
			out = append(out, fs)
		}
	}
	return out
}

// powerLoss drops every page cache of the node.
func (d *nodeDisks) powerLoss() {
	for _, fs := range d.all() {
		fs.PowerLoss()
	}
}

// sync is what a shutdown (and a boot's own writes, by the firmware and
// the initramfs) leaves durable: everything.
func (d *nodeDisks) sync() {
	for _, fs := range d.all() {
		fs.SyncAll()
	}
}

// unmount saves each disk to its directory and unmounts it.
func (d *nodeDisks) unmount() error {
	var errs []error
	for _, fs := range d.all() {
		if err := fs.Unmount(); err != nil {
			errs = append(errs, err)
		}
		UntrackMount(fs.Mountpoint)
	}
	return errors.Join(errs...)
}

// PageCacheStats is what a node's disks dropped at power losses.
type PageCacheStats struct {
	// PowerLosses is the number of power losses that dropped a page cache.
	PowerLosses int
	// UnsyncedDroppedBytes is the bytes written to the root and the sysroot
	// and never made durable that they dropped (/run is not counted: it is
	// a tmpfs on a real node, never durable by design).
	UnsyncedDroppedBytes int64
}

// PageCacheStats returns what the node's page caches dropped so far (zero
// without SimNodeOptions.PageCache).
func (n *SimNode) PageCacheStats() PageCacheStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.disks == nil {
		return PageCacheStats{}
	}
	r, s := n.disks.root.Stats(), n.disks.sysroot.Stats()
	return PageCacheStats{PowerLosses: r.PowerLosses, UnsyncedDroppedBytes: r.DroppedBytes + s.DroppedBytes}
}

// waitGroupsGone waits until no process of the given process groups runs:
// a SIGKILLed group's members die one by one, and one still writing when
// the page cache is dropped would write into the next boot.
func waitGroupsGone(pgids ...int) error {
	deadline := time.Now().Add(killWait)
	for {
		left := groupMembers(pgids)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still run %s after SIGKILL of their groups", left, killWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupMembers lists the live (not zombie) processes in the groups.
func groupMembers(pgids []int) []int {
	want := map[string]bool{}
	for _, g := range pgids {
		if g > 0 {
			want[strconv.Itoa(g)] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	var out []int
	eachProcess(func(pid int, f []string) {
		// f[0] is the state, f[2] the process group.
		if len(f) > 2 && f[0] != "Z" && want[f[2]] {
			out = append(out, pid)
		}
	})
	return out
}
