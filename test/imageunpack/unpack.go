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

// applyLayer applies one layer under root: regular files, directories and
// symlinks, with OCI whiteouts; an entry that leaves root or of another
// type is an error.
func applyLayer(tr *tar.Reader, root string) error {
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
		if !strings.HasPrefix(dst, filepath.Clean(root)+string(os.PathSeparator)) {
			return fmt.Errorf("layer entry %q leaves the root", h.Name)
		}
		if base := filepath.Base(rel); strings.HasPrefix(base, ".wh.") {
			if err := os.RemoveAll(filepath.Join(filepath.Dir(dst), strings.TrimPrefix(base, ".wh."))); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
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
	}
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
