package pagecachefs

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"strings"
	"syscall"
	"testing"
)

// resolve finds a path's inode in the live tree.
func (m *Model) resolve(p string) (uint64, error) {
	id := RootID
	for _, name := range strings.Split(strings.Trim(p, "/"), "/") {
		if name == "" {
			continue
		}
		a, err := m.Lookup(id, name)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p, err)
		}
		id = a.Ino
	}
	return id, nil
}

func (m *Model) parentOf(p string) (uint64, string, error) {
	dir, err := m.resolve(path.Dir(p))
	return dir, path.Base(p), err
}

// apply runs one step on the model, as the kernel would call it.
func (m *Model) apply(s step) error {
	switch s.op {
	case "mkdir", "create", "symlink":
		dir, name, err := m.parentOf(s.path)
		if err != nil {
			return err
		}
		switch s.op {
		case "mkdir":
			_, err = m.Create(dir, name, KindDir, uint32(s.n), 0, 0, "")
		case "symlink":
			_, err = m.Create(dir, name, KindSymlink, 0o777, 0, 0, s.arg)
		default:
			var a Attr
			if a, err = m.Create(dir, name, KindFile, uint32(s.n), 0, 0, ""); err == nil {
				_, err = m.Write(a.Ino, 0, []byte(s.arg), false)
			}
		}
		return err
	case "write", "append":
		id, err := m.resolve(s.path)
		if err == nil {
			_, err = m.Write(id, s.n, []byte(s.arg), s.op == "append")
		}
		return err
	case "truncate", "chmod":
		id, err := m.resolve(s.path)
		if err != nil {
			return err
		}
		var c SetAttr
		if s.op == "truncate" {
			c.Size = &s.n
		} else {
			mode := uint32(s.n)
			c.Mode = &mode
		}
		_, err = m.SetAttr(id, c)
		return err
	case "fsync", "fdatasync":
		id, err := m.resolve(s.path)
		if err == nil {
			err = m.Fsync(id, s.op == "fdatasync")
		}
		return err
	case "rename", "exchange":
		sd, sn, err := m.parentOf(s.path)
		if err != nil {
			return err
		}
		dd, dn, err := m.parentOf(s.arg)
		if err != nil {
			return err
		}
		var flags uint32
		if s.op == "exchange" {
			flags = RenameExchange
		}
		return m.Rename(sd, sn, dd, dn, flags)
	case "link":
		id, err := m.resolve(s.path)
		if err != nil {
			return err
		}
		dir, name, err := m.parentOf(s.arg)
		if err == nil {
			_, err = m.Link(id, dir, name)
		}
		return err
	case "unlink", "rmdir":
		dir, name, err := m.parentOf(s.path)
		if err != nil {
			return err
		}
		if s.op == "rmdir" {
			return m.Rmdir(dir, name)
		}
		return m.Unlink(dir, name)
	case "syncfs":
		m.SyncAll()
		return nil
	case "powerloss":
		m.PowerLoss()
		return nil
	}
	return fmt.Errorf("unknown step %q", s.op)
}

// tree describes the model's live tree.
func (m *Model) tree(t *testing.T) tree {
	t.Helper()
	out := tree{}
	var walk func(dir uint64, prefix string)
	walk = func(dir uint64, prefix string) {
		ents, err := m.Entries(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			p := prefix + "/" + e.Name
			a, err := m.Attr(e.Ino)
			if err != nil {
				t.Fatal(err)
			}
			switch e.Kind {
			case KindDir:
				out[p] = fmt.Sprintf("dir %o", a.Mode)
				walk(e.Ino, p)
			case KindSymlink:
				target, _ := m.Readlink(e.Ino)
				out[p] = "link " + target
			default:
				data, _ := m.Read(e.Ino, 0, int(a.Size))
				out[p] = fmt.Sprintf("file %o n=%d %s", a.Mode, a.Nlink, data)
			}
		}
	}
	walk(RootID, "")
	return out
}

func TestModelPowerLoss(t *testing.T) {
	for _, c := range crashCases() {
		t.Run(c.name, func(t *testing.T) {
			m := NewModel()
			for _, s := range c.setup {
				if err := m.apply(s); err != nil {
					t.Fatalf("setup %+v: %v", s, err)
				}
			}
			m.SyncAll()
			for _, s := range c.steps {
				if err := m.apply(s); err != nil {
					t.Fatalf("step %+v: %v", s, err)
				}
			}
			m.PowerLoss()
			if got := m.tree(t); !maps.Equal(got, c.after) {
				t.Errorf("after the power loss:\n got  %q\n want %q", got, c.after)
			}
			if got := m.Stats().DroppedBytes; got != c.dropped {
				t.Errorf("dropped %d bytes, want %d", got, c.dropped)
			}
		})
	}
}

