package imageunpack

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one tar entry of a test layer: a name ending in "/" is a
// directory, any other a regular file whose content is its name.
type entry string

func layerTar(t *testing.T, entries []entry) *tar.Reader {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		name := string(e)
		h := &tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(name))}
		if strings.HasSuffix(name, "/") {
			h = &tar.Header{Name: name, Mode: 0o755, Typeflag: tar.TypeDir}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return tar.NewReader(&buf)
}

// tree lists root's contents as slash-separated paths, directories with a
// trailing "/", and fails the test if a file's content is not the name of
// the entry that wrote it.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if string(b) != rel {
			t.Errorf("%s holds %q, want %q", rel, b, rel)
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApplyLayerWhiteouts(t *testing.T) {
	lower := []entry{"dir/", "dir/a", "dir/sub/", "dir/sub/b", "other/", "other/x"}
	for _, tc := range []struct {
		name   string
		layers [][]entry // applied in order: the first is the lowest
		want   []string
	}{{
		name: "opaque marker before the layer's entries",
		layers: [][]entry{lower,
			{"dir/", "dir/.wh..wh..opq", "dir/c"}},
		want: []string{"dir/", "dir/c", "other/", "other/x"},
	}, {
		name: "opaque marker after the layer's entries",
		layers: [][]entry{lower,
			{"dir/", "dir/c", "dir/.wh..wh..opq"}},
		want: []string{"dir/", "dir/c", "other/", "other/x"},
	}, {
		name: "opaque marker keeps the layer's subdirectory but not lower content in it",
		layers: [][]entry{lower,
			{"dir/", "dir/sub/", "dir/sub/c", "dir/.wh..wh..opq"}},
		want: []string{"dir/", "dir/sub/", "dir/sub/c", "other/", "other/x"},
	}, {
		name: "opaque marker after entries whose parent has no entry of its own",
		layers: [][]entry{lower,
			{"dir/sub/c", "dir/.wh..wh..opq"}},
		want: []string{"dir/", "dir/sub/", "dir/sub/c", "other/", "other/x"},
	}, {
		name: "opaque marker hides lower layers only, not higher ones",
		layers: [][]entry{lower,
			{"dir/", "dir/c", "dir/.wh..wh..opq"},
			{"dir/d"}},
		want: []string{"dir/", "dir/c", "dir/d", "other/", "other/x"},
	}, {
		name: "opaque marker at the root",
		layers: [][]entry{lower,
			{".wh..wh..opq", "top"}},
		want: []string{"top"},
	}, {
		name: "opaque marker for a directory no lower layer has",
		layers: [][]entry{lower,
			{"new/.wh..wh..opq", "new/c"}},
		want: []string{"dir/", "dir/a", "dir/sub/", "dir/sub/b", "new/", "new/c", "other/", "other/x"},
	}, {
		name: "ordinary whiteouts of a file and a directory",
		layers: [][]entry{lower,
			{"dir/.wh.a", "dir/.wh.sub", "dir/c"}},
		want: []string{"dir/", "dir/c", "other/", "other/x"},
	}, {
		name: "ordinary whiteout then the name again",
		layers: [][]entry{lower,
			{"dir/.wh.sub", "dir/sub/", "dir/sub/c"}},
		want: []string{"dir/", "dir/a", "dir/sub/", "dir/sub/c", "other/", "other/x"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for i, l := range tc.layers {
				if err := applyLayer(layerTar(t, l), root); err != nil {
					t.Fatalf("layer %d: %v", i, err)
				}
			}
			got := tree(t, root)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("tree after the layers:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
