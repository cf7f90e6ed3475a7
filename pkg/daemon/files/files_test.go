package files

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

func ptr[T any](v T) *T { return &v }

func file(p, contents string, mode int) ign3types.File {
	return ign3types.File{
		Node:          ign3types.Node{Path: p},
		FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: ptr("data:," + strings.ReplaceAll(contents, " ", "%20"))}, Mode: ptr(mode)},
	}
}

func newWriter(t *testing.T) (*Writer, string) {
	root := t.TempDir()
	return &Writer{Root: root, BackupDir: filepath.Join(root, "var/lib/tandem/backup")}, root
}

func mustWrite(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileAtomicModeOwnerNoTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a/b/c.conf")
	if err := WriteFileAtomic(p, []byte("one"), 0o640, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("content %q", got)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", fi.Mode().Perm())
	}
	st := fi.Sys().(*syscall.Stat_t)
	if os.Geteuid() == 0 && (st.Uid != 1234 || st.Gid != 5678) {
		t.Errorf("owner %d:%d", st.Uid, st.Gid)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only c.conf", len(ents))
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, ".x.conf"+tmpMarker+"abc"), "half", 0o644)
	mustWrite(t, filepath.Join(dir, "x.conf"), "keep", 0o644)
	if err := RemoveStaleTemps(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "x.conf" {
		t.Fatalf("left %v", ents)
	}
}

