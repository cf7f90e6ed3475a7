package osdouble

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Profile is one rpm-ostree release (with the ostree it runs on) whose
// contract the double keeps. Every difference is pinned to upstream source;
// test/osdouble/README.md cites the file and tag of each field.
type Profile struct {
	// Name is the profile's name: the version `rpm-ostree --version` prints.
	Name string
	// Git is the " Git:" line of `rpm-ostree --version`.
	Git string
	// Features are the " Features:" of `rpm-ostree --version`
	// (rust/src/utils.rs get_features: rust, compose, container, then the
	// build's cargo features; Fedora builds add fedora-integration).
	Features []string
	// Ostree is the ostree release the profile's node runs (the staging and
	// shutdown-finalization rules come from it).
	Ostree string

	// LockInStagedFile: `--lock-finalization` is passed to ostree
	// (OstreeSysrootDeployTreeOpts.locked, rpm-ostree >= 2024.6, commit
	// 37c7228d), which records it as the "locked" key of
	// /run/ostree/staged-deployment. Without it rpm-ostree touches the
	// legacy /run/ostree/staged-deployment-locked before staging, and
	// finalize-deployment unlinks that file.
	LockInStagedFile bool
	// ModuleFields: status --json carries requested-modules,
	// requested-modules-enabled and modules (removed in 2024.7 by commit
	// 42383644 "Remove all modularity support").
	ModuleFields bool
	// ContainerDigests: `deploy <digest>` and `rebase REFSPEC <digest>` on a
	// container origin are supported, and finalize-deployment compares a
	// container deployment against its image digest, not its base checksum
	// (rpm-ostree >= 2025.7, commits 2d021f5d and e47214b7).
	ContainerDigests bool
	// LayeringSkipsBaseDB: on a host booted from a container image,
	// `install` does not refuse packages the base already provides
	// (rpm-ostree >= 2026.1, commit 4d4196e2 "don't use base-db when
	// idempotent"); before, they fail "... is already provided by".
	LayeringSkipsBaseDB bool
	// UsrLibAuth: a pull looks for its auth file in /usr/lib/ostree after
	// /run/ostree and /etc/ostree (ostree-ext >= 0.13, commit 2d1aa898
	// "Support /usr/lib/ostree/auth.json"; rpm-ostree v2024.6 pins 0.13.4).
	UsrLibAuth bool
	// ExactKargsIfPresent: `kargs --append-if-missing` and
	// `--delete-if-present` compare the whole argument ("KEY=VAL") with
	// the existing ones, and delete-if-present runs after the appends
	// against the kernel arguments the transaction started from
	// (rpm-ostree >= 2024.1, commit 3b7b2768). Before, both test only the
	// key (ostree_kernel_args_contains) and an `--append-if-missing` of a
	// present key is skipped.
	ExactKargsIfPresent bool
	// SplitKargs: every kernel argument given to append, delete and replace
	// is split on spaces outside double quotes, and so is the deployment's
	// options line (ostree >= 2024.5, commit abc7d5b9 "kargs: parse spaces
	// in kargs input and keep quotes"); before, an argument is taken whole
	// and the options line is split on every space.
	SplitKargs bool
}

// The profiles, oldest first. The newest is the default everywhere.
var profiles = []Profile{
	{
		Name: "2023.12", Git: "v2023.12", Features: []string{"rust", "compose", "container", "fedora-integration"},
		Ostree: "2023.8", ModuleFields: true,
	},
	{
		Name: "2024.6", Git: "v2024.6", Features: []string{"rust", "compose", "container", "fedora-integration"},
		Ostree: "2024.5", LockInStagedFile: true, ModuleFields: true, UsrLibAuth: true, ExactKargsIfPresent: true, SplitKargs: true,
	},
	{
		Name: "2025.7", Git: "v2025.7", Features: []string{"rust", "compose", "container", "fedora-integration"},
		Ostree: "2025.2", LockInStagedFile: true, ContainerDigests: true, UsrLibAuth: true, ExactKargsIfPresent: true, SplitKargs: true,
	},
	{
		Name: "2026.2", Git: "v2026.2", Features: []string{"rust", "compose", "container", "fedora-integration"},
		Ostree: "2025.7", LockInStagedFile: true, ContainerDigests: true, LayeringSkipsBaseDB: true,
		UsrLibAuth: true, ExactKargsIfPresent: true, SplitKargs: true,
	},
}

// DefaultProfile is the newest profile, used when a node names none.
const DefaultProfile = "2026.2"

// Profiles returns every profile's name, oldest first.
func Profiles() []string {
	out := make([]string, len(profiles))
	for i, p := range profiles {
		out[i] = p.Name
	}
	return out
}

// LookupProfile returns the profile called name ("" is DefaultProfile).
func LookupProfile(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	i := slices.IndexFunc(profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, fmt.Errorf("unknown rpm-ostree profile %q (have %s)", name, strings.Join(Profiles(), ", "))
	}
	p := profiles[i]
	p.Features = slices.Clone(p.Features)
	return p, nil
}

// versionText is what `rpm-ostree --version` prints (src/app/libmain.cxx:
// YAML with Version, Git, Features).
func (p Profile) versionText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rpm-ostree:\n Version: '%s'\n Git: %s\n Features:\n", p.Name, p.Git)
	for _, f := range p.Features {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	return b.String()
}

// The profile a node runs is part of its sysroot: the installed rpm-ostree.
func profileFile(sysroot string) string {
	return filepath.Join(sysroot, "ostree", "osdouble-rpm-ostree-profile")
}

// NodeProfile returns the profile of the node whose sysroot is given.
func NodeProfile(sysroot string) (Profile, error) {
	b, err := os.ReadFile(profileFile(sysroot))
	if errors.Is(err, os.ErrNotExist) {
		return LookupProfile("")
	}
	if err != nil {
		return Profile{}, err
	}
	return LookupProfile(strings.TrimSpace(string(b)))
}

func writeProfile(sysroot, name string) error {
	p, err := LookupProfile(name)
	if err != nil {
		return err
	}
	return writeFileAtomic(profileFile(sysroot), []byte(p.Name+"\n"), true)
}
