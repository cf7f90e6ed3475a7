package files

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-mco/tandem/test/pagecachefs"
)

// TestWritesSurvivePowerLoss: what the helpers report written is there
// after a power loss, in directories they had to make too.
func TestWritesSurvivePowerLoss(t *testing.T) {
	fs := pagecachefs.MountTemp(t, "") // drops what was never made durable
	root := fs.Mountpoint
	file := filepath.Join(root, "var/lib/tandem/daemon/record.json")
	if err := WriteFileAtomic(file, []byte("record"), 0o600, -1, -1); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "etc/new/link")
	if err := SymlinkAtomic("target", link); err != nil {
		t.Fatal(err)
	}
	w := &Writer{Root: root, BackupDir: filepath.Join(root, "var/lib/tandem/backup")}
	backups, err := w.Backup([]Node{{Path: "/var/lib/tandem/daemon/record.json", Kind: KindFile}})
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(root, "gone")
	if err := WriteFileAtomic(gone, []byte("x"), 0o644, -1, -1); err != nil {
		t.Fatal(err)
	}
	if err := RemoveDurably(gone); err != nil {
		t.Fatal(err)
	}

	fs.PowerLoss()

	if b, err := os.ReadFile(file); err != nil || string(b) != "record" {
		t.Errorf("after a power loss %s holds %q, %v; want the written record", file, b, err)
	}
	if tgt, err := os.Readlink(link); err != nil || tgt != "target" {
		t.Errorf("after a power loss %s links to %q, %v", link, tgt, err)
	}
	if b, err := os.ReadFile(filepath.Join(w.BackupDir, backups[0].Name)); err != nil || string(b) != "record" {
		t.Errorf("after a power loss the backup holds %q, %v", b, err)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("after a power loss the removed %s: %v, want gone", gone, err)
	}
}
