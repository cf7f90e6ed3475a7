package osdouble

import (
	"context"
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
	disk := pagecachefs.MountTemp(t, "")
	sysroot := disk.Mountpoint
	// The installer trusts the test registry and has its credentials.
	root := t.TempDir()
	creds := reg.TrustFiles()
	creds["/etc/ostree/auth.json"] = string(reg.AuthJSON())
	if err := (Node{Root: root}).WriteFiles(creds); err != nil {
		t.Fatal(err)
	}
	initial := InitialOS{ImageRef: img1.Ref, Root: root, AuthFile: filepath.Join(root, "etc", "ostree", "auth.json")}
	if err := Init(context.Background(), sysroot, initial); err != nil {
		t.Fatal(err)
	}
	disk.PowerLoss()
	if err := Fsck(sysroot, ""); err != nil {
		t.Errorf("after a power loss: %v", err)
	}
	if d, err := BootedDeployment(sysroot, t.TempDir()); err != nil || d.ImageDigest != img1.Digest {
		t.Errorf("after a power loss booted %+v, %v; want %s", d, err, img1.Digest)
	}
}
