// Package imageunpack reads an image the way CRI-O and podman do
// (containers/image, not the go-containerregistry code tandem's image
// builder writes with) and applies its layers to a directory, so that a
// test judges the image a node's runtime would see.
package imageunpack

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/containers/image/v5/image"
	"github.com/containers/image/v5/pkg/blobinfocache/none"
	"github.com/containers/image/v5/pkg/compression"
	"github.com/containers/image/v5/types"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// Apply opens ref with sys, applies its layers in order under root, and
// returns the image's config.
func Apply(ctx context.Context, ref types.ImageReference, sys *types.SystemContext, root string) (*v1.Image, error) {
	src, err := ref.NewImageSource(ctx, sys)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", ref.StringWithinTransport(), err)
	}
	defer src.Close()
	img, err := image.FromUnparsedImage(ctx, sys, image.UnparsedInstance(src, nil))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ref.StringWithinTransport(), err)
	}
	cfg, err := img.OCIConfig(ctx)
	if err != nil {
		return nil, err
	}
	for _, li := range img.LayerInfos() {
		if err := applyBlob(ctx, src, li, root); err != nil {
			return nil, fmt.Errorf("layer %s: %w", li.Digest, err)
		}
	}
	return cfg, nil
}

func applyBlob(ctx context.Context, src types.ImageSource, li types.BlobInfo, root string) error {
	rc, _, err := src.GetBlob(ctx, li, none.NoCache)
	if err != nil {
		return err
	}
	defer rc.Close()
	plain, _, err := compression.AutoDecompress(rc)
	if err != nil {
		return err
	}
	defer plain.Close()
	return applyLayer(tar.NewReader(plain), root)
}

// OCI whiteout names (image-spec layer.md, "Whiteouts"): a layer entry
// "<dir>/.wh.<name>" deletes <dir>/<name> from the layers below, and an
// entry "<dir>/.wh..wh..opq" makes <dir> opaque.
const (
	whiteoutPrefix = ".wh."
	opaqueWhiteout = ".wh..wh..opq"
)

// applyLayer applies one layer under root: regular files, directories and
// symlinks, with OCI whiteouts; an entry that leaves root or of another
// type is an error.
//
// An opaque whiteout "<dir>/.wh..wh..opq" removes everything under <dir>
// that the layers applied before hold, but keeps what this layer itself
// puts there, wherever the marker sits among the layer's entries: as
// containers/storage's UnpackLayer does
// (vendor/github.com/containers/storage/pkg/archive/diff.go, the
// WhiteoutOpaqueDir case), it removes every path under <dir> this layer
// has not yet unpacked, and this layer's later entries land after the
// removal. Unlike UnpackLayer, it also keeps the directories this layer
// created implicitly as parents of its entries (e.g. dir/sub for an entry
// dir/sub/c with no dir/sub/ entry of its own).
func applyLayer(tr *tar.Reader, root string) error {
	root = filepath.Clean(root)
	// unpacked holds the paths this layer has written, with their parent
	// directories: what an opaque whiteout in this layer must keep.
	unpacked := map[string]struct{}{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := filepath.Clean("/" + h.Name)
		dst := filepath.Join(root, rel)
		if !strings.HasPrefix(dst, root+string(os.PathSeparator)) {
			return fmt.Errorf("layer entry %q leaves the root", h.Name)
		}
		// As UnpackLayer does, for whiteouts too: the directory an opaque
		// marker names exists in the merged tree even if no layer has
		// it.
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		switch base := filepath.Base(rel); {
		case base == opaqueWhiteout:
			if err := hideLower(filepath.Dir(dst), unpacked); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(base, whiteoutPrefix):
			if err := os.RemoveAll(filepath.Join(filepath.Dir(dst), strings.TrimPrefix(base, whiteoutPrefix))); err != nil {
				return err
			}
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, os.FileMode(h.Mode).Perm()); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(dst, tr, os.FileMode(h.Mode).Perm()); err != nil {
				return err
			}
		case tar.TypeSymlink:
			_ = os.Remove(dst)
			if err := os.Symlink(h.Linkname, dst); err != nil {
				return err
			}
		default:
			return fmt.Errorf("layer entry %q: unsupported type %c", h.Name, h.Typeflag)
		}
		for p := dst; p != root; p = filepath.Dir(p) {
			unpacked[p] = struct{}{}
		}
	}
}

// hideLower removes everything under dir but the paths in keep: an opaque
// whiteout of dir, keep being what the layer itself has unpacked so far.
func hideLower(dir string, keep map[string]struct{}) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		if _, ok := keep[p]; ok {
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

func writeFile(dst string, r io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
