package osimage

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// Packages of the synthesized images, as the rpm-ostree double reads them
// (test/osdouble/packages.go, README.md):
//   - an OS image lists its packages, one NEVRA per line, in RPMDBPath, the
//     double's stand-in for the rpmdb;
//   - an extensions image (SynthesizeExtensions) is what the MCO's
//     baseOSExtensionsContainerImage is: an rpm-md repository under
//     ExtensionsRepoDir, with repodata/repomd.xml, a gzipped primary.xml in
//     createrepo_c's format, and one .rpm file per package. The .rpm files
//     are not real RPMs (no header, no payload cpio): bytes the double stores
//     as the package's content, checked against the metadata's sha256.

// RPMDBPath is the package database file of an OS image (without the
// leading "/"). The double reads the same path (osdouble.RPMDBPath).
const RPMDBPath = "usr/share/rpm/osdouble-packages"

// ExtensionsRepoDir is where an extensions image keeps its repository; the
// MCO points rpm-ostree at <extracted image>/usr/share/rpm-ostree/extensions/
// (pkg/daemon/update.go addExtensionsRepo, release-4.20 at afed09939d80).
const ExtensionsRepoDir = "usr/share/rpm-ostree/extensions"

// LabelExtensions marks an extensions image (its value: the version).
const LabelExtensions = "io.tandem.osimage.extensions"

// KernelVersion is the kernel of OS image version n, as its ostree.linux
// label and its kernel packages say.
func KernelVersion(n int) string { return fmt.Sprintf("6.0.%d", n) }

// DefaultPackages are the packages of OS image version n: the kernel
// packages the MCO overrides away for another kernel type
// (pkg/daemon/update.go getKernelPackagesForRelease, defaultKernel) and a
// few others.
func DefaultPackages(n int) []string {
	k := KernelVersion(n) + "-tandem.x86_64"
	v := strconv.Itoa(n)
	return []string{
		"bash-5.2.26-" + v + ".tandem.x86_64",
		"cri-o-1.34.0-" + v + ".tandem.x86_64",
		"kernel-" + k,
		"kernel-core-" + k,
		"kernel-modules-" + k,
		"kernel-modules-core-" + k,
		"kernel-modules-extra-" + k,
		"rpm-ostree-2026.2-" + v + ".tandem.x86_64",
		"systemd-257-" + v + ".tandem.x86_64",
	}
}

// ExtensionPackage is one package of an extensions repository.
type ExtensionPackage struct {
	Name, Version, Release, Arch string
}

// NEVRA is name-version-release.arch.
func (p ExtensionPackage) NEVRA() string {
	return p.Name + "-" + p.Version + "-" + p.Release + "." + p.Arch
}

// DefaultExtensionPackages are the packages of extensions image version n:
// every package of the MCO's supported extensions
// (pkg/controller/common/helpers.go SupportedExtensions, release-4.20 at
// afed09939d80), the realtime kernel for x86_64 and the 64k-pages kernel
// for aarch64 (GetPackagesForSupportedKernelType, same file), at the
// version of OS image n.
func DefaultExtensionPackages(n int) []ExtensionPackage {
	var out []ExtensionPackage
	rel := strconv.Itoa(n) + ".tandem"
	for _, name := range []string{"pacemaker", "pcs", "fence-agents-all", "crun-wasm", "NetworkManager-libreswan",
		"libreswan", "usbguard", "krb5-workstation", "libkadm5", "kata-containers", "sysstat"} {
		out = append(out, ExtensionPackage{Name: name, Version: "1." + strconv.Itoa(n), Release: rel, Arch: "x86_64"})
	}
	k := KernelVersion(n)
	for _, name := range []string{"kernel-devel", "kernel-headers"} {
		out = append(out, ExtensionPackage{Name: name, Version: k, Release: "tandem", Arch: "x86_64"})
	}
	for _, name := range []string{"kernel-rt-core", "kernel-rt-modules", "kernel-rt-modules-extra", "kernel-rt-kvm"} {
		out = append(out, ExtensionPackage{Name: name, Version: k, Release: "tandem.rt", Arch: "x86_64"})
	}
	for _, name := range []string{"kernel-64k-core", "kernel-64k-modules", "kernel-64k-modules-core", "kernel-64k-modules-extra"} {
		out = append(out, ExtensionPackage{Name: name, Version: k, Release: "tandem", Arch: "aarch64"})
	}
	return out
}

