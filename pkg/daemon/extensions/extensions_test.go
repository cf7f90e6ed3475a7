package extensions

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-mco/tandem/test/osimage"
)

func registry(t *testing.T) *osimage.Registry {
	t.Helper()
	reg, err := osimage.StartRegistry(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

// hostFiles writes files (by host path) under root.
func hostFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// trusted makes the host trust the (private) registry: its CA in certs.d,
// its credentials in the cluster's pull secret.
func trusted(t *testing.T, root string, reg *osimage.Registry) {
	t.Helper()
	hostFiles(t, root, reg.TrustFiles())
	hostFiles(t, root, map[string]string{KubeletAuthFile: string(reg.AuthJSON())})
}

func TestProvideLaysOutTheRepositoryLikeTheMCO(t *testing.T) {
	ctx := context.Background()
	reg := registry(t)
	img, err := osimage.SynthesizeExtensions(ctx, osimage.ExtensionsOptions{Registry: reg, Version: 1, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	r := &Repo{Root: root, HostRun: filepath.Join(root, "run")}
	// A registry whose CA the host does not trust is refused, as podman on
	// the host would refuse it; trusted, it still wants the pull secret.
	if _, err := r.Provide(ctx, img.Ref); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("pulled from a registry the host does not trust: %v", err)
	}
	hostFiles(t, root, reg.TrustFiles())
	if _, err := r.Provide(ctx, img.Ref); err == nil || !strings.Contains(err.Error(), "unauthorized") {
		t.Fatalf("pulled without the pull secret: %v", err)
	}
	trusted(t, root, reg)
	release, err := r.Provide(ctx, img.Ref)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, RepoFile))
	if err != nil {
		t.Fatal(err)
	}
	// pkg/daemon/update.go addExtensionsRepo (release-4.20 at afed09939d80).
	want := regexp.MustCompile(`^\[coreos-extensions\]\nenabled=1\nmetadata_expire=1m\nbaseurl=/run/mco-extensions/os-extensions-content-[^/]+/usr/share/rpm-ostree/extensions/\ngpgcheck=0\nskip_if_unavailable=False\n$`)
	if !want.Match(b) {
		t.Fatalf("repo file:\n%s", b)
	}
	baseurl := strings.TrimSuffix(strings.Split(strings.Split(string(b), "baseurl=")[1], "\n")[0], "/")
	dir := filepath.Join(root, baseurl) // /run is HostRun here
	for _, f := range []string{"repodata/repomd.xml", "usbguard-1.1-1.tandem.x86_64.rpm", "kernel-rt-core-6.0.1-tandem.rt.x86_64.rpm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("extracted repository lacks %s: %v", f, err)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, RepoFile), dir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after release: %v", p, err)
		}
	}
}

func TestProvideRefusesABrokenImage(t *testing.T) {
	ctx := context.Background()
	reg := registry(t)
	img, err := osimage.SynthesizeExtensions(ctx, osimage.ExtensionsOptions{Registry: reg, Version: 2, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CorruptBlob(img.Layers[0].Digest); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	trusted(t, root, reg)
	r := &Repo{Root: root, HostRun: filepath.Join(root, "run")}
	if _, err := r.Provide(ctx, img.Ref); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("a corrupted layer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, RepoFile)); !os.IsNotExist(err) {
		t.Errorf("a failed Provide left the repo file: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "run", "mco-extensions"))
	if len(entries) != 0 {
		t.Errorf("a failed Provide left %v", entries)
	}
	// An OS image is not an extensions image.
	osImg, err := osimage.SynthesizeImage(ctx, osimage.SynthOptions{Registry: reg, Version: 1, SizeBytes: 64 << 10, Layers: 1, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Provide(ctx, osImg.Ref); err == nil || !strings.Contains(err.Error(), "has no /usr/share/rpm-ostree/extensions") {
		t.Fatalf("an image without a repository: %v", err)
	}
}
