package pagecachefs

// The table both the model (model_test.go) and the mounted file system
// (fuse_test.go, through the kernel) are judged by: sequences of operations
// and the tree a power loss leaves, written from the rules in doc.go
// (fsync(2), POSIX, and the ext4/XFS rename behaviour named there), not
// computed by the code under test.

// step is one operation, by path from the file system's root.
type step struct {
	op   string // see the constructors below
	path string
	arg  string // data, symlink target or second path
	n    int64  // offset, size or mode
}

func mkdir(p string) step        { return step{op: "mkdir", path: p, n: 0o755} }
func create(p, data string) step { return step{op: "create", path: p, arg: data, n: 0o644} }
func writeAt(p string, off int64, data string) step {
	return step{op: "write", path: p, arg: data, n: off}
}
func appendTo(p, data string) step       { return step{op: "append", path: p, arg: data} }
func truncate(p string, size int64) step { return step{op: "truncate", path: p, n: size} }
func chmod(p string, mode int64) step    { return step{op: "chmod", path: p, n: mode} }
func fsync(p string) step                { return step{op: "fsync", path: p} }
func fdatasync(p string) step            { return step{op: "fdatasync", path: p} }
func rename(from, to string) step        { return step{op: "rename", path: from, arg: to} }
func exchange(a, b string) step          { return step{op: "exchange", path: a, arg: b} }
func link(existing, name string) step    { return step{op: "link", path: existing, arg: name} }
func unlink(p string) step               { return step{op: "unlink", path: p} }
func rmdir(p string) step                { return step{op: "rmdir", path: p} }
func symlink(target, p string) step      { return step{op: "symlink", path: p, arg: target} }
func syncfs() step                       { return step{op: "syncfs"} }
func powerLoss() step                    { return step{op: "powerloss"} }

// tree describes a file system: path -> "dir 755", "file 644 n=1 content",
// "link target". The root is not listed.
type tree map[string]string

type crashCase struct {
	name string
	// setup is made durable (syncfs) before the steps.
	setup []step
	steps []step
	// after is the tree after a power loss that follows the steps.
	after tree
	// dropped is the bytes that power loss drops (written, never synced).
	dropped int64
}