func TestDecodeResource(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("compressed hello"))
	zw.Close()
	sum := sha512.Sum512([]byte("hi"))
	tests := []struct {
		name string
		r    ign3types.Resource
		want string
		err  string
	}{
		{"empty", ign3types.Resource{}, "", ""},
		{"plain", ign3types.Resource{Source: ptr("data:,hello%20world%0A")}, "hello world\n", ""},
		{"base64", ign3types.Resource{Source: ptr("data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte("b64!")))}, "b64!", ""},
		{"gzip", ign3types.Resource{Source: ptr("data:;base64," + base64.StdEncoding.EncodeToString(gz.Bytes())), Compression: ptr("gzip")}, "compressed hello", ""},
		{"hash ok", ign3types.Resource{Source: ptr("data:,hi"), Verification: ign3types.Verification{Hash: ptr("sha512-" + hex.EncodeToString(sum[:]))}}, "hi", ""},
		{"hash bad", ign3types.Resource{Source: ptr("data:,ho"), Verification: ign3types.Verification{Hash: ptr("sha512-" + hex.EncodeToString(sum[:]))}}, "", "do not match"},
		{"remote", ign3types.Resource{Source: ptr("https://example.invalid/x")}, "", "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeResource(tt.r)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPlanUnitsAndRemovals(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, VendorUnitDir, "chronyd.service"), "[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n", 0o644)
	oldCfg := &ign3types.Config{
		Storage: ign3types.Storage{Files: []ign3types.File{file("/etc/old.conf", "old", 0o644), file("/etc/kept.conf", "v1", 0o644)}},
		Systemd: ign3types.Systemd{Units: []ign3types.Unit{{Name: "gone.service", Contents: ptr("[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"), Enabled: ptr(true)}}},
	}
	newCfg := &ign3types.Config{
		Storage: ign3types.Storage{Files: []ign3types.File{file("/etc/kept.conf", "v2", 0o600)}},
		Systemd: ign3types.Systemd{Units: []ign3types.Unit{
			{Name: "new.service", Contents: ptr("[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\nRequiredBy=other.target\n"), Enabled: ptr(true),
				Dropins: []ign3types.Dropin{{Name: "10-x.conf", Contents: ptr("[Service]\nNice=5\n")}}},
			{Name: "chronyd.service", Enabled: ptr(true)},
			{Name: "masked.service", Mask: ptr(true)},
		}},
	}
	nodes, err := Plan(root, oldCfg, newCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Node{}
	for _, n := range nodes {
		got[n.Path] = n
	}
	expect := map[string]string{
		"/etc/kept.conf":                                              "file",
		"/etc/old.conf":                                               "absent",
		"/etc/systemd/system/new.service":                             "file",
		"/etc/systemd/system/new.service.d/10-x.conf":                 "file",
		"/etc/systemd/system/multi-user.target.wants/new.service":     "symlink:/etc/systemd/system/new.service",
		"/etc/systemd/system/other.target.requires/new.service":       "symlink:/etc/systemd/system/new.service",
		"/etc/systemd/system/multi-user.target.wants/chronyd.service": "symlink:/usr/lib/systemd/system/chronyd.service",
		"/etc/systemd/system/masked.service":                          "symlink:/dev/null",
		"/etc/systemd/system/gone.service":                            "absent",
		"/etc/systemd/system/multi-user.target.wants/gone.service":    "absent",
	}
	if len(got) != len(expect) {
		t.Errorf("plan has %d paths, want %d: %v", len(got), len(expect), nodes)
	}
	for p, w := range expect {
		n, ok := got[p]
		if !ok {
			t.Errorf("missing %s", p)
			continue
		}
		desc := string(n.Kind)
		if n.Kind == KindSymlink {
			desc += ":" + n.Target
		}
		if desc != w {
			t.Errorf("%s: %s, want %s", p, desc, w)
		}
	}
	if n := got["/etc/kept.conf"]; string(n.Contents) != "v2" || n.Mode != 0o600 {
		t.Errorf("kept.conf planned as %q mode %o", n.Contents, n.Mode)
	}
}

func TestPlanRejects(t *testing.T) {
	for name, cfg := range map[string]*ign3types.Config{
		"unknown user": {Storage: ign3types.Storage{Files: []ign3types.File{{Node: ign3types.Node{Path: "/etc/x", User: ign3types.NodeUser{Name: ptr("nobody-here")}}}}}},
		"remote source": {Storage: ign3types.Storage{Files: []ign3types.File{{Node: ign3types.Node{Path: "/etc/x"},
			FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: ptr("http://10.0.0.1/x")}}}}}},
		"enable of unknown unit": {Systemd: ign3types.Systemd{Units: []ign3types.Unit{{Name: "nope.service", Enabled: ptr(true)}}}},
		"duplicate path":         {Storage: ign3types.Storage{Files: []ign3types.File{file("/etc/x", "a", 0o644), file("/etc/x", "b", 0o644)}}},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if _, err := Plan(root, nil, cfg, PasswdOwners{Root: root}); err == nil {
				t.Fatal("Plan accepted an unusable config")
			}
		})
	}
}

func TestPasswdOwners(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "etc/passwd"), "root:x:0:0::/root:/bin/bash\ncore:x:1000:1000::/home/core:/bin/bash\n", 0o644)
	mustWrite(t, filepath.Join(root, "etc/group"), "root:x:0:\nwheel:x:10:core\n", 0o644)
	o := PasswdOwners{Root: root}
	if id, err := o.UserID("core"); err != nil || id != 1000 {
		t.Errorf("core = %d, %v", id, err)
	}
	if id, err := o.GroupID("wheel"); err != nil || id != 10 {
		t.Errorf("wheel = %d, %v", id, err)
	}
	if _, err := o.UserID("ghost"); err == nil {
		t.Error("ghost resolved")
	}
}