// TestModelKillKeepsPageCache: nothing but a power loss drops anything; the
// live tree is what processes wrote (a kill -9 of them is not an event of
// the file system at all).
func TestModelLiveTree(t *testing.T) {
	m := NewModel()
	for _, s := range []step{mkdir("/d"), create("/d/f", "x"), rename("/d/f", "/g"), symlink("g", "/l")} {
		if err := m.apply(s); err != nil {
			t.Fatal(err)
		}
	}
	want := tree{"/d": "dir 755", "/g": "file 644 n=1 x", "/l": "link g"}
	if got := m.tree(t); !maps.Equal(got, want) {
		t.Errorf("live tree %q, want %q", got, want)
	}
	if s := m.Stats(); s.PowerLosses != 0 || s.DroppedBytes != 0 {
		t.Errorf("stats %+v before any power loss", s)
	}
}

// TestModelErrors: the errors POSIX gives for bad requests (the kernel
// checks some of them before asking; the model checks them all).
func TestModelErrors(t *testing.T) {
	setup := []step{mkdir("/d"), create("/d/f", "x"), create("/f", "y"), mkdir("/e")}
	cases := []struct {
		step step
		want syscall.Errno
	}{
		{create("/f", ""), syscall.EEXIST},
		{mkdir("/d"), syscall.EEXIST},
		{unlink("/d"), syscall.EISDIR},
		{rmdir("/f"), syscall.ENOTDIR},
		{rmdir("/d"), syscall.ENOTEMPTY},
		{unlink("/nope"), syscall.ENOENT},
		{rename("/nope", "/x"), syscall.ENOENT},
		{rename("/d", "/d/sub"), syscall.EINVAL},
		{rename("/f", "/e"), syscall.EISDIR},
		{rename("/e", "/f"), syscall.ENOTDIR},
		{rename("/e", "/d"), syscall.ENOTEMPTY},
		{link("/d", "/dl"), syscall.EPERM},
		{link("/f", "/d/f"), syscall.EEXIST},
		{exchange("/f", "/nope"), syscall.ENOENT},
		{writeAt("/d", 0, "x"), syscall.EISDIR},
		{truncate("/d", 0), syscall.EISDIR},
	}
	for _, c := range cases {
		m := NewModel()
		for _, s := range setup {
			if err := m.apply(s); err != nil {
				t.Fatal(err)
			}
		}
		before := m.tree(t)
		err := m.apply(c.step)
		if !errors.Is(err, c.want) {
			t.Errorf("%+v: error %v, want %v", c.step, err, c.want)
		}
		if after := m.tree(t); !maps.Equal(before, after) {
			t.Errorf("%+v failed but changed the tree: %q -> %q", c.step, before, after)
		}
	}
}

// TestModelRenameOntoItself: two names of one inode, renamed one onto the
// other: POSIX rename() does nothing and succeeds.
func TestModelRenameOntoItself(t *testing.T) {
	m := NewModel()
	for _, s := range []step{create("/f", "x"), link("/f", "/g"), rename("/f", "/g")} {
		if err := m.apply(s); err != nil {
			t.Fatal(err)
		}
	}
	want := tree{"/f": "file 644 n=2 x", "/g": "file 644 n=2 x"}
	if got := m.tree(t); !maps.Equal(got, want) {
		t.Errorf("tree %q, want %q", got, want)
	}
}

// TestModelFreesForgottenInodes: an inode no name (live or durable) and no
// handle holds is forgotten, so a long run does not keep every temporary
// file it ever wrote.
func TestModelFreesForgottenInodes(t *testing.T) {
	m := NewModel()
	for i := 0; i < 100; i++ {
		for _, s := range []step{create("/tmp", "data"), rename("/tmp", "/f"), fsync("/")} {
			if err := m.apply(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.mu.Lock()
	n := len(m.inodes)
	m.mu.Unlock()
	if n != 2 {
		t.Errorf("%d inodes held, want 2 (the root and /f)", n)
	}
}
