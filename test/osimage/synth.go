// Package osimage synthesizes bootable-looking OS container images for tests
// and benchmarks, and runs a container registry on loopback to serve them.
//
// An image of version N is built from real ELF files found on the machine
// (/usr/bin, /usr/lib, ...), each benignly mutated for N (see mutatedELF), so
// two versions share no file content: an update has to write every byte anew,
// as an OS update of that size does. The size is configurable: a few MiB in
// unit tests, several GiB in I/O benchmarks (the machine's files are reused,
// mutated differently, when there are fewer bytes of them than asked).
//
// The image config carries the labels the rpm-ostree double reads:
// "ostree.bootable", "containers.bootc", "version" and
// "org.opencontainers.image.version" (shown as the deployment's version) and
// "ostree.linux".
package osimage

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	v1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// Labels the synthesizer sets on every image.
const (
	LabelBootable      = "ostree.bootable"
	LabelBootc         = "containers.bootc"
	LabelVersion       = "version"
	LabelOCIVersion    = "org.opencontainers.image.version"
	LabelLinux         = "ostree.linux"
	LabelSynthVersion  = "io.tandem.osimage.version"
	LabelSynthSeed     = "io.tandem.osimage.seed"
	defaultRepo        = "os"
	defaultSize        = 4 << 20
	defaultLayers      = 4
	mediaTypeLayerTar  = "application/vnd.oci.image.layer.v1.tar"
	mediaTypeLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// SynthOptions describe the image to build.
type SynthOptions struct {
	// Registry is where the image is pushed; references name its Host().
	Registry *Registry
	// Repo is the repository name; default "os".
	Repo string
	// Version is the OS version number, >= 1. Each version has different content.
	Version int
	// SizeBytes is the approximate total size of the files in the image;
	// default 4 MiB.
	SizeBytes int64
	// Seed varies the content for the same version (two "vendors" of version N).
	Seed int64
	// Layers is the number of layers; default 4. Several layers make pull
	// progress visible.
	Layers int
	// Uncompressed stores layers as plain tar instead of gzip, so that a pull
	// is paced by the disk rather than by decompression on a small machine.
	Uncompressed bool
	// SourceDirs are searched for ELF files; default DefaultSourceDirs().
	SourceDirs []string
	// WorkDir holds the layer files while they are built and pushed;
	// default os.TempDir(). They are removed afterwards.
	WorkDir string
	// Tag is pushed as well as the digest; default "v<Version>".
	Tag string
	// VersionLabel is the version string rpm-ostree shows; default "tandem.<Version>".
	VersionLabel string
	// NotBootable leaves out the bootable labels (for negative tests).
	NotBootable bool
	// ExtraLabels are added to the image config.
	ExtraLabels map[string]string
	// Packages are the NEVRAs of the image's package database (RPMDBPath);
	// nil means DefaultPackages(Version).
	Packages []string
}

// Image describes a synthesized image.
type Image struct {
	// Ref is "host/repo@sha256:...".
	Ref string
	// Digest is the manifest digest "sha256:...".
	Digest string
	// VersionLabel is the version rpm-ostree will show.
	VersionLabel string
	// ContentBytes is the total size of the files in the image.
	ContentBytes int64
	// Files is the number of files in the image.
	Files int
	// Layers in manifest order.
	Layers []Layer
	// Config is the config blob's digest.
	Config string
}

// Layer describes one layer of a synthesized image.
type Layer struct {
	Digest       string // blob digest as stored in the registry
	DiffID       string // digest of the uncompressed tar
	Size         int64  // blob size
	Files        int
	ContentBytes int64
}

// Synthesize builds version opts.Version of the OS image and pushes it to the
// registry. It returns "host/repo@sha256:...". The same options give the same
// digest.
func Synthesize(ctx context.Context, opts SynthOptions) (string, error) {
	img, err := SynthesizeImage(ctx, opts)
	if err != nil {
		return "", err
	}
	return img.Ref, nil
}

// SynthesizeImage is Synthesize returning the image's details.
func SynthesizeImage(ctx context.Context, opts SynthOptions) (*Image, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	entries, err := planEntries(ctx, opts)
	if err != nil {
		return nil, err
	}
	return pushImage(ctx, opts, entries, func(diffIDs []digest.Digest) v1.Image { return imageConfig(opts, diffIDs) })
}

// pushImage builds entries into opts.Layers layers, pushes them, the config
// made by config and the manifest under opts.Tag.
func pushImage(ctx context.Context, opts SynthOptions, entries []entry, config func([]digest.Digest) v1.Image) (*Image, error) {
	groups := splitLayers(entries, opts.Layers)

	p := newPusher(opts.Registry, opts.Repo)
	img := &Image{VersionLabel: opts.VersionLabel}
	var descs []v1.Descriptor
	var diffIDs []digest.Digest
	for i, g := range groups {
		l, file, err := buildLayer(ctx, opts, i, g)
		if err != nil {
			return nil, err
		}
		err = p.pushBlobFile(ctx, l.Digest, file)
		_ = os.Remove(file)
		if err != nil {
			return nil, fmt.Errorf("push layer %d: %w", i, err)
		}
		mt := mediaTypeLayerGzip
		if opts.Uncompressed {
			mt = mediaTypeLayerTar
		}
		descs = append(descs, v1.Descriptor{MediaType: mt, Digest: digest.Digest(l.Digest), Size: l.Size})
		diffIDs = append(diffIDs, digest.Digest(l.DiffID))
		img.Layers = append(img.Layers, l)
		img.ContentBytes += l.ContentBytes
		img.Files += l.Files
	}

	configBlob, err := json.Marshal(config(diffIDs))
	if err != nil {
		return nil, err
	}
	configDigest := digest.FromBytes(configBlob)
	if err := p.pushBlobBytes(ctx, configDigest.String(), configBlob); err != nil {
		return nil, fmt.Errorf("push config: %w", err)
	}
	manifest := v1.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: v1.MediaTypeImageManifest,
		Config:    v1.Descriptor{MediaType: v1.MediaTypeImageConfig, Digest: configDigest, Size: int64(len(configBlob))},
		Layers:    descs,
	}
	manifestBlob, err := json.Marshal(manifest)
	if err != nil {
		return nil, err
	}
	manifestDigest := digest.FromBytes(manifestBlob)
	if err := p.pushManifest(ctx, opts.Tag, v1.MediaTypeImageManifest, manifestBlob); err != nil {
		return nil, err
	}
	img.Config = configDigest.String()
	img.Digest = manifestDigest.String()
	img.Ref = opts.Registry.Host() + "/" + opts.Repo + "@" + img.Digest
	return img, nil
}