// TestBackupApplyRestore writes a config over existing files and rolls it
// back: every path must be exactly as before, including removed ones.
func TestBackupApplyRestore(t *testing.T) {
	w, root := newWriter(t)
	mustWrite(t, filepath.Join(root, "etc/kept.conf"), "original", 0o640)
	mustWrite(t, filepath.Join(root, "etc/old.conf"), "old", 0o600)
	if err := os.MkdirAll(filepath.Join(root, "etc/systemd/system/multi-user.target.wants"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/systemd/system/prev.service", filepath.Join(root, "etc/systemd/system/multi-user.target.wants/x.service")); err != nil {
		t.Fatal(err)
	}
	nodes := []Node{
		{Path: "/etc/kept.conf", Kind: KindFile, Contents: []byte("new"), Mode: 0o644},
		{Path: "/etc/new.conf", Kind: KindFile, Contents: []byte("fresh"), Mode: 0o600},
		{Path: "/etc/old.conf", Kind: KindAbsent},
		{Path: "/etc/systemd/system/multi-user.target.wants/x.service", Kind: KindSymlink, Target: "/etc/systemd/system/x.service"},
	}
	backups, err := w.Backup(nodes)
	if err != nil {
		t.Fatal(err)
	}
	if backups[1].Name != "" || backups[0].Name == "" || backups[2].Name == "" || backups[3].Name == "" {
		t.Fatalf("backups %+v", backups)
	}
	if err := w.Apply(nodes, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Verify(nodes); err != nil {
		t.Fatalf("verify after apply: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/old.conf")); !os.IsNotExist(err) {
		t.Fatalf("old.conf not removed: %v", err)
	}
	// Restore twice: it must be idempotent (a crash during restore reruns it).
	for i := 0; i < 2; i++ {
		if err := w.Restore(backups); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(t, filepath.Join(root, "etc/kept.conf")); got != "original" {
		t.Errorf("kept.conf = %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(root, "etc/kept.conf")); fi.Mode().Perm() != 0o640 {
		t.Errorf("kept.conf mode %o", fi.Mode().Perm())
	}
	if got := read(t, filepath.Join(root, "etc/old.conf")); got != "old" {
		t.Errorf("old.conf = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/new.conf")); !os.IsNotExist(err) {
		t.Errorf("new.conf still there: %v", err)
	}
	if tgt, _ := os.Readlink(filepath.Join(root, "etc/systemd/system/multi-user.target.wants/x.service")); tgt != "/etc/systemd/system/prev.service" {
		t.Errorf("link restored to %q", tgt)
	}
	if err := w.Verify(nodes); err == nil {
		t.Error("verify passed after restore")
	}
}

// TestApplyInterrupted stops Apply after the first path, as a kill -9
// would, and checks every path holds either its old or its new content.
func TestApplyInterrupted(t *testing.T) {
	w, root := newWriter(t)
	mustWrite(t, filepath.Join(root, "etc/a"), "old-a", 0o644)
	mustWrite(t, filepath.Join(root, "etc/b"), "old-b", 0o644)
	nodes := []Node{
		{Path: "/etc/a", Kind: KindFile, Contents: []byte("new-a"), Mode: 0o644},
		{Path: "/etc/b", Kind: KindFile, Contents: []byte("new-b"), Mode: 0o644},
	}
	backups, err := w.Backup(nodes)
	if err != nil {
		t.Fatal(err)
	}
	// A leftover temp file of a killed write.
	mustWrite(t, filepath.Join(root, "etc/.b"+tmpMarker+"dead"), "ne", 0o600)
	stop := errStop{}
	func() {
		defer func() { _ = recover() }()
		_ = w.Apply(nodes, func(i int) { panic(stop) })
	}()
	if a, b := read(t, filepath.Join(root, "etc/a")), read(t, filepath.Join(root, "etc/b")); a != "new-a" || b != "old-b" {
		t.Fatalf("after interruption a=%q b=%q", a, b)
	}
	if err := w.Restore(backups); err != nil {
		t.Fatal(err)
	}
	if a := read(t, filepath.Join(root, "etc/a")); a != "old-a" {
		t.Fatalf("a=%q after restore", a)
	}
	ents, _ := os.ReadDir(filepath.Join(root, "etc"))
	for _, e := range ents {
		if IsTemp(e.Name()) {
			t.Errorf("temp file %s left", e.Name())
		}
	}
}

type errStop struct{}

func TestVerifyReportsDifferences(t *testing.T) {
	w, root := newWriter(t)
	mustWrite(t, filepath.Join(root, "etc/a"), "x", 0o600)
	err := w.Verify([]Node{{Path: "/etc/a", Kind: KindFile, Contents: []byte("x"), Mode: 0o644}, {Path: "/etc/b", Kind: KindFile}})
	if err == nil || !strings.Contains(err.Error(), "mode 600") || !strings.Contains(err.Error(), "/etc/b") {
		t.Fatalf("verify: %v", err)
	}
}
