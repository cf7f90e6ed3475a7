package pagecachefs

import (
	"maps"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Kind is what an inode is.
type Kind uint8

// The kinds of inode the file system holds (no devices, FIFOs or sockets).
const (
	KindFile Kind = iota + 1
	KindDir
	KindSymlink
)

// RootID is the root directory's inode number (FUSE's root node id).
const RootID uint64 = 1

// meta is an inode's metadata.
type meta struct {
	mode                uint32 // permission bits (07777)
	uid, gid            uint32
	atime, mtime, ctime time.Time
}

// version is one of an inode's two states: live (what processes see: the
// page cache) or durable (what a power loss leaves).
type version struct {
	meta
	data    []byte            // KindFile
	entries map[string]uint64 // KindDir: name -> inode
}

type inode struct {
	id     uint64
	kind   Kind
	target string // KindSymlink: written with the inode, never changed
	live   version
	// durable: for a file, its data and metadata as of its last fsync (its
	// creation before that: empty); for a directory, its entries as of its
	// last fsync. Whether the inode is durable at all is decided by the
	// durable entries of the directories naming it.
	durable version
	// shared: live.data is durable.data's array; copied before a change.
	shared bool
	nlink  int // live directory entries naming it
	dlinks int // durable directory entries naming it
	opens  int // open handles
	dirty  ranges
}

// crossRename is a rename across two directories that neither has made
// durable yet; an exchange is one too (both names change).
type crossRename struct {
	sdir  uint64
	sname string
	ddir  uint64
	dname string
}

// Stats counts what the file system dropped.
type Stats struct {
	// PowerLosses is the number of power losses.
	PowerLosses int
	// DroppedBytes is the number of bytes written and never made durable
	// that the power losses dropped (each file's dirty ranges).
	DroppedBytes int64
	// Syncs is the number of whole-file-system syncs (syncfs).
	Syncs int
}

// Model is the file system: every inode's live and durable state, and the
// rules that move one to the other (see doc.go). It knows nothing of FUSE;
// the FUSE server translates requests into its methods. Safe for concurrent
// use.
type Model struct {
	mu      sync.Mutex
	inodes  map[uint64]*inode
	next    uint64
	pending []crossRename
	now     func() time.Time
	stats   Stats
}

// NewModel returns a file system holding an empty root directory, durable.
func NewModel() *Model {
	m := &Model{inodes: map[uint64]*inode{}, next: RootID + 1, now: time.Now}
	t := m.now()
	root := &inode{id: RootID, kind: KindDir, nlink: 1, dlinks: 1}
	root.live = version{meta: meta{mode: 0o755, atime: t, mtime: t, ctime: t}, entries: map[string]uint64{}}
	root.durable = root.live
	root.durable.entries = map[string]uint64{}
	m.inodes[RootID] = root
	return m
}

// Attr is what stat shows of an inode.
type Attr struct {
	Ino                 uint64
	Kind                Kind
	Mode                uint32 // permission bits
	Size                int64
	Nlink               int
	UID, GID            uint32
	Atime, Mtime, Ctime time.Time
}

func (m *Model) attrOf(n *inode) Attr {
	a := Attr{Ino: n.id, Kind: n.kind, Mode: n.live.mode, UID: n.live.uid, GID: n.live.gid,
		Atime: n.live.atime, Mtime: n.live.mtime, Ctime: n.live.ctime, Nlink: n.nlink}
	switch n.kind {
	case KindFile:
		a.Size = int64(len(n.live.data))
	case KindSymlink:
		a.Size = int64(len(n.target))
	case KindDir:
		a.Size = 4096
		a.Nlink = 2
		for _, c := range n.live.entries {
			if m.inodes[c].kind == KindDir {
				a.Nlink++
			}
		}
	}
	return a
}

func (m *Model) get(id uint64) (*inode, error) {
	n, ok := m.inodes[id]
	if !ok {
		// Freed, or gone with a power loss: the kernel may still hold it.
		return nil, syscall.ESTALE
	}
	return n, nil
}

func (m *Model) dir(id uint64) (*inode, error) {
	n, err := m.get(id)
	if err != nil {
		return nil, err
	}
	if n.kind != KindDir {
		return nil, syscall.ENOTDIR
	}
	return n, nil
}

// dirForNewEntry is directory dir, where name may be created: a valid
// name not taken yet (EEXIST otherwise, as link(2) and creat(2) with
// O_EXCL say).
func (m *Model) dirForNewEntry(dir uint64, name string) (*inode, error) {
	d, err := m.dir(dir)
	if err != nil {
		return nil, err
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	if _, ok := d.live.entries[name]; ok {
		return nil, syscall.EEXIST
	}
	return d, nil
}

func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return syscall.EINVAL
	case len(name) > 255:
		return syscall.ENAMETOOLONG
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' || name[i] == 0 {
			return syscall.EINVAL
		}
	}
	return nil
}

