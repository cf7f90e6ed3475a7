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
	// stagedMerge is the staged deployment's merge-deployment.
	stagedMerge *Deployment
	// keyLocked is the "locked" key of /run/ostree/staged-deployment;
	// legacyLocked is /run/ostree/staged-deployment-locked.
	keyLocked, legacyLocked bool
	// bootedID is the deployment the running node booted (the boot
	// record); "" when the state was read without the run dir.
	bootedID string
}

// locked is what ostree-finalize-staged decides at shutdown: the key, else
// the legacy lock file (ostree-sysroot-deploy.c,
// _ostree_sysroot_finalize_impl_staged_deployment).
func (s *nodeState) locked() bool { return s.staged != nil && (s.keyLocked || s.legacyLocked) }

// booted is the booted deployment: the one the boot record names (see
// bootRecord), nil when the state was read without the run dir.
func (s *nodeState) booted() *Deployment {
	for i := range s.boot.Deployments {
		if s.boot.Deployments[i].ID() == s.bootedID {
			return &s.boot.Deployments[i]
		}
	}
	return nil
}

// deployments is ostree_sysroot_get_deployments: the staged deployment
// first, then the bootloader's.
func (s *nodeState) deployments() []*Deployment {
	var out []*Deployment
	if s.staged != nil {
		out = append(out, s.staged)
	}
	for i := range s.boot.Deployments {
		out = append(out, &s.boot.Deployments[i])
	}
	return out
}

// defaultDeployment is what rpm-ostree takes the origin and the kernel
// arguments of a new deployment from, and what `kargs` edits: the first
// deployment of the booted deployment's osname, the staged one included
// (src/daemon/rpmostree-sysroot-core.cxx
// rpmostree_syscore_get_origin_merge_deployment, used by the upgrader and
// GetDeploymentBootConfig; the same at v2023.12 and v2026.2). Not simply
// the first bootloader entry: another stateroot's deployment may come first.
func (s *nodeState) defaultDeployment() *Deployment {
	osname := ""
	if b := s.booted(); b != nil {
		osname = b.OSName
	}
	for _, d := range s.deployments() {
		if osname == "" || d.OSName == osname {
			return d
		}
	}
	return nil
}

// cfgMerge is ostree_sysroot_get_merge_deployment for the booted osname:
// the booted deployment (ostree-sysroot.c, v2025.7), whose /etc a new
// deployment merges and which its staged record names.
func (s *nodeState) cfgMerge() *Deployment { return s.booted() }

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
	if err := os.MkdirAll(l.run, 0o755); err != nil {
		return nil, err
	}
	rec, err := readStaged(l)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		s.staged, s.keyLocked, s.stagedMerge = &rec.Deployment, rec.Locked, &rec.Merge
		if s.legacyLocked, err = exists(l.lockedFile()); err != nil {
			return nil, err
		}
	}
	if s.bootedID, err = bootRecord(l, s.boot); err != nil {
		return nil, err
	}
	if s.booted() == nil {
		return nil, fmt.Errorf("%s: the booted deployment %s is not in the bootloader's list", l.sysroot, s.bootedID)
	}
	return s, nil
}

// bootRecord is which deployment the running node booted. ostree finds it
// by the device and inode of the deployment dir ostree-prepare-root
// recorded in /run/ostree-booted at boot (ostree-sysroot.c
// parse_deployment, v2025.7): it is what the bootloader booted, whatever
// the bootloader's list says since. The double records the deployment's
// id in <run>/ostree-booted: at each boot (Reboot, PowerLoss), or, on a
// run dir without one (a node made by Init; a VM that booted for real),
// the first time the state is read: then the first entry is what booted,
// as nothing changes the list between a boot and the double's first look.
func bootRecord(l layout, b bootList) (string, error) {
	var rec struct {
		Deployment string `json:"deployment"`
	}
	found, err := readJSON(l.bootedFile(), &rec)
	if err != nil || found {
		return rec.Deployment, err
	}
	return writeBootRecord(l, b)
}

// writeBootRecord records the bootloader's first entry as booted.
func writeBootRecord(l layout, b bootList) (string, error) {
	id := b.Deployments[0].ID()
	return id, writeJSONAtomic(l.bootedFile(), map[string]string{"deployment": id}, false)
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

// BootedDeployment returns the deployment the node booted (and runs): the
// one its run dir's boot record names (see bootRecord).
func BootedDeployment(sysroot, run string) (*Deployment, error) {
	s, err := loadState(layout{sysroot: sysroot, run: run})
	if err != nil {
		return nil, err
	}
	return s.booted().clone(), nil
}

// Deployments returns the bootloader's deployments, in its order.
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
