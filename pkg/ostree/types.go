// Package ostree drives rpm-ostree for tandem: it reads `rpm-ostree status
// --json`, stages OS images finalization-locked, finalizes them with
// rpm-ostree's checksum rule, and edits kernel arguments. It wraps the types
// of github.com/coreos/rpmostree-client-go, extending its Deployment with the
// fields that library lacks (finalization-locked, pinned, the image digest).
package ostree

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	rpmostreeclient "github.com/coreos/rpmostree-client-go/pkg/client"
	"github.com/coreos/rpmostree-client-go/pkg/imgref"
)

// UnverifiedRegistryTransport is the refspec prefix of images pulled from a
// registry without signature verification, as the MCO uses it.
const UnverifiedRegistryTransport = "ostree-unverified-registry:"

// Deployment is one entry of `rpm-ostree status --json`: the client library's
// Deployment plus the fields it does not know.
type Deployment struct {
	rpmostreeclient.Deployment
	// FinalizationLocked is true for a staged deployment that will not be
	// finalized at shutdown (rpm-ostree omits the field unless true).
	FinalizationLocked bool `json:"finalization-locked,omitempty"`
	// Pinned deployments are never garbage collected.
	Pinned bool `json:"pinned"`
	// BaseChecksum is the base commit of a layered deployment ("" when the
	// deployment is not layered: then the base commit is Checksum).
	BaseChecksum string `json:"base-checksum,omitempty"`
	// ContainerImageReferenceDigest is the manifest digest of the image the
	// deployment was made from.
	ContainerImageReferenceDigest string `json:"container-image-reference-digest,omitempty"`
	// BaseCommitMeta is the base commit's metadata.
	BaseCommitMeta map[string]any `json:"base-commit-meta,omitempty"`
	// Packages are the packages layered in the deployment's commit (the
	// active ones of RequestedPackages); BaseRemovals the base packages its
	// commit removed (RequestedBaseRemovals are the origin's requests).
	Packages     []string         `json:"packages,omitempty"`
	BaseRemovals []RemovedPackage `json:"base-removals,omitempty"`
}

// RemovedPackage is one entry of base-removals, which rpm-ostree prints as
// [nevra, name, epoch, version, release, arch] (rpmostree-core.cxx
// gv_nevra_from_pkg).
type RemovedPackage struct {
	NEVRA, Name string
}

// UnmarshalJSON reads the array form.
func (p *RemovedPackage) UnmarshalJSON(b []byte) error {
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("base-removals entry: %w", err)
	}
	if len(v) < 2 {
		return fmt.Errorf("base-removals entry %s: want [nevra, name, epoch, version, release, arch]", b)
	}
	nevra, ok1 := v[0].(string)
	name, ok2 := v[1].(string)
	if !ok1 || !ok2 {
		return fmt.Errorf("base-removals entry %s: want [nevra, name, epoch, version, release, arch]", b)
	}
	*p = RemovedPackage{NEVRA: nevra, Name: name}
	return nil
}

// deploymentExtra holds the fields Deployment adds, for decoding.
type deploymentExtra struct {
	FinalizationLocked            bool             `json:"finalization-locked"`
	Pinned                        bool             `json:"pinned"`
	BaseChecksum                  *string          `json:"base-checksum"`
	ContainerImageReferenceDigest string           `json:"container-image-reference-digest"`
	BaseCommitMeta                map[string]any   `json:"base-commit-meta"`
	Packages                      []string         `json:"packages"`
	BaseRemovals                  []RemovedPackage `json:"base-removals"`
}

// UnmarshalJSON decodes both the library's fields and the added ones, so the
// embedded Deployment (and its methods) stays complete.
func (d *Deployment) UnmarshalJSON(b []byte) error {
	var base rpmostreeclient.Deployment
	if err := json.Unmarshal(b, &base); err != nil {
		return err
	}
	var extra deploymentExtra
	if err := json.Unmarshal(b, &extra); err != nil {
		return err
	}
	*d = Deployment{
		Deployment:                    base,
		FinalizationLocked:            extra.FinalizationLocked,
		Pinned:                        extra.Pinned,
		ContainerImageReferenceDigest: extra.ContainerImageReferenceDigest,
		BaseCommitMeta:                extra.BaseCommitMeta,
		Packages:                      extra.Packages,
		BaseRemovals:                  extra.BaseRemovals,
	}
	if extra.BaseChecksum != nil {
		d.BaseChecksum = *extra.BaseChecksum
	}
	return nil
}

// GetBaseChecksum returns the base commit: BaseChecksum for a layered
// deployment, else Checksum. finalize-deployment compares against it.
func (d *Deployment) GetBaseChecksum() string {
	if d.BaseChecksum != "" {
		return d.BaseChecksum
	}
	return d.Deployment.GetBaseChecksum()
}

