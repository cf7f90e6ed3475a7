package pagecachefs

import (
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// IoctlSyncfs is the ioctl that asks a pagecachefs to make everything
// durable, as syncfs(2) does. The kernel does not forward syncfs(2) or
// sync(2) to a /dev/fuse server: fs/fuse/inode.c fuse_sync_fs returns
// early unless fc->sync_fs, which only virtiofs sets (Linux v5.15, commit
// 2d82ab251ef0 "virtiofs: propagate sync() to file server"; unchanged
// through v6.18). Use Syncfs, which calls both.
const IoctlSyncfs = 0x7053 // _IO('p', 0x53)

// server is the FUSE side: it turns kernel requests into Model calls.
// Every node id is the model's inode number; the kernel caches nothing
// (entry and attribute timeouts of 0, no kept page cache across opens), so
// after a power loss it sees the durable image at once.
type server struct {
	fuse.RawFileSystem
	m *Model

	mu      sync.Mutex
	handles map[uint64]*handle
	nextFh  uint64
	// boot counts power losses: a handle opened before the last one is
	// stale. Its process died with the machine (only the harness, which
	// reads, can still hold one): it may read what is left, never write.
	boot int
}

type handle struct {
	ino       uint64
	appending bool
	names     []DirEntry // directories: the listing at opendir
	boot      int
}

func newServer(m *Model) *server {
	return &server{RawFileSystem: fuse.NewDefaultRawFileSystem(), m: m, handles: map[uint64]*handle{}, nextFh: 1}
}

func (s *server) String() string { return "pagecachefs" }

func status(err error) fuse.Status {
	if err == nil {
		return fuse.OK
	}
	return fuse.ToStatus(err)
}

func fillAttr(a Attr, out *fuse.Attr) {
	*out = fuse.Attr{Ino: a.Ino, Size: uint64(a.Size), Blocks: uint64((a.Size + 511) / 512), Nlink: uint32(a.Nlink),
		Owner: fuse.Owner{Uid: a.UID, Gid: a.GID}, Blksize: 4096}
	switch a.Kind {
	case KindDir:
		out.Mode = syscall.S_IFDIR
	case KindSymlink:
		out.Mode = syscall.S_IFLNK
	default:
		out.Mode = syscall.S_IFREG
	}
	out.Mode |= a.Mode
	out.SetTimes(&a.Atime, &a.Mtime, &a.Ctime)
}

func fillEntry(a Attr, out *fuse.EntryOut) {
	out.NodeId = a.Ino
	out.Generation = 0 // inode numbers are never reused
	out.SetEntryTimeout(0)
	out.SetAttrTimeout(0)
	fillAttr(a, &out.Attr)
}

func (s *server) entry(a Attr, err error, out *fuse.EntryOut) fuse.Status {
	if err != nil {
		return status(err)
	}
	fillEntry(a, out)
	return fuse.OK
}

func (s *server) Lookup(_ <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	a, err := s.m.Lookup(h.NodeId, name)
	return s.entry(a, err, out)
}

func (s *server) Forget(uint64, uint64) {}

func (s *server) GetAttr(_ <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	a, err := s.m.Attr(in.NodeId)
	if err != nil {
		return status(err)
	}
	out.SetTimeout(0)
	fillAttr(a, &out.Attr)
	return fuse.OK
}

func (s *server) SetAttr(_ <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	var c SetAttr
	if m, ok := in.GetMode(); ok {
		c.Mode = &m
	}
	if u, ok := in.GetUID(); ok {
		c.UID = &u
	}
	if g, ok := in.GetGID(); ok {
		c.GID = &g
	}
	if sz, ok := in.GetSize(); ok {
		n := int64(sz)
		c.Size = &n
	}
	now := time.Now()
	if in.Valid&fuse.FATTR_ATIME_NOW != 0 {
		c.Atime = &now
	} else if t, ok := in.GetATime(); ok {
		c.Atime = &t
	}
	if in.Valid&fuse.FATTR_MTIME_NOW != 0 {
		c.Mtime = &now
	} else if t, ok := in.GetMTime(); ok {
		c.Mtime = &t
	}
	a, err := s.m.SetAttr(in.NodeId, c)
	if err != nil {
		return status(err)
	}
	out.SetTimeout(0)
	fillAttr(a, &out.Attr)
	return fuse.OK
}

func (s *server) Mknod(_ <-chan struct{}, in *fuse.MknodIn, name string, out *fuse.EntryOut) fuse.Status {
	if in.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fuse.EPERM // no devices, FIFOs or sockets
	}
	a, err := s.m.Create(in.NodeId, name, KindFile, in.Mode, in.Uid, in.Gid, "")
	return s.entry(a, err, out)
}

func (s *server) Mkdir(_ <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) fuse.Status {
	a, err := s.m.Create(in.NodeId, name, KindDir, in.Mode, in.Uid, in.Gid, "")
	return s.entry(a, err, out)
}

func (s *server) Symlink(_ <-chan struct{}, h *fuse.InHeader, target, name string, out *fuse.EntryOut) fuse.Status {
	a, err := s.m.Create(h.NodeId, name, KindSymlink, 0o777, h.Uid, h.Gid, target)
	return s.entry(a, err, out)
}

func (s *server) Readlink(_ <-chan struct{}, h *fuse.InHeader) ([]byte, fuse.Status) {
	t, err := s.m.Readlink(h.NodeId)
	return []byte(t), status(err)
}

func (s *server) Unlink(_ <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return status(s.m.Unlink(h.NodeId, name))
}

func (s *server) Rmdir(_ <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return status(s.m.Rmdir(h.NodeId, name))
}

func (s *server) Rename(_ <-chan struct{}, in *fuse.RenameIn, oldName, newName string) fuse.Status {
	return status(s.m.Rename(in.NodeId, oldName, in.Newdir, newName, in.Flags))
}