func (o SynthOptions) withDefaults() (SynthOptions, error) {
	if o.Registry == nil {
		return o, errors.New("synthesize: Registry is required")
	}
	if o.Version < 1 {
		return o, fmt.Errorf("synthesize: Version must be >= 1, got %d", o.Version)
	}
	if o.Repo == "" {
		o.Repo = defaultRepo
	}
	if o.SizeBytes <= 0 {
		o.SizeBytes = defaultSize
	}
	if o.Layers <= 0 {
		o.Layers = defaultLayers
	}
	if len(o.SourceDirs) == 0 {
		o.SourceDirs = DefaultSourceDirs()
	}
	if o.WorkDir == "" {
		o.WorkDir = os.TempDir()
	}
	if o.Tag == "" {
		o.Tag = "v" + strconv.Itoa(o.Version)
	}
	if o.VersionLabel == "" {
		o.VersionLabel = "tandem." + strconv.Itoa(o.Version)
	}
	return o, nil
}

// entry is one file of the image.
type entry struct {
	name string // path inside the image, without leading "/"
	elf  *mutatedELF
	data []byte // for small generated files
}

func (e entry) size() int64 {
	if e.elf != nil {
		return e.elf.Size()
	}
	return int64(len(e.data))
}

// planEntries picks the files of the image: an os-release, then mutated ELF
// files until SizeBytes is reached, reusing the machine's files as further
// copies (mutated differently) when they are too few.
func planEntries(ctx context.Context, o SynthOptions) ([]entry, error) {
	srcs, err := findELFs(ctx, o.SourceDirs, o.SizeBytes)
	if err != nil {
		return nil, err
	}
	osRelease := fmt.Sprintf("NAME=\"Tandem OS\"\nID=tandem\nVERSION_ID=%q\nOSTREE_VERSION=%q\nTANDEM_SEED=%d\n",
		o.VersionLabel, o.VersionLabel, o.Seed)
	pkgs := o.Packages
	if pkgs == nil {
		pkgs = DefaultPackages(o.Version)
	}
	entries := []entry{
		{name: "usr/lib/os-release", data: []byte(osRelease)},
		{name: RPMDBPath, data: []byte(strings.Join(pkgs, "\n") + "\n")},
	}
	var total int64
	for c := 0; total < o.SizeBytes; c++ {
		for _, s := range srcs {
			if total >= o.SizeBytes {
				break
			}
			me, err := newMutatedELF(s, mutation{version: o.Version, seed: o.Seed, copy: c})
			if err != nil {
				continue // vanished or unreadable since the walk
			}
			name := s.path[1:]
			if c > 0 {
				name = path.Join("usr/lib/tandem-copies", strconv.Itoa(c), name)
			}
			entries = append(entries, entry{name: name, elf: me})
			total += me.Size()
		}
		if c > 0 && total == 0 {
			return nil, errors.New("synthesize: no readable ELF files")
		}
	}
	return entries, nil
}