// Attr returns an inode's attributes.
func (m *Model) Attr(id uint64) (Attr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return Attr{}, err
	}
	return m.attrOf(n), nil
}

// Lookup finds name in directory dir.
func (m *Model) Lookup(dir uint64, name string) (Attr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.dir(dir)
	if err != nil {
		return Attr{}, err
	}
	id, ok := d.live.entries[name]
	if !ok {
		return Attr{}, syscall.ENOENT
	}
	return m.attrOf(m.inodes[id]), nil
}

// DirEntry is one name in a directory.
type DirEntry struct {
	Name string
	Ino  uint64
	Kind Kind
}

// Entries lists a directory's names, sorted.
func (m *Model) Entries(dir uint64) ([]DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.dir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, 0, len(d.live.entries))
	for name, id := range d.live.entries {
		out = append(out, DirEntry{Name: name, Ino: id, Kind: m.inodes[id].kind})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Create makes a file, directory or symlink (target) named name in dir.
// Until dir is made durable, a power loss drops it; until the new inode is
// (fsync), it is durable as created: empty, with this mode and owner.
func (m *Model) Create(dir uint64, name string, k Kind, mode, uid, gid uint32, target string) (Attr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.dirForNewEntry(dir, name)
	if err != nil {
		return Attr{}, err
	}
	t := m.now()
	n := &inode{id: m.next, kind: k, target: target, nlink: 1}
	m.next++
	n.live.meta = meta{mode: mode & 0o7777, uid: uid, gid: gid, atime: t, mtime: t, ctime: t}
	if k == KindDir {
		n.live.entries = map[string]uint64{}
	}
	n.durable = version{meta: n.live.meta}
	if k == KindDir {
		n.durable.entries = map[string]uint64{}
	}
	m.inodes[n.id] = n
	d.live.entries[name] = n.id
	d.live.mtime, d.live.ctime = t, t
	return m.attrOf(n), nil
}

// Readlink returns a symlink's target.
func (m *Model) Readlink(id uint64) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return "", err
	}
	if n.kind != KindSymlink {
		return "", syscall.EINVAL
	}
	return n.target, nil
}

func (m *Model) file(id uint64) (*inode, error) {
	n, err := m.get(id)
	if err != nil {
		return nil, err
	}
	switch n.kind {
	case KindDir:
		return nil, syscall.EISDIR
	case KindSymlink:
		return nil, syscall.EINVAL
	}
	return n, nil
}

// own gives live.data its own array before a change.
func (n *inode) own() {
	if n.shared {
		n.live.data = slices.Clone(n.live.data)
		n.shared = false
	}
}

// Write writes data at off (at the end when appending) into the page cache.
func (m *Model) Write(id uint64, off int64, data []byte, appending bool) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.file(id)
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, syscall.EINVAL
	}
	if appending {
		off = int64(len(n.live.data))
	}
	n.own()
	if end := off + int64(len(data)); end > int64(len(n.live.data)) {
		n.live.data = append(n.live.data, make([]byte, end-int64(len(n.live.data)))...)
	}
	copy(n.live.data[off:], data)
	n.dirty.add(off, int64(len(data)))
	t := m.now()
	n.live.mtime, n.live.ctime = t, t
	return len(data), nil
}