// ExtensionsOptions describe an extensions image.
type ExtensionsOptions struct {
	// Registry is where the image is pushed.
	Registry *Registry
	// Repo is the repository name; default "extensions".
	Repo string
	// Version >= 1 (the OS image version it goes with).
	Version int
	// Packages; nil means DefaultExtensionPackages(Version).
	Packages []ExtensionPackage
	// PackageBytes is the size of each .rpm; default 16 KiB.
	PackageBytes int
	// WorkDir holds the layer while it is built; default os.TempDir().
	WorkDir string
	// Tag is pushed as well; default "v<Version>".
	Tag string
}

// SynthesizeExtensions builds an extensions image and pushes it. The same
// options give the same digest.
func SynthesizeExtensions(ctx context.Context, o ExtensionsOptions) (*Image, error) {
	if o.Registry == nil || o.Version < 1 {
		return nil, errors.New("synthesize extensions: Registry and Version >= 1 are required")
	}
	if o.Repo == "" {
		o.Repo = "extensions"
	}
	if o.Packages == nil {
		o.Packages = DefaultExtensionPackages(o.Version)
	}
	if o.PackageBytes <= 0 {
		o.PackageBytes = 16 << 10
	}
	entries, err := extensionEntries(o)
	if err != nil {
		return nil, err
	}
	so := SynthOptions{Registry: o.Registry, Repo: o.Repo, Version: o.Version, Layers: 1, WorkDir: o.WorkDir, Tag: o.Tag,
		SourceDirs: []string{"/nonexistent"}}
	if so, err = so.withDefaults(); err != nil {
		return nil, err
	}
	so.VersionLabel = ""
	created := time.Unix(1700000000, 0).Add(time.Duration(o.Version) * 24 * time.Hour).UTC()
	return pushImage(ctx, so, entries, func(diffIDs []digest.Digest) v1.Image {
		return v1.Image{
			Created:  &created,
			Platform: v1.Platform{Architecture: "amd64", OS: "linux"},
			Config:   v1.ImageConfig{Labels: map[string]string{LabelExtensions: strconv.Itoa(o.Version)}},
			RootFS:   v1.RootFS{Type: "layers", DiffIDs: diffIDs},
			History:  []v1.History{{Created: &created, CreatedBy: "tandem osimage extensions"}},
		}
	})
}

// The parts of createrepo_c's primary.xml and repomd.xml that libdnf reads.
type primaryPackage struct {
	XMLName xml.Name `xml:"package"`
	Type    string   `xml:"type,attr"`
	Name    string   `xml:"name"`
	Arch    string   `xml:"arch"`
	Version struct {
		Epoch string `xml:"epoch,attr"`
		Ver   string `xml:"ver,attr"`
		Rel   string `xml:"rel,attr"`
	} `xml:"version"`
	Checksum struct {
		Type  string `xml:"type,attr"`
		PkgID string `xml:"pkgid,attr"`
		Value string `xml:",chardata"`
	} `xml:"checksum"`
	Summary string `xml:"summary"`
	Size    struct {
		Package int `xml:"package,attr"`
	} `xml:"size"`
	Location struct {
		Href string `xml:"href,attr"`
	} `xml:"location"`
}

type primaryMetadata struct {
	XMLName  xml.Name         `xml:"metadata"`
	Xmlns    string           `xml:"xmlns,attr"`
	XmlnsRPM string           `xml:"xmlns:rpm,attr"`
	Count    int              `xml:"packages,attr"`
	Packages []primaryPackage `xml:"package"`
}

