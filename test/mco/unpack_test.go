//go:build mco

package mco

import (
	"context"

	ocilayout "github.com/containers/image/v5/oci/layout"
	"github.com/containers/image/v5/types"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/tandem-mco/tandem/test/imageunpack"
)

// unpack reads the image tag of the OCI layout dir as CRI-O and podman
// would and unpacks its layers into root. It returns the image config.
func unpack(ctx context.Context, dir, tag, root string) (*v1.Image, error) {
	ref, err := ocilayout.NewReference(dir, tag)
	if err != nil {
		return nil, err
	}
	return imageunpack.Apply(ctx, ref, &types.SystemContext{}, root)
}
