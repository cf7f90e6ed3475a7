package mcosrc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pinned = "db84d8368ef78e50f3bc0961dcf2b27a7975e053"

// tree makes a repository root with fork/mco.env and a package directory
// below it, and runs the test from that directory.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "fork"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := "# pinned\nMCO_REPO=https://example.test/mco\nMCO_BRANCH=release-4.21\nMCO_COMMIT=" + pinned + "\n"
	if err := os.WriteFile(filepath.Join(root, "fork", "mco.env"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "manifests", "monitoring")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	return root
}

// checkout makes a checkout at commit in the cache and links it at fork/mco.
func checkout(t *testing.T, root, commit string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src-"+commit)
	if err := os.MkdirAll(filepath.Join(src, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte(commit+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(root, "fork", "mco")); err != nil {
		t.Fatal(err)
	}
	return src
}

func TestLocateWithoutTheCheckoutSaysHowToGetIt(t *testing.T) {
	tree(t)
	_, err := Locate()
	if err == nil || !strings.Contains(err.Error(), "hack/mco/build.sh") {
		t.Fatalf("Locate() without fork/mco: %v, want an error naming hack/mco/build.sh", err)
	}
	t.Log(err)
}

func TestLocateRefusesAnotherCommit(t *testing.T) {
	root := tree(t)
	checkout(t, root, "afed09939d80d86cafd38e9f733cc49ed16af092")
	_, err := Locate()
	if err == nil || !strings.Contains(err.Error(), "pins "+pinned) || !strings.Contains(err.Error(), "hack/mco/build.sh") {
		t.Fatalf("Locate() with a checkout at another commit: %v", err)
	}
}

func TestLocateFindsThePinnedCheckout(t *testing.T) {
	root := tree(t)
	src := checkout(t, root, pinned)
	s, err := Locate()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(src)
	if s.Dir != want || s.Commit != pinned || s.Branch != "release-4.21" {
		t.Errorf("Locate() = %+v, want %s at %s (release-4.21)", s, want, pinned)
	}
	if got := s.Path("install/x.yaml"); got != filepath.Join(want, "install", "x.yaml") {
		t.Errorf("Path = %s", got)
	}
}