func (s *server) Link(_ <-chan struct{}, in *fuse.LinkIn, name string, out *fuse.EntryOut) fuse.Status {
	a, err := s.m.Link(in.Oldnodeid, in.NodeId, name)
	return s.entry(a, err, out)
}

func (s *server) Access(<-chan struct{}, *fuse.AccessIn) fuse.Status { return fuse.OK }

func (s *server) addHandle(h *handle) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	fh := s.nextFh
	s.nextFh++
	h.boot = s.boot
	s.handles[fh] = h
	return fh
}

func (s *server) handle(fh uint64) (*handle, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.handles[fh]
	return h, ok
}

// current tells whether a handle was opened since the last power loss.
func (s *server) current(h *handle) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return h.boot == s.boot
}

func (s *server) dropHandle(fh uint64) {
	s.mu.Lock()
	h, ok := s.handles[fh]
	delete(s.handles, fh)
	current := ok && h.boot == s.boot
	s.mu.Unlock()
	if current {
		s.m.Release(h.ino)
	}
}

func (s *server) Create(_ <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) fuse.Status {
	a, err := s.m.Create(in.NodeId, name, KindFile, in.Mode, in.Uid, in.Gid, "")
	if err != nil {
		return status(err)
	}
	if err := s.m.Open(a.Ino); err != nil {
		return status(err)
	}
	fillEntry(a, &out.EntryOut)
	out.Fh = s.addHandle(&handle{ino: a.Ino, appending: in.Flags&syscall.O_APPEND != 0})
	return fuse.OK
}

func (s *server) Open(_ <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	a, err := s.m.Attr(in.NodeId)
	if err != nil {
		return status(err)
	}
	if a.Kind != KindFile {
		return fuse.EINVAL
	}
	if err := s.m.Open(in.NodeId); err != nil {
		return status(err)
	}
	// No FOPEN_KEEP_CACHE: the kernel drops its cached pages of the file at
	// every open, so none outlive a power loss.
	out.Fh = s.addHandle(&handle{ino: in.NodeId, appending: in.Flags&syscall.O_APPEND != 0})
	return fuse.OK
}

func (s *server) Read(_ <-chan struct{}, in *fuse.ReadIn, buf []byte) (fuse.ReadResult, fuse.Status) {
	if _, ok := s.handle(in.Fh); !ok {
		return nil, fuse.EBADF
	}
	b, err := s.m.Read(in.NodeId, int64(in.Offset), int(in.Size))
	if err != nil {
		return nil, status(err)
	}
	return fuse.ReadResultData(b), fuse.OK
}

func (s *server) Write(_ <-chan struct{}, in *fuse.WriteIn, data []byte) (uint32, fuse.Status) {
	h, ok := s.handle(in.Fh)
	if !ok || !s.current(h) {
		// A handle from before a power loss: its process is dead, and what
		// it still had on its way to the disk is lost with the machine.
		return 0, fuse.EBADF
	}
	n, err := s.m.Write(in.NodeId, int64(in.Offset), data, h.appending)
	return uint32(n), status(err)
}

func (s *server) Flush(<-chan struct{}, *fuse.FlushIn) fuse.Status { return fuse.OK }

func (s *server) Release(_ <-chan struct{}, in *fuse.ReleaseIn) { s.dropHandle(in.Fh) }

func (s *server) Fsync(_ <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return status(s.m.Fsync(in.NodeId, in.FsyncFlags&1 != 0))
}

func (s *server) OpenDir(_ <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	names, err := s.m.Entries(in.NodeId)
	if err != nil {
		return status(err)
	}
	if err := s.m.Open(in.NodeId); err != nil {
		return status(err)
	}
	all := append([]DirEntry{{Name: ".", Ino: in.NodeId, Kind: KindDir}, {Name: "..", Kind: KindDir}}, names...)
	out.Fh = s.addHandle(&handle{ino: in.NodeId, names: all})
	return fuse.OK
}

func (s *server) ReadDir(_ <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	h, ok := s.handle(in.Fh)
	if !ok {
		return fuse.EBADF
	}
	for i := int(in.Offset); i < len(h.names); i++ {
		e := h.names[i]
		mode := uint32(syscall.S_IFREG)
		switch e.Kind {
		case KindDir:
			mode = syscall.S_IFDIR
		case KindSymlink:
			mode = syscall.S_IFLNK
		}
		if !out.AddDirEntry(fuse.DirEntry{Name: e.Name, Ino: e.Ino, Mode: mode, Off: uint64(i + 1)}) {
			break
		}
	}
	return fuse.OK
}

func (s *server) ReleaseDir(in *fuse.ReleaseIn) { s.dropHandle(in.Fh) }

func (s *server) FsyncDir(_ <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return status(s.m.Fsync(in.NodeId, in.FsyncFlags&1 != 0))
}

func (s *server) Ioctl(_ <-chan struct{}, in *fuse.IoctlIn, _ []byte, out *fuse.IoctlOut, _ []byte) fuse.Status {
	if in.Cmd != IoctlSyncfs {
		return fuse.Status(syscall.ENOTTY)
	}
	s.m.SyncAll()
	out.Result = 0
	return fuse.OK
}

func (s *server) StatFs(_ <-chan struct{}, _ *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	*out = fuse.StatfsOut{Blocks: 1 << 30, Bfree: 1 << 29, Bavail: 1 << 29, Files: 1 << 24, Ffree: 1 << 23,
		Bsize: 4096, Frsize: 4096, NameLen: 255}
	return fuse.OK
}

// powerLoss drops the page cache and makes every open handle stale (their
// processes died with the machine).
func (s *server) powerLoss() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.boot++
	return s.m.PowerLoss()
}