// Read reads up to size bytes at off.
func (m *Model) Read(id uint64, off int64, size int) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.file(id)
	if err != nil {
		return nil, err
	}
	if off < 0 {
		return nil, syscall.EINVAL
	}
	if off >= int64(len(n.live.data)) {
		return nil, nil
	}
	end := min(off+int64(size), int64(len(n.live.data)))
	return slices.Clone(n.live.data[off:end]), nil
}

// SetAttr is a change of attributes; nil fields stay.
type SetAttr struct {
	Mode         *uint32
	UID, GID     *uint32
	Size         *int64
	Atime, Mtime *time.Time
}

// SetAttr changes an inode's attributes in the page cache.
func (m *Model) SetAttr(id uint64, s SetAttr) (Attr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return Attr{}, err
	}
	t := m.now()
	if s.Size != nil {
		f, err := m.file(id)
		if err != nil {
			return Attr{}, err
		}
		if *s.Size < 0 {
			return Attr{}, syscall.EINVAL
		}
		f.own()
		size := *s.Size
		if size <= int64(len(f.live.data)) {
			f.live.data = f.live.data[:size]
		} else {
			f.live.data = append(f.live.data, make([]byte, size-int64(len(f.live.data)))...)
		}
		f.dirty.truncate(size)
		f.live.mtime = t
	}
	if s.Mode != nil {
		n.live.mode = *s.Mode & 0o7777
	}
	if s.UID != nil {
		n.live.uid = *s.UID
	}
	if s.GID != nil {
		n.live.gid = *s.GID
	}
	if s.Atime != nil {
		n.live.atime = *s.Atime
	}
	if s.Mtime != nil {
		n.live.mtime = *s.Mtime
	}
	n.live.ctime = t
	return m.attrOf(n), nil
}

// Open and Release count an inode's open handles: an unlinked inode lives
// while one is open.
func (m *Model) Open(id uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return err
	}
	n.opens++
	return nil
}

// Release closes one handle of an inode.
func (m *Model) Release(id uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.inodes[id]; ok && n.opens > 0 {
		n.opens--
		m.maybeFree(n)
	}
}

// Unlink removes a non-directory's name from dir.
func (m *Model) Unlink(dir uint64, name string) error {
	return m.remove(dir, name, false)
}

// Rmdir removes an empty directory's name from dir.
func (m *Model) Rmdir(dir uint64, name string) error {
	return m.remove(dir, name, true)
}

func (m *Model) remove(dir uint64, name string, isDir bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.dir(dir)
	if err != nil {
		return err
	}
	id, ok := d.live.entries[name]
	if !ok {
		return syscall.ENOENT
	}
	n := m.inodes[id]
	switch {
	case isDir && n.kind != KindDir:
		return syscall.ENOTDIR
	case !isDir && n.kind == KindDir:
		return syscall.EISDIR
	case isDir && len(n.live.entries) > 0:
		return syscall.ENOTEMPTY
	}
	delete(d.live.entries, name)
	t := m.now()
	d.live.mtime, d.live.ctime = t, t
	n.nlink--
	n.live.ctime = t
	m.maybeFree(n)
	return nil
}

// Link gives inode id another name, in dir.
func (m *Model) Link(id, dir uint64, name string) (Attr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return Attr{}, err
	}
	if n.kind == KindDir {
		return Attr{}, syscall.EPERM
	}
	d, err := m.dirForNewEntry(dir, name)
	if err != nil {
		return Attr{}, err
	}
	d.live.entries[name] = id
	n.nlink++
	t := m.now()
	d.live.mtime, d.live.ctime, n.live.ctime = t, t, t
	return m.attrOf(n), nil
}