// splitLayers cuts entries into n groups of about equal byte size, in order.
func splitLayers(entries []entry, n int) [][]entry {
	var total int64
	for _, e := range entries {
		total += e.size()
	}
	n = min(n, len(entries))
	groups := make([][]entry, 0, n)
	var cur []entry
	var acc int64
	for i, e := range entries {
		cur = append(cur, e)
		acc += e.size()
		left := len(entries) - i - 1
		need := n - len(groups) - 1 // groups still to fill after this one
		if need > 0 && (acc*int64(n) >= total*int64(len(groups)+1) || left == need) {
			groups = append(groups, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// buildLayer writes layer i to a file in WorkDir and returns its description.
func buildLayer(ctx context.Context, o SynthOptions, i int, entries []entry) (Layer, string, error) {
	f, err := os.CreateTemp(o.WorkDir, fmt.Sprintf("osimage-v%d-layer%d-*.tar", o.Version, i))
	if err != nil {
		return Layer{}, "", err
	}
	name := f.Name()
	l, err := writeLayer(ctx, o, entries, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(name)
		return Layer{}, "", fmt.Errorf("build layer %d: %w", i, err)
	}
	return l, name, nil
}

func writeLayer(ctx context.Context, o SynthOptions, entries []entry, f *os.File) (Layer, error) {
	var l Layer
	bw := bufio.NewWriterSize(f, 1<<20)
	blobHash := sha256.New()
	blob := &countWriter{w: io.MultiWriter(bw, blobHash)}
	diffHash := sha256.New()
	var tarOut io.Writer
	var gz *gzip.Writer
	if o.Uncompressed {
		tarOut = blob
	} else {
		gz, _ = gzip.NewWriterLevel(blob, gzip.BestSpeed)
		tarOut = io.MultiWriter(gz, diffHash)
	}
	tw := tar.NewWriter(tarOut)
	mtime := time.Unix(1700000000, 0).Add(time.Duration(o.Version) * 24 * time.Hour).UTC()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return l, err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg, Name: e.name, Size: e.size(), Mode: 0o755,
			ModTime: mtime, Format: tar.FormatPAX,
		}
		if e.elf == nil {
			hdr.Mode = 0o644
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return l, err
		}
		var err error
		if e.elf != nil {
			_, err = e.elf.WriteTo(tw)
		} else {
			_, err = tw.Write(e.data)
		}
		if err != nil {
			return l, fmt.Errorf("%s: %w", e.name, err)
		}
		l.Files++
		l.ContentBytes += e.size()
	}
	if err := tw.Close(); err != nil {
		return l, err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return l, err
		}
	}
	if err := bw.Flush(); err != nil {
		return l, err
	}
	l.Size = blob.n
	l.Digest = hashDigest(blobHash)
	if o.Uncompressed {
		l.DiffID = l.Digest
	} else {
		l.DiffID = hashDigest(diffHash)
	}
	return l, nil
}

func imageConfig(o SynthOptions, diffIDs []digest.Digest) v1.Image {
	created := time.Unix(1700000000, 0).Add(time.Duration(o.Version) * 24 * time.Hour).UTC()
	labels := map[string]string{
		LabelVersion:      o.VersionLabel,
		LabelOCIVersion:   o.VersionLabel,
		LabelLinux:        fmt.Sprintf("6.0.%d-tandem.x86_64", o.Version),
		LabelSynthVersion: strconv.Itoa(o.Version),
		LabelSynthSeed:    strconv.FormatInt(o.Seed, 10),
	}
	if !o.NotBootable {
		labels[LabelBootable] = "true"
		labels[LabelBootc] = "1"
	}
	for k, v := range o.ExtraLabels {
		labels[k] = v
	}
	history := make([]v1.History, len(diffIDs))
	for i := range history {
		history[i] = v1.History{Created: &created, CreatedBy: fmt.Sprintf("tandem osimage layer %d", i)}
	}
	return v1.Image{
		Created:  &created,
		Platform: v1.Platform{Architecture: "amd64", OS: "linux"},
		Config:   v1.ImageConfig{Labels: labels, Cmd: []string{"/usr/bin/bash"}},
		RootFS:   v1.RootFS{Type: "layers", DiffIDs: diffIDs},
		History:  history,
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func hashDigest(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }
