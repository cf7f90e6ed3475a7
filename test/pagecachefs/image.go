package pagecachefs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Load returns a model of the tree under dir, all of it durable: a disk
// after a clean shutdown. Hard links stay links; only files, directories
// and symlinks may be there. A missing dir is an empty file system.
func Load(dir string) (*Model, error) {
	m := NewModel()
	st, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pagecachefs: %w", err)
	}
	root := m.inodes[RootID]
	root.live.meta = metaOf(st)
	seen := map[uint64]uint64{} // backing inode -> model inode (hard links)
	if err := m.loadDir(dir, root, seen); err != nil {
		return nil, err
	}
	m.SyncAll()
	m.stats = Stats{}
	return m, nil
}

func metaOf(fi os.FileInfo) meta {
	s := fi.Sys().(*syscall.Stat_t)
	return meta{mode: uint32(s.Mode) & 0o7777, uid: s.Uid, gid: s.Gid,
		atime: time.Unix(s.Atim.Unix()), mtime: time.Unix(s.Mtim.Unix()), ctime: time.Unix(s.Ctim.Unix())}
}

func (m *Model) loadDir(path string, d *inode, seen map[uint64]uint64) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("pagecachefs: %w", err)
	}
	for _, e := range ents {
		p := filepath.Join(path, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("pagecachefs: %w", err)
		}
		bino := fi.Sys().(*syscall.Stat_t).Ino
		if id, ok := seen[bino]; ok && !fi.IsDir() {
			d.live.entries[e.Name()] = id
			m.inodes[id].nlink++
			continue
		}
		n := &inode{id: m.next, nlink: 1}
		m.next++
		n.live.meta = metaOf(fi)
		switch {
		case fi.Mode().IsRegular():
			n.kind = KindFile
			if n.live.data, err = os.ReadFile(p); err != nil {
				return fmt.Errorf("pagecachefs: %w", err)
			}
		case fi.Mode()&os.ModeSymlink != 0:
			n.kind = KindSymlink
			if n.target, err = os.Readlink(p); err != nil {
				return fmt.Errorf("pagecachefs: %w", err)
			}
		case fi.IsDir():
			n.kind = KindDir
			n.live.entries = map[string]uint64{}
		default:
			return fmt.Errorf("pagecachefs: %s is a %s, which it does not hold", p, fi.Mode().Type())
		}
		n.durable = version{meta: n.live.meta}
		if n.kind == KindDir {
			n.durable.entries = map[string]uint64{}
		}
		m.inodes[n.id] = n
		seen[bino] = n.id
		d.live.entries[e.Name()] = n.id
		if n.kind == KindDir {
			if err := m.loadDir(p, n, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// Save writes the live tree into dir (created if missing; it should be
// empty): contents, modes, owners, times, symlinks and hard links.
func (m *Model) Save(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return m.saveDir(dir, m.inodes[RootID], map[uint64]string{})
}

func (m *Model) saveDir(path string, d *inode, written map[uint64]string) error {
	names := make([]string, 0, len(d.live.entries))
	for name := range d.live.entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := m.inodes[d.live.entries[name]]
		p := filepath.Join(path, name)
		if first, ok := written[n.id]; ok {
			if err := os.Link(first, p); err != nil {
				return err
			}
			continue
		}
		written[n.id] = p
		var err error
		switch n.kind {
		case KindFile:
			err = os.WriteFile(p, n.live.data, 0o600)
		case KindSymlink:
			err = os.Symlink(n.target, p)
		case KindDir:
			if err = os.Mkdir(p, 0o700); err == nil {
				err = m.saveDir(p, n, written)
			}
		}
		if err != nil {
			return err
		}
		if err := applyMeta(p, n); err != nil {
			return err
		}
	}
	return applyMeta(path, d)
}

func applyMeta(p string, n *inode) error {
	if err := os.Lchown(p, int(n.live.uid), int(n.live.gid)); err != nil && !os.IsPermission(err) {
		return err
	}
	if n.kind == KindSymlink {
		return nil
	}
	if err := os.Chmod(p, os.FileMode(n.live.mode&0o777)|modeBits(n.live.mode)); err != nil {
		return err
	}
	ts := []unix.Timespec{unix.NsecToTimespec(n.live.atime.UnixNano()), unix.NsecToTimespec(n.live.mtime.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
}

// modeBits maps setuid, setgid and sticky to os.FileMode.
func modeBits(mode uint32) os.FileMode {
	var m os.FileMode
	if mode&syscall.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if mode&syscall.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if mode&syscall.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}
