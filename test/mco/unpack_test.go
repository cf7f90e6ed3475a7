//go:build mco

package mco

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
	ocilayout "github.com/containers/image/v5/oci/layout"
	"github.com/containers/image/v5/pkg/blobinfocache/none"
	"github.com/containers/image/v5/pkg/compression"
	"github.com/containers/image/v5/types"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// unpack reads the image tag of the OCI layout dir with containers/image
// (the reader CRI-O and podman use, not the go-containerregistry code that
// wrote it) and unpacks its layers into root. It returns the image config.
func unpack(ctx context.Context, dir, tag, root string) (*v1.Image, error) {
	ref, err := ocilayout.NewReference(dir, tag)
	if err != nil {
		return nil, err
	}
	sys := &types.SystemContext{}
	src, err := ref.NewImageSource(ctx, sys)
	if err != nil {
		return nil, fmt.Errorf("opening %s:%s: %w", dir, tag, err)
	}
	defer src.Close()
	img, err := image.FromUnparsedImage(ctx, sys, image.UnparsedInstance(src, nil))
	if err != nil {
		return nil, err
	}
	cfg, err := img.OCIConfig(ctx)
	if err != nil {
		return nil, err
	}
	for _, li := range img.LayerInfos() {
		rc, _, err := src.GetBlob(ctx, li, none.NoCache)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", li.Digest, err)
		}
		plain, _, err := compression.AutoDecompress(rc)
		if err != nil {
			rc.Close()
			return nil, err
		}
		err = untar(plain, root)
		plain.Close()
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", li.Digest, err)
		}
	}
	return cfg, nil
}

func untar(r io.Reader, root string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			return fmt.Errorf("entry %q leaves the root", h.Name)
		}
		p := filepath.Join(root, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q: type %c not expected in the MCO image", h.Name, h.Typeflag)
		}
	}
}
