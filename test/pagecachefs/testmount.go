package pagecachefs

import (
	"os"
	"path/filepath"
	"testing"
)

// MountTemp mounts a pagecachefs in a temp dir for a test, loaded from
// backing (a new temp dir when empty), and unmounts it when the test ends.
// It needs /dev/fuse and root (mount(2)); without root, go-fuse falls back
// to fusermount3 from Debian's fuse3 package.
func MountTemp(t testing.TB, backing string) *FS {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Fatalf("pagecachefs needs /dev/fuse (FUSE): %v", err)
	}
	if backing == "" {
		backing = filepath.Join(t.TempDir(), "disk")
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := Mount(mnt, backing)
	if err != nil {
		t.Fatalf("%v (needs root for mount(2), or fusermount3 from Debian's fuse3)", err)
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	return f
}