func crashCases() []crashCase {
	return []crashCase{
		{
			name:    "a new file nobody synced is lost",
			steps:   []step{create("/f", "hello")},
			after:   tree{},
			dropped: 5,
		},
		{
			name:  "a file fsynced in a directory never synced loses its name",
			steps: []step{create("/f", "hello"), fsync("/f")},
			after: tree{},
		},
		{
			name:    "a name synced over data never synced: an empty file",
			steps:   []step{create("/f", "hello"), fsync("/")},
			after:   tree{"/f": "file 644 n=1 "},
			dropped: 5,
		},
		{
			name:  "file and directory synced: all kept",
			steps: []step{create("/f", "hello"), fsync("/f"), fsync("/")},
			after: tree{"/f": "file 644 n=1 hello"},
		},
		{
			name:  "fdatasync keeps the data, not a mode change",
			setup: []step{create("/f", "old")},
			steps: []step{chmod("/f", 0o600), writeAt("/f", 0, "new"), fdatasync("/f")},
			after: tree{"/f": "file 644 n=1 new"},
		},
		{
			name:  "fsync keeps a mode change",
			setup: []step{create("/f", "old")},
			steps: []step{chmod("/f", 0o600), fsync("/f")},
			after: tree{"/f": "file 600 n=1 old"},
		},
		{
			name:    "an in-place write never synced: the old content",
			setup:   []step{create("/f", "hello")},
			steps:   []step{writeAt("/f", 0, "HE")},
			after:   tree{"/f": "file 644 n=1 hello"},
			dropped: 2,
		},
		{
			name:    "an append after the fsync is dropped, what came before is kept",
			steps:   []step{create("/f", "ab"), fsync("/f"), fsync("/"), appendTo("/f", "cd")},
			after:   tree{"/f": "file 644 n=1 ab"},
			dropped: 2,
		},
		{
			name:  "a truncate never synced: the old content",
			setup: []step{create("/f", "hello")},
			steps: []step{truncate("/f", 1)},
			after: tree{"/f": "file 644 n=1 hello"},
		},
		{
			name:  "a write past the end leaves a hole of zeros once synced",
			steps: []step{create("/f", ""), writeAt("/f", 3, "x"), fsync("/f"), fsync("/")},
			after: tree{"/f": "file 644 n=1 \x00\x00\x00x"},
		},
		{
			name:  "atomic replace done right: the new content",
			setup: []step{create("/f", "old")},
			steps: []step{create("/f.tmp", "new"), fsync("/f.tmp"), rename("/f.tmp", "/f"), fsync("/")},
			after: tree{"/f": "file 644 n=1 new"},
		},
		{
			name:  "atomic replace without the directory fsync: the old file",
			setup: []step{create("/f", "old")},
			steps: []step{create("/f.tmp", "new"), fsync("/f.tmp"), rename("/f.tmp", "/f")},
			after: tree{"/f": "file 644 n=1 old"},
		},
		{
			name:    "atomic replace without the file fsync: an empty file",
			setup:   []step{create("/f", "old")},
			steps:   []step{create("/f.tmp", "new"), rename("/f.tmp", "/f"), fsync("/")},
			after:   tree{"/f": "file 644 n=1 "},
			dropped: 3,
		},
		{
			name:  "an unlink never synced: the file comes back",
			setup: []step{create("/f", "x")},
			steps: []step{unlink("/f")},
			after: tree{"/f": "file 644 n=1 x"},
		},
		{
			name:  "an unlink synced: gone",
			setup: []step{create("/f", "x")},
			steps: []step{unlink("/f"), fsync("/")},
			after: tree{},
		},
		{
			name:  "a directory whose parent was never synced is lost with what it holds",
			steps: []step{mkdir("/d"), create("/d/f", "x"), fsync("/d/f"), fsync("/d")},
			after: tree{},
		},
		{
			name:  "a directory synced in its parent keeps what it synced",
			steps: []step{mkdir("/d"), fsync("/"), create("/d/f", "x"), fsync("/d/f"), fsync("/d"), create("/d/g", "y")},
			after: tree{"/d": "dir 755", "/d/f": "file 644 n=1 x"},
			// g's byte
			dropped: 1,
		},
		{
			name:  "a new directory synced in its parent, its own entries never: empty",
			steps: []step{mkdir("/d"), create("/d/f", "x"), fsync("/d/f"), fsync("/")},
			after: tree{"/d": "dir 755"},
		},
		{
			name:  "a rename across directories, the destination synced: moved",
			setup: []step{mkdir("/a"), mkdir("/b"), create("/a/f", "x")},
			steps: []step{rename("/a/f", "/b/f"), fsync("/b")},
			after: tree{"/a": "dir 755", "/b": "dir 755", "/b/f": "file 644 n=1 x"},
		},
		{
			name:  "a rename across directories, the source synced: moved",
			setup: []step{mkdir("/a"), mkdir("/b"), create("/a/f", "x")},
			steps: []step{rename("/a/f", "/b/f"), fsync("/a")},
			after: tree{"/a": "dir 755", "/b": "dir 755", "/b/f": "file 644 n=1 x"},
		},
		{
			name:  "a rename across directories, neither synced: where it was",
			setup: []step{mkdir("/a"), mkdir("/b"), create("/a/f", "x")},
			steps: []step{rename("/a/f", "/b/f"), fsync("/")},
			after: tree{"/a": "dir 755", "/a/f": "file 644 n=1 x", "/b": "dir 755"},
		},
		{
			name:  "syncing one side of a rename commits its names only, not the rest of the other directory",
			setup: []step{mkdir("/a"), mkdir("/b"), create("/a/f", "x")},
			steps: []step{create("/b/other", ""), rename("/a/f", "/b/f"), fsync("/a")},
			after: tree{"/a": "dir 755", "/b": "dir 755", "/b/f": "file 644 n=1 x"},
		},
		{
			name:  "a directory moved across directories takes its durable entries",
			setup: []step{mkdir("/a"), mkdir("/b"), mkdir("/a/d"), create("/a/d/f", "x")},
			steps: []step{rename("/a/d", "/b/d"), fsync("/b")},
			after: tree{"/a": "dir 755", "/b": "dir 755", "/b/d": "dir 755", "/b/d/f": "file 644 n=1 x"},
		},
		{
			name:  "an exchange across directories synced on one side: both swapped",
			setup: []step{mkdir("/a"), mkdir("/b"), create("/a/f", "1"), create("/b/g", "2")},
			steps: []step{rename("/b/g", "/b/f"), fsync("/b"), exchange("/a/f", "/b/f"), fsync("/a")},
			after: tree{"/a": "dir 755", "/a/f": "file 644 n=1 2", "/b": "dir 755", "/b/f": "file 644 n=1 1"},
		},
		{
			name:  "a hard link needs its directory synced",
			setup: []step{create("/f", "x")},
			steps: []step{link("/f", "/g")},
			after: tree{"/f": "file 644 n=1 x"},
		},
		{
			name:  "a hard link synced: two names, one inode",
			setup: []step{create("/f", "x")},
			steps: []step{link("/f", "/g"), fsync("/")},
			after: tree{"/f": "file 644 n=2 x", "/g": "file 644 n=2 x"},
		},
		{
			name:  "a symlink needs its directory synced",
			steps: []step{symlink("/target", "/l")},
			after: tree{},
		},
		{
			name:  "a symlink synced keeps its target",
			steps: []step{symlink("/target", "/l"), fsync("/")},
			after: tree{"/l": "link /target"},
		},
		{
			name:  "an rmdir never synced: the directory comes back with its durable entries",
			setup: []step{mkdir("/d"), create("/d/f", "x")},
			steps: []step{unlink("/d/f"), rmdir("/d")},
			after: tree{"/d": "dir 755", "/d/f": "file 644 n=1 x"},
		},
		{
			name:  "syncfs makes everything durable",
			steps: []step{mkdir("/d"), create("/d/f", "x"), symlink("f", "/d/l"), syncfs(), create("/late", "zz")},
			after: tree{"/d": "dir 755", "/d/f": "file 644 n=1 x", "/d/l": "link f"},
			// /late's bytes
			dropped: 2,
		},
		{
			name:  "after a power loss everything left is durable",
			steps: []step{create("/f", "abc"), fsync("/"), powerLoss(), create("/g", "x"), fsync("/")},
			after: tree{"/f": "file 644 n=1 ", "/g": "file 644 n=1 "},
			// abc at the first power loss, x at the second
			dropped: 4,
		},
		{
			name:  "a name reused after a synced unlink holds the new file",
			setup: []step{create("/f", "x")},
			steps: []step{unlink("/f"), fsync("/"), create("/f", "y"), fsync("/f"), fsync("/")},
			after: tree{"/f": "file 644 n=1 y"},
		},
	}
}
