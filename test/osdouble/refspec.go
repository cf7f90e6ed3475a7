package osdouble

import (
	"fmt"
	"strings"

	"github.com/containers/image/v5/docker/reference"
	"github.com/opencontainers/go-digest"
)

// Transports of ostree container image references (ostree-ext's
// OstreeImageReference), as they appear in an origin.
const (
	transportUnverifiedRegistry = "ostree-unverified-registry:"
	transportUnverifiedImage    = "ostree-unverified-image:"
	transportImageSigned        = "ostree-image-signed:"
	transportRemoteRegistry     = "ostree-remote-registry:"
	transportRemoteImage        = "ostree-remote-image:"
)

func isContainerRefspec(s string) bool {
	for _, p := range []string{transportUnverifiedRegistry, transportUnverifiedImage, transportImageSigned,
		transportRemoteRegistry, transportRemoteImage} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// imageNameFromRefspec returns the registry image ("host/repo@sha256:..." or
// with a tag) an unverified container refspec points to. Signed references
// need ostree remotes with keys, which the double does not have.
func imageNameFromRefspec(refspec string) (string, error) {
	switch {
	case strings.HasPrefix(refspec, transportUnverifiedRegistry):
		return strings.TrimPrefix(refspec, transportUnverifiedRegistry), nil
	case strings.HasPrefix(refspec, transportUnverifiedImage):
		rest := strings.TrimPrefix(refspec, transportUnverifiedImage)
		for _, t := range []string{"docker://", "registry:"} {
			if strings.HasPrefix(rest, t) {
				return strings.TrimPrefix(rest, t), nil
			}
		}
		return "", fmt.Errorf("unsupported image transport in %q (only registry images are supported)", refspec)
	case isContainerRefspec(refspec):
		return "", fmt.Errorf("signature verification is not supported by this rpm-ostree test double: %q (use %s)", refspec, transportUnverifiedRegistry)
	}
	return "", fmt.Errorf("not a container image reference: %q", refspec)
}

// withDigest pins image name to dgst ("host/repo@sha256:...").
func withDigest(name, dgst string) (string, error) {
	d, err := digest.Parse(dgst)
	if err != nil {
		return "", fmt.Errorf("invalid image digest %q: %w", dgst, err)
	}
	named, err := reference.ParseNormalizedNamed(name)
	if err != nil {
		return "", fmt.Errorf("invalid image reference %q: %w", name, err)
	}
	if c, ok := named.(reference.Canonical); ok && c.Digest() != d {
		return "", fmt.Errorf("image reference %s is pinned to %s, not %s", name, c.Digest(), d)
	}
	pinned, err := reference.WithDigest(reference.TrimNamed(named), d)
	if err != nil {
		return "", err
	}
	return pinned.String(), nil
}
