package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestBuildMCOLeavesNoneOfTheBaseMCOsFiles builds the MCO image on a base
// that is itself an MCO image of another z-stream (an OS layer, then the
// old MCO's /manifests, /etc/mcc/templates and binaries) and flattens the
// result as a runtime would: none of the old MCO's files survive, the new
// ones replace theirs, and the OS layer's files are kept.
func TestBuildMCOLeavesNoneOfTheBaseMCOsFiles(t *testing.T) {
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "src"), filepath.Join(dir, "bin")
	writeFiles(t, src, map[string]string{
		"install/0000_80_machine-config_04_deployment.yaml": "new deployment\n",
		"templates/common/_base/units/x.yaml":               "new template\n",
	})
	// requireStatic reads only the ELF header: one without an interpreter,
	// followed by the program's name so that the test can tell the copies.
	programs := map[string]string{}
	for _, p := range MCOPrograms {
		programs[p] = string(staticELFHeader(t)) + "new " + p
	}
	programs["fork.env"] = "MCO_SRC=" + src + "\nMCO_COMMIT=c0ffee\nVERSION_RAW=v4.21.0-test\nVERSION_HASH=h\n"
	writeFiles(t, bin, programs)
	for _, p := range MCOPrograms {
		if err := os.Chmod(filepath.Join(bin, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	base := filepath.Join(dir, "base")
	writeLayers(t, base, "old-mco", []map[string]string{{
		"etc/base-release": "base\n",
		"usr/bin/bash":     "bash\n",
		"etc/mcc/keep":     "a sibling of the templates\n",
	}, {
		"manifests/0000_99_stale.yaml":                        "stale\n",
		"manifests/0000_80_machine-config_04_deployment.yaml": "old deployment\n",
		"etc/mcc/templates/stale/x.yaml":                      "stale\n",
		"etc/mcc/templates/common/_base/units/x.yaml":         "old template\n",
		"usr/bin/machine-config-daemon":                       "old daemon\n",
		"usr/bin/machine-config-daemon.rhel8":                 "old daemon\n",
		"usr/bin/machine-config-tests-ext.gz":                 "old tests\n",
	}})

	out := filepath.Join(dir, "out")
	if _, err := BuildMCO(context.Background(), MCOOptions{Output: out, Tag: "mco:test", Base: "oci:" + base + ":old-mco", Arch: "amd64", ForkBin: bin}); err != nil {
		t.Fatal(err)
	}
	img, err := imageFromLayout(out, "mco:test")
	if err != nil {
		t.Fatal(err)
	}

	// A streaming unpacker applies a whiteout where it meets it, so in
	// each new layer a whiteout must come before its directory's new
	// content (layer.md: before sibling entries).
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers[2:] {
		var written []string
		for _, h := range tarEntries(t, l.Uncompressed) {
			name := path.Clean(h.Name)
			if !strings.HasPrefix(path.Base(name), ".wh.") {
				written = append(written, name)
				continue
			}
			// An opaque whiteout hides what its directory holds, another
			// whiteout the one name (and, a directory, what it holds).
			hidden, opaque := path.Join(path.Dir(name), strings.TrimPrefix(path.Base(name), ".wh.")), path.Base(name) == ".wh..wh..opq"
			if opaque {
				hidden = path.Dir(name)
			}
			for _, w := range written {
				if strings.HasPrefix(w, hidden+"/") || !opaque && w == hidden {
					t.Errorf("layer writes %s before the whiteout %s", w, name)
				}
			}
		}
	}

	files := map[string]string{}
	for _, h := range tarEntries(t, func() (io.ReadCloser, error) { return mutate.Extract(img), nil }) {
		files[h.Name] = h.content
	}
	staleFiles := []string{
		"manifests/0000_99_stale.yaml", "etc/mcc/templates/stale", "etc/mcc/templates/stale/x.yaml",
		"usr/bin/machine-config-daemon.rhel8", "usr/bin/machine-config-tests-ext.gz",
	}
	survived := 0
	for _, stale := range staleFiles {
		if _, ok := files[stale]; ok {
			survived++
			t.Errorf("the base's /%s survives in the image", stale)
		}
	}
	fmt.Printf("mco-image-base: stale_files=%d/%d\n", survived, len(staleFiles))
	for name, want := range map[string]string{
		"manifests/0000_80_machine-config_04_deployment.yaml": "new deployment\n",
		"etc/mcc/templates/common/_base/units/x.yaml":         "new template\n",
		"usr/bin/machine-config-daemon":                       programs["machine-config-daemon"],
		"etc/base-release":                                    "base\n",
		"usr/bin/bash":                                        "bash\n",
		"etc/mcc/keep":                                        "a sibling of the templates\n",
	} {
		if got, ok := files[name]; !ok || got != want {
			t.Errorf("/%s = %q (present %t), want %q", name, got, ok, want)
		}
	}
	for name := range files {
		if strings.HasPrefix(path.Base(name), ".wh.") {
			t.Errorf("whiteout %s left in the flattened image", name)
		}
	}
}

// staticELFHeader is a 64-bit ELF header with no program headers: an
// executable without an interpreter to requireStatic.
func staticELFHeader(t *testing.T) []byte {
	h := elf.Header64{Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT), Ehsize: 64, Phentsize: 56, Shentsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeLayers writes an image of one layer per map (path: content, with
// their parent directories) into a new OCI layout at dir under ref.
func writeLayers(t *testing.T, dir, ref string, layers []map[string]string) {
	t.Helper()
	img := empty.Image
	for _, files := range layers {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		dirs := map[string]bool{}
		for name := range files {
			for d := path.Dir(name); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		for _, d := range slices.Sorted(maps.Keys(dirs)) {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(files[name]))}); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write([]byte(files[name])); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
		if err != nil {
			t.Fatal(err)
		}
		if img, err = mutate.AppendLayers(img, layer); err != nil {
			t.Fatal(err)
		}
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: ref})); err != nil {
		t.Fatal(err)
	}
}

type tarEntry struct {
	*tar.Header
	content string
}

func tarEntries(t *testing.T, open func() (io.ReadCloser, error)) []tarEntry {
	t.Helper()
	rc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out []tarEntry
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tarEntry{h, string(b)})
	}
}
