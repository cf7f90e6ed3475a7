package osdouble

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Packages, as far as the double models them.
//
// A commit's package database is a text file in its tree, RPMDBPath, one
// NEVRA per line: the stand-in for the rpmdb (usr/share/rpm/rpmdb.sqlite)
// rpm-ostree reads from a base commit (rpmostree_get_refsack_for_commit) to
// check `override remove` and `install` against the base. A commit without
// the file (a base deployment made by Init, an image without it) has no
// packages. Packages have no files, scripts or dependencies here: layering
// one adds its payload (the .rpm file) to the layered tree and its NEVRA to
// the package database, nothing else.

// RPMDBPath is where a commit's tree lists its packages.
const RPMDBPath = "/usr/share/rpm/osdouble-packages"

// LayeredPayloadDir is where a layered commit keeps the payload of each
// package it layers (<nevra>.rpm): the double's pkgcache.
const LayeredPayloadDir = "/usr/lib/osdouble/layered"

// NEVRA is an RPM's name, epoch, version, release and architecture.
type NEVRA struct {
	Name    string `json:"name"`
	Epoch   uint64 `json:"epoch,omitempty"`
	Version string `json:"version"`
	Release string `json:"release"`
	Arch    string `json:"arch"`
}

// String is libdnf's dnf_package_get_nevra: the epoch only when not 0.
func (p NEVRA) String() string {
	evr := p.Version + "-" + p.Release
	if p.Epoch != 0 {
		evr = strconv.FormatUint(p.Epoch, 10) + ":" + evr
	}
	return p.Name + "-" + evr + "." + p.Arch
}

// statusTuple is the (sstsss) rpm-ostree keeps for a removed base package
// (rpmostree-core.cxx gv_nevra_from_pkg) and status --json prints as an
// array: nevra, name, epoch, version, release, arch.
func (p NEVRA) statusTuple() []any {
	return []any{p.String(), p.Name, p.Epoch, p.Version, p.Release, p.Arch}
}

// ParseNEVRA splits "name-[epoch:]version-release.arch"; the name may
// contain dashes, so it is cut from the right.
func ParseNEVRA(s string) (NEVRA, error) {
	bad := fmt.Errorf("invalid NEVRA %q", s)
	dot := strings.LastIndex(s, ".")
	if dot < 0 {
		return NEVRA{}, bad
	}
	p := NEVRA{Arch: s[dot+1:]}
	rest := s[:dot]
	i := strings.LastIndex(rest, "-")
	if i < 0 {
		return NEVRA{}, bad
	}
	p.Release, rest = rest[i+1:], rest[:i]
	j := strings.LastIndex(rest, "-")
	if j < 0 {
		return NEVRA{}, bad
	}
	p.Name, p.Version = rest[:j], rest[j+1:]
	if e, v, ok := strings.Cut(p.Version, ":"); ok {
		epoch, err := strconv.ParseUint(e, 10, 64)
		if err != nil {
			return NEVRA{}, bad
		}
		p.Epoch, p.Version = epoch, v
	}
	if p.Name == "" || p.Version == "" || p.Release == "" || p.Arch == "" {
		return NEVRA{}, bad
	}
	return p, nil
}

// parseRPMDB reads a package database file.
func parseRPMDB(b []byte) ([]NEVRA, error) {
	var out []NEVRA
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := ParseNEVRA(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", RPMDBPath, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// FormatRPMDB is the content of a package database file listing pkgs.
func FormatRPMDB(pkgs []NEVRA) []byte {
	var b strings.Builder
	for _, p := range pkgs {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// commitPackages returns the packages of commit csum (none when the commit
// object or its package database is absent).
func (r *repo) commitPackages(csum string) ([]NEVRA, error) {
	c, err := r.loadCommit(csum)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(c.Files, func(f commitFile) bool { return f.Path == RPMDBPath })
	if i < 0 || c.Files[i].Object == "" {
		return nil, nil
	}
	b, err := os.ReadFile(r.objectPath(c.Files[i].Object, kindFile))
	if err != nil {
		return nil, fmt.Errorf("reading the package database of commit %s: %w", csum, err)
	}
	return parseRPMDB(b)
}

// byName returns the packages named name.
func byName(pkgs []NEVRA, name string) []NEVRA {
	var out []NEVRA
	for _, p := range pkgs {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// nodeArch is the node's RPM architecture (the double runs on the node).
func nodeArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "ppc64le", "s390x":
		return runtime.GOARCH
	}
	return runtime.GOARCH
}

// installable tells whether a package of arch can be installed on the node.
func installable(arch string) bool { return arch == nodeArch() || arch == "noarch" }

// CommitPackages returns the package database of a commit of the node whose
// sysroot is given (a deployment's Checksum: for a layered one, what its
// layers added and its overrides removed).
func CommitPackages(sysroot, checksum string) ([]NEVRA, error) {
	rp, err := openRepo(layout{sysroot: sysroot}.repoDir())
	if err != nil {
		return nil, err
	}
	return rp.commitPackages(checksum)
}