// ImageDigest returns the manifest digest of the image the deployment
// carries: container-image-reference-digest, else the ostree.manifest-digest
// ostree-ext records in the image's commit; "" when neither is known or the
// deployment is not a container one. The digest a container-image-reference
// is pinned to is never used: after `deploy <digest>` (rpm-ostree >= 2025.7)
// the reference keeps its old digest, and container-image-reference-digest
// can be missing (upstream issue #4185, non-fatal since).
func (d *Deployment) ImageDigest() string {
	if d.ContainerImageReference == "" {
		return ""
	}
	if d.ContainerImageReferenceDigest != "" {
		return d.ContainerImageReferenceDigest
	}
	if dg, _ := d.BaseCommitMeta["ostree.manifest-digest"].(string); IsDigest(dg) {
		return dg
	}
	return ""
}

// Image returns the image the deployment carries as a MachineConfig names
// it, "host/repo@sha256:...": the repository of its
// container-image-reference with any transport stripped as the MCO does
// (imgref.Parse, then the image; ostree-unverified-image:containers-storage:
// included, which the MCO uses for images from local storage), pinned to
// ImageDigest. "" for a non-container deployment or an unknown digest.
func (d *Deployment) Image() string {
	dgst := d.ImageDigest()
	if dgst == "" || !strings.Contains(d.ContainerImageReference, ":") {
		return ""
	}
	ref, err := imgref.Parse(d.ContainerImageReference)
	if err != nil {
		return ""
	}
	return repository(ref.Imgref.Image) + "@" + dgst
}

// repository strips a tag or digest from an image name.
func repository(name string) string {
	if i := strings.LastIndex(name, "@"); i >= 0 {
		return name[:i]
	}
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		return name[:i]
	}
	return name
}

// CarriesImage tells whether the deployment was made from imageRef
// ("host/repo@sha256:...", with or without an ostree transport), by digest.
func (d *Deployment) CarriesImage(imageRef string) bool {
	want, err := ImageDigest(imageRef)
	return err == nil && d.ImageDigest() == want
}

var digestRE = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

// IsDigest tells whether s is an image digest "sha256:<64 hex>".
func IsDigest(s string) bool { return digestRE.MatchString(s) }

var checksumRE = regexp.MustCompile(`^[a-f0-9]{64}$`)

// IsChecksum tells whether s is an ostree commit checksum (64 hex digits).
func IsChecksum(s string) bool { return checksumRE.MatchString(s) }

// ErrNoDigest is returned for an image reference that is not pinned by digest.
var ErrNoDigest = errors.New("image reference is not pinned by digest")

// ImageDigest returns the digest an image reference is pinned to:
// "host/repo@sha256:..." -> "sha256:...". An ostree transport prefix
// (ostree-unverified-registry:, ostree-unverified-image:docker://, ...) is allowed.
func ImageDigest(imageRef string) (string, error) {
	i := strings.LastIndex(imageRef, "@")
	if i < 0 {
		return "", fmt.Errorf("%q: %w", imageRef, ErrNoDigest)
	}
	dgst := imageRef[i+1:]
	if !IsDigest(dgst) {
		return "", fmt.Errorf("%q: invalid digest %q", imageRef, dgst)
	}
	return dgst, nil
}

// UpdateDriver is the registered update driver (e.g. zincati), if any.
type UpdateDriver struct {
	DriverName   string `json:"driver-name"`
	DriverSDUnit string `json:"driver-sd-unit"`
}

// Status is `rpm-ostree status --json`.
type Status struct {
	// Deployments, staged first, then the booted, then the rollback.
	Deployments []Deployment `json:"deployments"`
	// Transaction is the running transaction, nil when idle.
	Transaction *[]string `json:"transaction"`
	// CachedUpdate is left raw: tandem does not use it.
	CachedUpdate json.RawMessage `json:"cached-update,omitempty"`
	UpdateDriver *UpdateDriver   `json:"update-driver,omitempty"`
}

// ParseStatus decodes `rpm-ostree status --json` output.
func ParseStatus(b []byte) (*Status, error) {
	var s Status
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("failed to parse `rpm-ostree status --json` output: %w", err)
	}
	return &s, nil
}

// ErrNoBootedDeployment is returned by Booted when no deployment is booted.
var ErrNoBootedDeployment = errors.New("no booted deployment found")

// Booted returns the booted deployment.
func (s *Status) Booted() (*Deployment, error) {
	for i := range s.Deployments {
		if s.Deployments[i].Booted {
			return &s.Deployments[i], nil
		}
	}
	return nil, ErrNoBootedDeployment
}

// StagedDeployment returns the staged deployment, nil if there is none.
func (s *Status) StagedDeployment() *Deployment {
	for i := range s.Deployments {
		if s.Deployments[i].Staged {
			return &s.Deployments[i]
		}
	}
	return nil
}

// Rollback returns the deployment a rollback would boot (the first one that
// is neither booted nor staged), nil if there is none.
func (s *Status) Rollback() *Deployment {
	for i := range s.Deployments {
		if !s.Deployments[i].Booted && !s.Deployments[i].Staged {
			return &s.Deployments[i]
		}
	}
	return nil
}
