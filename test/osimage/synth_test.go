package osimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layerFiles reads a stored layer blob back: path -> content.
func layerFiles(t *testing.T, reg *Registry, l Layer) map[string][]byte {
	t.Helper()
	p, err := reg.BlobPath(l.Digest)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if gz, err := gzip.NewReader(f); err == nil {
		r = gz
	} else if _, serr := f.Seek(0, io.SeekStart); serr != nil {
		t.Fatal(serr)
	}
	out := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("layer %s: %v", l.Digest, err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = b
	}
}

func startRegistry(t *testing.T) *Registry {
	t.Helper()
	reg, err := StartRegistry(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

func TestSynthesizeVersionsDifferAndStayValidELF(t *testing.T) {
	ctx := context.Background()
	reg := startRegistry(t)
	opts := SynthOptions{Registry: reg, Version: 1, SizeBytes: 2 << 20, Layers: 3, WorkDir: t.TempDir()}
	v1, err := SynthesizeImage(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	again, err := SynthesizeImage(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != v1.Digest {
		t.Errorf("same options gave digests %s and %s", v1.Digest, again.Digest)
	}
	opts.Version = 2
	v2, err := SynthesizeImage(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Digest == v1.Digest {
		t.Fatal("versions 1 and 2 have the same digest")
	}
	if len(v1.Layers) != 3 || v1.ContentBytes < 2<<20 {
		t.Errorf("v1: %d layers, %d bytes; want 3 layers, >= 2 MiB", len(v1.Layers), v1.ContentBytes)
	}
	if !strings.HasPrefix(v1.Ref, reg.Host()+"/os@sha256:") {
		t.Errorf("ref %q", v1.Ref)
	}

	files1, files2 := map[string][]byte{}, map[string][]byte{}
	for _, l := range v1.Layers {
		for k, v := range layerFiles(t, reg, l) {
			files1[k] = v
		}
	}
	for _, l := range v2.Layers {
		for k, v := range layerFiles(t, reg, l) {
			files2[k] = v
		}
	}
	if len(files1) != v1.Files {
		t.Errorf("read %d files back, image has %d", len(files1), v1.Files)
	}
	elves := 0
	for name, b1 := range files1 {
		b2, ok := files2[name]
		if !ok {
			t.Errorf("%s missing from v2", name)
			continue
		}
		if bytes.Equal(b1, b2) {
			t.Errorf("%s is identical in v1 and v2", name)
		}
		if name == "usr/lib/os-release" || name == RPMDBPath {
			continue
		}
		ef, err := elf.NewFile(bytes.NewReader(b1))
		if err != nil {
			t.Errorf("%s is no longer a valid ELF file: %v", name, err)
			continue
		}
		if _, err := ef.Sections[len(ef.Sections)-1].Data(); err != nil && ef.Sections[len(ef.Sections)-1].Type != elf.SHT_NOBITS {
			t.Errorf("%s: last section unreadable: %v", name, err)
		}
		elves++
	}
	if elves == 0 {
		t.Fatal("no ELF files in the image")
	}
}

func TestSynthesizeReusesFilesWhenTheMachineHasTooFew(t *testing.T) {
	src := t.TempDir()
	self, err := os.Executable() // the test binary is an ELF file
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "tool"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := startRegistry(t)
	want := int64(len(b)) * 7 / 2 // three and a half copies
	img, err := SynthesizeImage(context.Background(), SynthOptions{Registry: reg, Version: 3,
		SizeBytes: want, Layers: 2, Uncompressed: true, SourceDirs: []string{src}, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if img.ContentBytes < want {
		t.Errorf("content %d bytes, want >= %d", img.ContentBytes, want)
	}
	files := map[string][]byte{}
	for _, l := range img.Layers {
		if l.Digest != l.DiffID {
			t.Errorf("uncompressed layer: digest %s != diffID %s", l.Digest, l.DiffID)
		}
		for k, v := range layerFiles(t, reg, l) {
			files[k] = v
		}
	}
	seen := map[string]bool{}
	for name, content := range files {
		if !strings.HasSuffix(name, "/tool") {
			continue
		}
		if seen[string(content)] {
			t.Errorf("%s repeats the content of another copy", name)
		}
		seen[string(content)] = true
	}
	if len(seen) < 4 {
		t.Errorf("got %d distinct copies of the tool, want 4", len(seen))
	}
}

func TestSplitLayers(t *testing.T) {
	mk := func(sizes ...int) []entry {
		var es []entry
		for _, s := range sizes {
			es = append(es, entry{data: make([]byte, s)})
		}
		return es
	}
	tests := []struct {
		name  string
		sizes []int
		n     int
		want  []int // entries per layer
	}{
		{"even", []int{10, 10, 10, 10}, 2, []int{2, 2}},
		{"more layers than files", []int{10, 10}, 4, []int{1, 1}},
		{"one big file first", []int{100, 1, 1, 1}, 2, []int{1, 3}},
		{"every layer gets a file", []int{1, 1, 1, 100}, 4, []int{1, 1, 1, 1}},
		{"single layer", []int{5, 5, 5}, 1, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitLayers(mk(tt.sizes...), tt.n)
			var counts []int
			for _, g := range got {
				counts = append(counts, len(g))
			}
			if len(counts) != len(tt.want) {
				t.Fatalf("layers %v, want %v", counts, tt.want)
			}
			for i := range counts {
				if counts[i] != tt.want[i] {
					t.Fatalf("layers %v, want %v", counts, tt.want)
				}
			}
		})
	}
}

func TestCorruptBlobKeepsSizeAndChangesContent(t *testing.T) {
	reg := startRegistry(t)
	img, err := SynthesizeImage(context.Background(), SynthOptions{Registry: reg, Version: 1, SizeBytes: 256 << 10, Layers: 1, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.BlobPath(img.Layers[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CorruptBlob(img.Layers[0].Digest); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || bytes.Equal(before, after) {
		t.Fatalf("corruption: size %d -> %d, changed %v", len(before), len(after), !bytes.Equal(before, after))
	}
}
