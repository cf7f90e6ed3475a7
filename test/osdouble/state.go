package osdouble

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Deployment is the double's record of one deployment: what ostree keeps in
// its deployment dir, origin file and bootloader entry.
type Deployment struct {
	OSName    string `json:"osname"`
	Serial    int    `json:"serial"`
	Checksum  string `json:"checksum"`
	Version   string `json:"version,omitempty"`
	Timestamp int64  `json:"timestamp"`
	// Origin is the refspec it follows: "ostree-unverified-registry:host/repo@sha256:..."
	// for container images, "<osname>:base" for a base deployment made by Init.
	Origin string `json:"origin"`
	// ImageDigest is the manifest digest of the image it was made from, if any.
	ImageDigest string `json:"imageDigest,omitempty"`
	// Kargs are its kernel arguments.
	Kargs  []string `json:"kargs"`
	Pinned bool     `json:"pinned,omitempty"`
	// CommitMeta is shown as base-commit-meta.
	CommitMeta map[string]any `json:"commitMeta,omitempty"`

	// Package layering (see layering.go). The origin's requests, which
	// every new deployment made from this one carries over, and, when they
	// are active, the layered commit they produced: then Checksum is the
	// layered commit and BaseChecksum the base commit it was made from.
	RequestedPackages     []string `json:"requestedPackages,omitempty"`
	RequestedBaseRemovals []string `json:"requestedBaseRemovals,omitempty"`
	BaseChecksum          string   `json:"baseChecksum,omitempty"`
	BaseTimestamp         int64    `json:"baseTimestamp,omitempty"`
	// LayeredPackages are the layered commit's rpmostree.packages (the
	// active package requests); RemovedBasePackages its
	// rpmostree.removed-base-packages.
	LayeredPackages     []string       `json:"layeredPackages,omitempty"`
	RemovedBasePackages []NEVRA        `json:"removedBasePackages,omitempty"`
	LayeredCommitMeta   map[string]any `json:"layeredCommitMeta,omitempty"`
}

// Base is the base commit: BaseChecksum for a layered deployment, else
// Checksum. finalize-deployment and the image queries work on it.
func (d *Deployment) Base() string {
	if d.BaseChecksum != "" {
		return d.BaseChecksum
	}
	return d.Checksum
}

// IsLayered tells whether the deployment runs a layered commit.
func (d *Deployment) IsLayered() bool { return d.BaseChecksum != "" }

// ID is rpm-ostree's deployment id: "<osname>-<checksum>.<serial>".
func (d *Deployment) ID() string { return fmt.Sprintf("%s-%s.%d", d.OSName, d.Checksum, d.Serial) }

// IsContainer tells whether the deployment follows a container image.
func (d *Deployment) IsContainer() bool { return isContainerRefspec(d.Origin) }

func (d *Deployment) clone() *Deployment {
	c := *d
	c.Kargs = slices.Clone(d.Kargs)
	c.RequestedPackages = slices.Clone(d.RequestedPackages)
	c.RequestedBaseRemovals = slices.Clone(d.RequestedBaseRemovals)
	c.LayeredPackages = slices.Clone(d.LayeredPackages)
	c.RemovedBasePackages = slices.Clone(d.RemovedBasePackages)
	return &c
}

// bootList is what the bootloader offers: the first deployment boots.
type bootList struct {
	Deployments []Deployment `json:"deployments"`
}

// nodeState is everything status shows, read from disk.
type nodeState struct {
	boot   bootList
	staged *Deployment
	// keyLocked is the "locked" key of /run/ostree/staged-deployment;
	// legacyLocked is /run/ostree/staged-deployment-locked.
	keyLocked, legacyLocked bool
}

// locked is what ostree-finalize-staged decides at shutdown: the key, else
// the legacy lock file (ostree-sysroot-deploy.c,
// _ostree_sysroot_finalize_impl_staged_deployment).
func (s *nodeState) locked() bool { return s.staged != nil && (s.keyLocked || s.legacyLocked) }

// booted is the booted deployment: ostree boots the first bootloader entry,
// and the list only changes across reboots or by removing other entries.
func (s *nodeState) booted() *Deployment {
	if len(s.boot.Deployments) == 0 {
		return nil
	}
	return &s.boot.Deployments[0]
}

// defaultDeployment is what the next boot would use and what rpm-ostree takes
// the origin and kernel arguments from: the staged deployment, else the booted.
func (s *nodeState) defaultDeployment() *Deployment {
	if s.staged != nil {
		return s.staged
	}
	return s.booted()
}

// nextSerial is the deploy serial for a new deployment of checksum.
func (s *nodeState) nextSerial(checksum string) int {
	serial := 0
	for _, d := range s.boot.Deployments {
		if d.Checksum == checksum && d.Serial >= serial {
			serial = d.Serial + 1
		}
	}
	return serial
}

// ErrNotInitialized is returned for a sysroot Init has not set up.
var ErrNotInitialized = errors.New("sysroot not initialized (osdouble.Init)")

func loadState(l layout) (*nodeState, error) {
	s := &nodeState{}
	found, err := readJSON(l.bootFile(), &s.boot)
	if err != nil {
		return nil, err
	}
	if !found || len(s.boot.Deployments) == 0 {
		return nil, fmt.Errorf("%s: %w", l.sysroot, ErrNotInitialized)
	}
	if l.run == "" {
		return s, nil
	}
	rec, err := readStaged(l)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		s.staged, s.keyLocked = &rec.Deployment, rec.Locked
		if s.legacyLocked, err = exists(l.lockedFile()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func saveBootList(l layout, b bootList) error {
	durable := true
	if cfg, err := readRepoConfig(filepath.Join(l.repoDir(), "config")); err == nil {
		durable = cfg.fsync
	}
	return writeJSONAtomic(l.bootFile(), b, durable)
}

func removeIfExists(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// BootedDeployment returns the deployment the node boots (and, between
// reboots, runs).
func BootedDeployment(sysroot string) (*Deployment, error) {
	s, err := loadState(layout{sysroot: sysroot})
	if err != nil {
		return nil, err
	}
	return s.booted().clone(), nil
}

// Deployments returns the bootloader's deployments, booted first.
func Deployments(sysroot string) ([]Deployment, error) {
	s, err := loadState(layout{sysroot: sysroot})
	if err != nil {
		return nil, err
	}
	return s.boot.Deployments, nil
}

// StagedDeployment returns the staged deployment (nil if none) and whether
// it is finalization-locked: whether an orderly shutdown would leave it
// alone (the "locked" key of /run/ostree/staged-deployment or the legacy
// /run/ostree/staged-deployment-locked, as ostree decides).
func StagedDeployment(run string) (*Deployment, bool, error) {
	l := layout{run: run}
	rec, err := readStaged(l)
	if err != nil || rec == nil {
		return nil, false, err
	}
	legacy, err := exists(l.lockedFile())
	return &rec.Deployment, rec.Locked || legacy, err
}