// Rename flags (renameat2(2)).
const (
	RenameNoReplace = 1 << 0
	RenameExchange  = 1 << 1
)

// Rename moves sdir/sname to ddir/dname, replacing what is there (flags:
// RenameNoReplace, RenameExchange). A rename across two directories
// becomes durable as a whole with an fsync of either (see doc.go).
func (m *Model) Rename(sdir uint64, sname string, ddir uint64, dname string, flags uint32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if flags&^(RenameNoReplace|RenameExchange) != 0 || flags == RenameNoReplace|RenameExchange {
		return syscall.EINVAL
	}
	sd, err := m.dir(sdir)
	if err != nil {
		return err
	}
	dd, err := m.dir(ddir)
	if err != nil {
		return err
	}
	if err := checkName(dname); err != nil {
		return err
	}
	sid, ok := sd.live.entries[sname]
	if !ok {
		return syscall.ENOENT
	}
	src := m.inodes[sid]
	if src.kind == KindDir && m.contains(src, ddir) {
		return syscall.EINVAL // into itself
	}
	did, exists := dd.live.entries[dname]
	t := m.now()
	switch {
	case flags&RenameExchange != 0:
		if !exists {
			return syscall.ENOENT
		}
		if dst := m.inodes[did]; dst.kind == KindDir && m.contains(dst, sdir) {
			return syscall.EINVAL
		}
		sd.live.entries[sname], dd.live.entries[dname] = did, sid
	case exists && flags&RenameNoReplace != 0:
		return syscall.EEXIST
	case exists && did == sid:
		return nil // two names of one inode: POSIX says do nothing
	default:
		if exists {
			dst := m.inodes[did]
			switch {
			case src.kind == KindDir && dst.kind != KindDir:
				return syscall.ENOTDIR
			case src.kind != KindDir && dst.kind == KindDir:
				return syscall.EISDIR
			case dst.kind == KindDir && len(dst.live.entries) > 0:
				return syscall.ENOTEMPTY
			}
		}
		delete(sd.live.entries, sname)
		dd.live.entries[dname] = sid
		if exists {
			dst := m.inodes[did]
			dst.nlink--
			dst.live.ctime = t
			m.maybeFree(dst)
		}
	}
	src.live.ctime = t
	sd.live.mtime, sd.live.ctime, dd.live.mtime, dd.live.ctime = t, t, t, t
	if sdir != ddir {
		m.pending = append(m.pending, crossRename{sdir: sdir, sname: sname, ddir: ddir, dname: dname})
	}
	return nil
}

// contains tells whether directory d is dir or holds it, at any depth.
func (m *Model) contains(d *inode, dir uint64) bool {
	if d.id == dir {
		return true
	}
	for _, c := range d.live.entries {
		if n := m.inodes[c]; n.kind == KindDir && m.contains(n, dir) {
			return true
		}
	}
	return false
}

// Fsync makes an inode durable: a file's data (and, unless datasync, its
// metadata); a directory's entries, with the renames across directories
// that touched it.
func (m *Model) Fsync(id uint64, datasync bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.get(id)
	if err != nil {
		return err
	}
	switch n.kind {
	case KindFile:
		n.durable.data = n.live.data
		n.shared = true
		n.dirty = nil
	case KindDir:
		m.syncDir(n)
	}
	if !datasync {
		n.durable.meta = n.live.meta
	}
	return nil
}

func (m *Model) syncDir(d *inode) {
	for i := 0; i < len(m.pending); {
		r := m.pending[i]
		if r.sdir != d.id && r.ddir != d.id {
			i++
			continue
		}
		m.pending = slices.Delete(m.pending, i, i+1)
		m.syncName(r.sdir, r.sname)
		m.syncName(r.ddir, r.dname)
		i = 0 // syncName may have removed others
	}
	names := map[string]bool{}
	for name := range d.live.entries {
		names[name] = true
	}
	for name := range d.durable.entries {
		names[name] = true
	}
	for name := range names {
		m.setDurable(d, name, d.live.entries[name])
	}
}

