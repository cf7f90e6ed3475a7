package osdouble

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-mco/tandem/test/pagecachefs"
)

// TestPulledImageSurvivesPowerLoss: an image the double pulled (one syncfs
// at the end of the transaction, as ostree does with core.fsync on and
// per-object-fsync off) is whole after a power loss, on a disk that drops
// what was never made durable (test/pagecachefs; needs /dev/fuse and root).
// syncfs(2) alone never reaches such a disk: the double also sends the
// disk's ioctl (pagecachefs.Syncfs).
func TestPulledImageSurvivesPowerLoss(t *testing.T) {
	sysroot := filepath.Join(t.TempDir(), "sysroot")
	if err := os.Mkdir(sysroot, 0o755); err != nil {
		t.Fatal(err)
	}
	disk, err := pagecachefs.Mount(sysroot, filepath.Join(t.TempDir(), "disk"))
	if err != nil {
		t.Fatalf("%v (needs /dev/fuse and root)", err)
	}
	t.Cleanup(func() {
		if err := disk.Unmount(); err != nil {
			t.Error(err)
		}
	})
	if err := Init(context.Background(), sysroot, InitialOS{ImageRef: img1.Ref}); err != nil {
		t.Fatal(err)
	}
	disk.PowerLoss()
	if err := Fsck(sysroot, ""); err != nil {
		t.Errorf("after a power loss: %v", err)
	}
	if d, err := BootedDeployment(sysroot); err != nil || d.ImageDigest != img1.Digest {
		t.Errorf("after a power loss booted %+v, %v; want %s", d, err, img1.Digest)
	}
}
