package osupdate

import (
	"testing"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/ostree"
)

// TestViewComparesLikeAMachineConfig: the image a deployment is reported
// with equals the osImageURL of the MachineConfig it was made from, whatever
// transport rpm-ostree shows, and is never the stale digest of a reference.
func TestViewComparesLikeAMachineConfig(t *testing.T) {
	const d = "sha256:90780b08939d913d9cfc5565eecdd12055dd57301b2109985e149830a92ed6b1"
	const old = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	osImageURL := "registry.test/openshift-release-dev/ocp-v4.0-art-dev@" + d
	tests := []struct {
		name, ref, digest string
		meta              map[string]any
		want              string
	}{
		{"registry", "ostree-unverified-registry:" + osImageURL, d, nil, osImageURL},
		// The MCO's RebaseLayeredFromContainerStorage (pkg/daemon/rpm-ostree.go).
		{"containers-storage", "ostree-unverified-image:containers-storage:" + osImageURL, d, nil, osImageURL},
		{"deployed digest under an old reference", "ostree-unverified-registry:registry.test/openshift-release-dev/ocp-v4.0-art-dev@" + old, d, nil, osImageURL},
		{"no digest field, commit metadata", "ostree-unverified-registry:registry.test/openshift-release-dev/ocp-v4.0-art-dev@" + old, "", map[string]any{"ostree.manifest-digest": d}, osImageURL},
		{"no digest known", "ostree-unverified-registry:registry.test/openshift-release-dev/ocp-v4.0-art-dev@" + old, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dep ostree.Deployment
			dep.Checksum = "c0ffee"
			dep.ContainerImageReference, dep.ContainerImageReferenceDigest, dep.BaseCommitMeta = tt.ref, tt.digest, tt.meta
			got := view(&dep)
			if got.Image != tt.want {
				t.Errorf("Image %q, want %q", got.Image, tt.want)
			}
			if tt.want != "" && got.Image != daemon.NormalizeImage(osImageURL) {
				t.Errorf("Image %q does not compare equal to the MachineConfig's %q", got.Image, osImageURL)
			}
		})
	}
}