// syncName makes one name of a directory durable as it is live, and with it
// the renames across directories that touched that name.
func (m *Model) syncName(dir uint64, name string) {
	d, ok := m.inodes[dir]
	if !ok {
		return
	}
	for i := 0; i < len(m.pending); i++ {
		r := m.pending[i]
		if (r.sdir == dir && r.sname == name) || (r.ddir == dir && r.dname == name) {
			m.pending = slices.Delete(m.pending, i, i+1)
			m.syncName(r.sdir, r.sname)
			m.syncName(r.ddir, r.dname)
			i = -1
		}
	}
	m.setDurable(d, name, d.live.entries[name])
}

// setDurable sets a durable entry of d (id 0: none).
func (m *Model) setDurable(d *inode, name string, id uint64) {
	old, had := d.durable.entries[name]
	if had && old == id {
		return
	}
	if had {
		delete(d.durable.entries, name)
		if o, ok := m.inodes[old]; ok {
			o.dlinks--
			m.maybeFree(o)
		}
	}
	if id != 0 {
		d.durable.entries[name] = id
		m.inodes[id].dlinks++
	}
}

// maybeFree forgets an inode no name, durable or live, and no handle holds.
func (m *Model) maybeFree(n *inode) {
	if n.id == RootID || n.nlink > 0 || n.dlinks > 0 || n.opens > 0 {
		return
	}
	delete(m.inodes, n.id)
	if n.kind == KindDir {
		for _, c := range n.durable.entries {
			if cn, ok := m.inodes[c]; ok {
				cn.dlinks--
				m.maybeFree(cn)
			}
		}
	}
}

// SyncAll makes everything durable: syncfs(2), sync(2), and what an orderly
// shutdown does before it unmounts.
func (m *Model) SyncAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Syncs++
	for _, n := range m.inodes {
		n.durable.meta = n.live.meta
		switch n.kind {
		case KindFile:
			n.durable.data = n.live.data
			n.shared = true
			n.dirty = nil
		case KindDir:
			n.durable.entries = maps.Clone(n.live.entries)
		}
	}
	m.pending = nil
	for _, n := range m.inodes {
		n.dlinks = n.nlink
	}
	for _, n := range m.inodes {
		m.maybeFree(n)
	}
}

// PowerLoss drops everything not durable: the file system is its durable
// image, as the next boot finds it. Open handles are gone (their processes
// died with the machine). It returns the bytes written and never made
// durable that it dropped.
func (m *Model) PowerLoss() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var dropped int64
	for _, n := range m.inodes {
		dropped += n.dirty.bytes()
	}
	kept := map[uint64]*inode{}
	var walk func(id uint64)
	walk = func(id uint64) {
		n, ok := m.inodes[id]
		if !ok || kept[id] != nil {
			return
		}
		kept[id] = n
		if n.kind == KindDir {
			for _, c := range n.durable.entries {
				walk(c)
			}
		}
	}
	walk(RootID)
	for _, n := range kept {
		n.live.meta = n.durable.meta
		n.live.data = n.durable.data
		n.shared = true
		n.dirty = nil
		n.opens = 0
		n.nlink, n.dlinks = 0, 0
		if n.kind == KindDir {
			n.live.entries = maps.Clone(n.durable.entries)
		}
	}
	for _, n := range kept {
		for name, c := range n.live.entries {
			if kept[c] == nil { // cannot happen: a durable name keeps its inode
				delete(n.live.entries, name)
				delete(n.durable.entries, name)
				continue
			}
			kept[c].nlink++
			kept[c].dlinks++
		}
	}
	kept[RootID].nlink, kept[RootID].dlinks = 1, 1
	m.inodes = kept
	m.pending = nil
	m.stats.PowerLosses++
	m.stats.DroppedBytes += dropped
	return dropped
}

// Stats returns what the file system dropped so far.
func (m *Model) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}
