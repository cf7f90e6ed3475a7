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

// insecure marks the registry plain-HTTP in the host's registries.conf, as
// an admin would for a mirror without TLS.
func insecure(t *testing.T, root, host string) {
	t.Helper()
	p := filepath.Join(root, "etc", "containers", "registries.conf")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("[[registry]]\nlocation = \""+host+"\"\ninsecure = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProvideLaysOutTheRepositoryLikeTheMCO(t *testing.T) {
	ctx := context.Background()
	reg := registry(t)
	img, err := osimage.SynthesizeExtensions(ctx, osimage.ExtensionsOptions{Registry: reg.Host(), Version: 1, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	r := &Repo{Root: root, HostRun: filepath.Join(root, "run")}
	// Without the host's registries.conf saying so, a plain-HTTP registry
	// is refused, as podman on the host would refuse it.
	if _, err := r.Provide(ctx, img.Ref); err == nil {
		t.Fatal("pulled from a plain-HTTP registry the host does not trust")
	}
	insecure(t, root, reg.Host())
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
	img, err := osimage.SynthesizeExtensions(ctx, osimage.ExtensionsOptions{Registry: reg.Host(), Version: 2, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CorruptBlob(img.Layers[0].Digest); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	insecure(t, root, reg.Host())
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
	osImg, err := osimage.SynthesizeImage(ctx, osimage.SynthOptions{Registry: reg.Host(), Version: 1, SizeBytes: 64 << 10, Layers: 1, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Provide(ctx, osImg.Ref); err == nil || !strings.Contains(err.Error(), "has no /usr/share/rpm-ostree/extensions") {
		t.Fatalf("an image without a repository: %v", err)
	}
}