type repomdData struct {
	Type     string `xml:"type,attr"`
	Checksum struct {
		Type  string `xml:"type,attr"`
		Value string `xml:",chardata"`
	} `xml:"checksum"`
	Location struct {
		Href string `xml:"href,attr"`
	} `xml:"location"`
	Timestamp int64 `xml:"timestamp"`
	Size      int   `xml:"size"`
}

type repomd struct {
	XMLName  xml.Name     `xml:"repomd"`
	Xmlns    string       `xml:"xmlns,attr"`
	Revision int64        `xml:"revision"`
	Data     []repomdData `xml:"data"`
}

func extensionEntries(o ExtensionsOptions) ([]entry, error) {
	md := primaryMetadata{Xmlns: "http://linux.duke.edu/metadata/common", XmlnsRPM: "http://linux.duke.edu/metadata/rpm"}
	var entries []entry
	for _, p := range o.Packages {
		payload := packagePayload(p, o.PackageBytes)
		sum := sha256.Sum256(payload)
		file := p.NEVRA() + ".rpm"
		entries = append(entries, entry{name: ExtensionsRepoDir + "/" + file, data: payload})
		pp := primaryPackage{Type: "rpm", Name: p.Name, Arch: p.Arch, Summary: p.Name + " (synthesized)"}
		pp.Version.Epoch, pp.Version.Ver, pp.Version.Rel = "0", p.Version, p.Release
		pp.Checksum.Type, pp.Checksum.PkgID, pp.Checksum.Value = "sha256", "YES", hex.EncodeToString(sum[:])
		pp.Size.Package = len(payload)
		pp.Location.Href = file
		md.Packages = append(md.Packages, pp)
	}
	md.Count = len(md.Packages)
	primary, err := xml.MarshalIndent(md, "", " ")
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.ModTime = time.Unix(0, 0)
	if _, err := zw.Write(append([]byte(xml.Header), primary...)); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	gzSum := sha256.Sum256(gz.Bytes())
	primaryName := "repodata/" + hex.EncodeToString(gzSum[:]) + "-primary.xml.gz"
	stamp := time.Unix(1700000000, 0).Add(time.Duration(o.Version) * 24 * time.Hour).Unix()
	rm := repomd{Xmlns: "http://linux.duke.edu/metadata/repo", Revision: stamp}
	d := repomdData{Type: "primary", Timestamp: stamp, Size: gz.Len()}
	d.Checksum.Type, d.Checksum.Value = "sha256", hex.EncodeToString(gzSum[:])
	d.Location.Href = primaryName
	rm.Data = append(rm.Data, d)
	repomdXML, err := xml.MarshalIndent(rm, "", " ")
	if err != nil {
		return nil, err
	}
	return append(entries,
		entry{name: ExtensionsRepoDir + "/" + primaryName, data: gz.Bytes()},
		entry{name: ExtensionsRepoDir + "/repodata/repomd.xml", data: append([]byte(xml.Header), repomdXML...)},
	), nil
}

// packagePayload is a package's .rpm: size bytes of a SHA-256 stream seeded
// with its NEVRA, so every package (and version) differs.
func packagePayload(p ExtensionPackage, size int) []byte {
	out := make([]byte, 0, size+sha256.Size)
	seed := sha256.Sum256([]byte(p.NEVRA()))
	var ctr [8]byte
	for i := uint64(0); len(out) < size; i++ {
		binary.LittleEndian.PutUint64(ctr[:], i)
		block := sha256.Sum256(append(seed[:], ctr[:]...))
		out = append(out, block[:]...)
	}
	return out[:size]
}

// WriteExtensionsRepo writes the repository an extensions image of o holds
// (the content of its ExtensionsRepoDir) into dir, for tests that give
// rpm-ostree a repository without pulling an image.
func WriteExtensionsRepo(dir string, o ExtensionsOptions) error {
	if o.Packages == nil {
		o.Packages = DefaultExtensionPackages(max(o.Version, 1))
	}
	if o.PackageBytes <= 0 {
		o.PackageBytes = 16 << 10
	}
	entries, err := extensionEntries(o)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(e.name, ExtensionsRepoDir+"/")))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, e.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
