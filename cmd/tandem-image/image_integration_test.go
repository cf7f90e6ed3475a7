//go:build integration

package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/types"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/tandem-mco/tandem/test/imageunpack"
	"github.com/tandem-mco/tandem/test/osimage"
)

// TestImageSmoke builds the image the way `make image` does (static
// binaries on a base image from an OCI layout), pushes it to a registry on
// loopback, pulls it back with containers/image, unpacks it and runs both
// binaries' --version from the unpacked root.
func TestImageSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := t.TempDir()
	moduleDir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	// A base image with one file, so the test sees the base's layer kept.
	baseLayout := filepath.Join(dir, "base")
	writeBaseLayout(t, baseLayout, "base:1", "etc/base-release", "tandem smoke base\n")

	const wantVersion = "v0.0.0-smoke"
	commit := gitCommit(ctx, moduleDir)
	if commit == "" {
		commit = "smoke-commit"
	}
	out := filepath.Join(dir, "layout")
	res, err := Build(ctx, Options{
		Output: out, Tag: "tandem:smoke", Base: "oci:" + baseLayout + ":base:1", Arch: "amd64",
		Version: wantVersion, Commit: commit, Binaries: filepath.Join(dir, "bin"), ModuleDir: moduleDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Layers != 2 {
		t.Fatalf("image has %d layers, want 2 (base + binaries)", res.Layers)
	}

	reg, err := osimage.StartRegistry(ctx, filepath.Join(dir, "registry"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ref := reg.Host() + "/tandem:smoke"
	pushFromLayout(t, reg, out, "tandem:smoke", ref)

	root := filepath.Join(dir, "root")
	pullAndUnpack(ctx, t, reg, ref, root)

	if b, err := os.ReadFile(filepath.Join(root, "etc/base-release")); err != nil || string(b) != "tandem smoke base\n" {
		t.Fatalf("base layer missing from the unpacked image: %q, %v", b, err)
	}
	ran := 0
	for _, p := range Programs {
		bin := filepath.Join(root, "usr/bin", p)
		cmd := exec.CommandContext(ctx, bin, "--version")
		cmd.Env = []string{} // nothing from the test's environment
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s --version: %v\n%s", bin, err, b)
		}
		got := strings.TrimSpace(string(b))
		want := fmt.Sprintf("%s %s (commit %s,", p, wantVersion, commit)
		if !strings.HasPrefix(got, want) {
			t.Fatalf("%s --version = %q, want prefix %q", p, got, want)
		}
		t.Logf("%s", got)
		ran++
	}
	fmt.Printf("image-smoke: binaries=%d ok\n", ran)
}

// writeBaseLayout writes a one-layer image holding path=content into an
// OCI layout under ref.
func writeBaseLayout(t *testing.T, dir, ref, path, content string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Typeflag: tar.TypeDir, Name: filepath.Dir(path) + "/", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: path, Mode: 0o644, Size: int64(len(content))},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tw.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: ref})); err != nil {
		t.Fatal(err)
	}
}

// pushFromLayout pushes to the (private) test registry, with its
// credentials and trusting its CA.
func pushFromLayout(t *testing.T, reg *osimage.Registry, dir, tag, ref string) {
	t.Helper()
	img, err := imageFromLayout(dir, tag)
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	auth := remote.WithAuth(&authn.Basic{Username: reg.Username(), Password: reg.Password()})
	tr := remote.WithTransport(&http.Transport{TLSClientConfig: reg.ClientTLS()})
	if err := remote.Write(r, img, auth, tr); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
}

// pullAndUnpack reads the image with containers/image and applies its
// layers in order under root.
func pullAndUnpack(ctx context.Context, t *testing.T, reg *osimage.Registry, ref, root string) {
	t.Helper()
	dref, err := docker.ParseReference("//" + ref)
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	sys := &types.SystemContext{
		RootForImplicitAbsolutePaths: empty,
		SystemRegistriesConfPath:     filepath.Join(empty, "registries.conf"),
		SystemRegistriesConfDirPath:  filepath.Join(empty, "registries.conf.d"),
		AuthFilePath:                 filepath.Join(empty, "auth.json"),
		DockerCertPath:               filepath.Join(empty, "certs"),
	}
	if err := os.WriteFile(sys.SystemRegistriesConfPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sys.DockerCertPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys.DockerCertPath, "ca.crt"), reg.CAPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sys.AuthFilePath, reg.AuthJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := imageunpack.Apply(ctx, dref, sys, root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "linux" || cfg.Architecture != "amd64" {
		t.Fatalf("image platform %s/%s, want linux/amd64", cfg.OS, cfg.Architecture)
	}
}
