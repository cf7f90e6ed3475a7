package osdouble

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/image"
	"github.com/containers/image/v5/manifest"
	"github.com/containers/image/v5/pkg/blobinfocache/none"
	"github.com/containers/image/v5/pkg/compression"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	"github.com/opencontainers/go-digest"
)

// Labels read from an image config, as ostree-ext reads them.
const (
	labelOCIVersion = "org.opencontainers.image.version"
	labelVersion    = "version"
	labelBootable   = "ostree.bootable"
	labelBootc      = "containers.bootc"
)

// ostreeExtVersion is the ostree.importer.version of FCOS 43's commits.
const ostreeExtVersion = "0.15.3"

// imported is the result of a pull: the commit an image became.
type imported struct {
	commit         string
	manifestDigest string
	version        string
	timestamp      int64
	meta           map[string]any
	alreadyPresent bool
}

// systemContext is the container stack of the node as rpm-ostree's pull
// sees it (skopeo's experimental-image-proxy, started by ostree-ext without
// TLS or certificate-directory options): the node's registries.conf (an
// `insecure` registry skips TLS verification), TLS verified against the CAs
// of the node's /etc/containers/certs.d/<host:port>/, else
// /etc/docker/certs.d/<host:port>/ (containers-certs.d(5): the first that
// exists), and as credentials only the auth file ostree-ext found
// (pullauth.go), or none (anonymous). Nothing of this machine's own
// configuration is read: whatever the node lacks resolves under a
// directory of its sysroot that holds nothing.
func systemContext(l layout, env pullEnv, hostPort string) (*types.SystemContext, error) {
	scratch := filepath.Join(l.ostreeDir(), "containers-root")
	empty := filepath.Join(scratch, "registries.conf") // an empty registries.conf means defaults
	if ok, err := exists(empty); err != nil {
		return nil, err
	} else if !ok {
		if err := writeFileAtomic(empty, nil, false); err != nil {
			return nil, err
		}
	}
	sys := &types.SystemContext{
		RootForImplicitAbsolutePaths: scratch,
		SystemRegistriesConfPath:     empty,
		SystemRegistriesConfDirPath:  filepath.Join(scratch, "registries.conf.d"),
		RegistriesDirPath:            filepath.Join(scratch, "registries.d"),
		AuthFilePath:                 env.authFile,
		DockerPerHostCertDirPath:     filepath.Join(scratch, "certs.d"),
		BlobInfoCacheDir:             filepath.Join(scratch, "cache"),
		DockerRegistryUserAgent:      "rpm-ostree (tandem osdouble)",
	}
	if env.authFile == "" {
		sys.DockerAuthConfig = &types.DockerAuthConfig{} // skopeo --no-creds
	}
	if env.root == "" {
		return sys, nil
	}
	conf := filepath.Join(env.root, "etc", "containers", "registries.conf")
	if ok, err := exists(conf); err != nil {
		return nil, err
	} else if ok {
		sys.SystemRegistriesConfPath = conf
	}
	sys.SystemRegistriesConfDirPath = filepath.Join(env.root, "etc", "containers", "registries.conf.d")
	for _, d := range []string{"etc/containers/certs.d", "etc/docker/certs.d"} {
		dir := filepath.Join(env.root, d, hostPort)
		if ok, err := exists(dir); err != nil {
			return nil, err
		} else if ok {
			sys.DockerCertPath = dir
			break
		}
	}
	return sys, nil
}

// acceptAnything is the signature policy of ostree-unverified-registry.
func acceptAnything() (*signature.PolicyContext, error) {
	return signature.NewPolicyContext(&signature.Policy{
		Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()},
	})
}

// pull imports the image name ("host/repo@sha256:..." or with a tag) into the
// repo and returns its commit. display is the refspec shown in messages.
func pull(ctx context.Context, l layout, env pullEnv, rp *repo, name, display string, r *reporter) (*imported, error) {
	ref, err := docker.ParseReference("//" + name)
	if err != nil {
		return nil, fmt.Errorf("parsing image reference %q: %w", name, err)
	}
	r.p.Image, r.p.Phase, r.p.PerObjectFsync = name, PhasePulling, rp.cfg.fsync && rp.cfg.perObjectFsync
	r.save()
	r.message("Pulling manifest: %s", display)
	sys, err := systemContext(l, env, reference.Domain(ref.DockerReference()))
	if err != nil {
		return nil, err
	}
	src, err := ref.NewImageSource(ctx, sys)
	if err != nil {
		return nil, fmt.Errorf("Creating importer: failed to invoke method OpenImage: %w", err)
	}
	defer src.Close()

	unparsed := image.UnparsedInstance(src, nil)
	policy, err := acceptAnything()
	if err != nil {
		return nil, err
	}
	defer func() { _ = policy.Destroy() }()
	if ok, err := policy.IsRunningImageAllowed(ctx, unparsed); !ok || err != nil {
		return nil, fmt.Errorf("image %s rejected by signature policy: %w", name, err)
	}
	// For a reference by digest, Manifest verifies the manifest against it.
	manifestBlob, _, err := unparsed.Manifest(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetching manifest of %s: %w", name, err)
	}
	manifestDigest, err := manifest.Digest(manifestBlob)
	if err != nil {
		return nil, err
	}
	r.p.ManifestDigest = manifestDigest.String()

	if csum, ok, err := rp.imageCommit(manifestDigest.String()); err != nil {
		return nil, err
	} else if ok {
		return importedFromCommit(rp, csum, manifestDigest.String())
	}

	img, err := image.FromUnparsedImage(ctx, sys, unparsed)
	if err != nil {
		return nil, fmt.Errorf("reading image %s: %w", name, err)
	}
	cfg, err := img.OCIConfig(ctx) // verifies the config blob's digest
	if err != nil {
		return nil, fmt.Errorf("reading config of %s: %w", name, err)
	}
	labels := cfg.Config.Labels
	if labels[labelBootable] == "" && labels[labelBootc] == "" {
		return nil, fmt.Errorf("Target image does not have %s label: %s", labelBootable, name)
	}
	layers := img.LayerInfos()
	if len(layers) != len(cfg.RootFS.DiffIDs) {
		return nil, fmt.Errorf("image %s: %d layers but %d diff_ids", name, len(layers), len(cfg.RootFS.DiffIDs))
	}

	r.message("Importing: %s (digest: %s)", display, manifestDigest)
	for _, li := range layers {
		r.p.BytesTotal += li.Size
	}
	r.p.LayersTotal = len(layers)
	r.message("ostree chunk layers needed: %d (%s)", len(layers), formatSize(r.p.BytesTotal))
	r.save()

	rp.onWrite = func() { r.written(rp.stats) }
	t := newTree()
	for i, li := range layers {
		r.beginTask("[%d/%d] Fetching ostree chunk %s (%s)", i, len(layers), shortDigest(li.Digest), formatSize(li.Size))
		if err := importLayer(ctx, src, li, cfg.RootFS.DiffIDs[i], rp, t, r); err != nil {
			return nil, err
		}
		// The file first, then the line: whoever reacts to the line sees it.
		r.p.LayersDone = i + 1
		r.written(rp.stats)
		r.save()
		r.endTask("done")
	}

	r.p.Phase = PhaseCommitting
	r.save()
	if err := rp.syncAll(); err != nil {
		return nil, err
	}
	version := labels[labelOCIVersion]
	if version == "" {
		version = labels[labelVersion]
	}
	var created int64
	if cfg.Created != nil {
		created = cfg.Created.Unix()
	}
	configBlob, err := img.ConfigBlob(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading config of %s: %w", name, err)
	}
	// The metadata ostree-ext gives an image's merge commit, as
	// base-commit-meta shows it (zincati tests/fixtures/rpm-ostree-status.json,
	// FCOS 43). The version comes from the image's labels, as rpm-ostree's
	// query_container_image_commit reads it.
	c := &commit{
		Timestamp: created,
		Version:   version,
		Metadata: map[string]any{
			"ostree.manifest-digest":        manifestDigest.String(),
			"ostree.manifest":               string(manifestBlob),
			"ostree.container.image-config": string(configBlob),
			"ostree.importer.version":       ostreeExtVersion,
		},
		Files: t.files(),
	}
	if v := labels[LabelBootFails]; v != "" {
		c.Metadata[LabelBootFails] = v
	}
	csum, err := rp.writeCommit(c)
	if err != nil {
		return nil, err
	}
	if err := rp.setImageCommit(manifestDigest.String(), csum); err != nil {
		return nil, err
	}
	return &imported{commit: csum, manifestDigest: manifestDigest.String(), version: version,
		timestamp: created, meta: c.Metadata}, nil
}

func importedFromCommit(rp *repo, csum, manifestDigest string) (*imported, error) {
	c, err := rp.loadCommit(csum)
	if err != nil {
		return nil, err
	}
	return &imported{commit: csum, manifestDigest: manifestDigest, version: c.Version,
		timestamp: c.Timestamp, meta: c.Metadata, alreadyPresent: true}, nil
}

// importLayer streams one layer from the registry into the repo, verifying
// the blob digest and the diffID. A digest mismatch is reported as such even
// when the corrupted bytes broke decompression first.
func importLayer(ctx context.Context, src types.ImageSource, li types.BlobInfo, diffID digest.Digest,
	rp *repo, t *tree, r *reporter) error {
	if err := li.Digest.Validate(); err != nil {
		return fmt.Errorf("layer digest %q: %w", li.Digest, err)
	}
	rc, _, err := src.GetBlob(ctx, li, none.NoCache)
	if err != nil {
		return fmt.Errorf("fetching layer %s: %w", li.Digest, err)
	}
	defer rc.Close()
	blobVerifier := li.Digest.Verifier()
	fetched := &fetchCounter{r: io.TeeReader(rc, blobVerifier), rep: r}
	err = untarLayer(ctx, fetched, diffID, rp, t)
	// Read what is left so the digest covers the whole blob.
	if _, derr := io.Copy(io.Discard, fetched); err == nil && derr != nil {
		err = fmt.Errorf("fetching layer %s: %w", li.Digest, derr)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if !blobVerifier.Verified() {
		return fmt.Errorf("layer %s: digest mismatch: the content fetched from the registry does not match its digest", li.Digest)
	}
	if li.Size > 0 && fetched.n != li.Size {
		return fmt.Errorf("layer %s: size mismatch: got %d bytes, expected %d", li.Digest, fetched.n, li.Size)
	}
	return err
}

func untarLayer(ctx context.Context, blob io.Reader, diffID digest.Digest, rp *repo, t *tree) error {
	decomp, _, err := compression.AutoDecompress(blob)
	if err != nil {
		return fmt.Errorf("decompressing layer: %w", err)
	}
	defer decomp.Close()
	diffVerifier := diffID.Verifier()
	uncompressed := io.TeeReader(decomp, diffVerifier)
	tr := tar.NewReader(uncompressed)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading layer tar: %w", err)
		}
		if err := t.add(hdr, tr, rp); err != nil {
			return err
		}
	}
	if _, err := io.Copy(io.Discard, uncompressed); err != nil {
		return fmt.Errorf("decompressing layer: %w", err)
	}
	if !diffVerifier.Verified() {
		return fmt.Errorf("layer content does not match diffID %s", diffID)
	}
	return nil
}

// tree is the filesystem tree built by applying layers in order.
type tree struct {
	entries map[string]commitFile
}

func newTree() *tree { return &tree{entries: map[string]commitFile{}} }

func cleanTarPath(name string) string { return path.Clean("/" + name) }

func (t *tree) add(hdr *tar.Header, rd io.Reader, rp *repo) error {
	p := cleanTarPath(hdr.Name)
	dir, base := path.Split(p)
	if base == ".wh..wh..opq" { // opaque dir: drop what lower layers had in it
		t.removeUnder(path.Clean(dir))
		return nil
	}
	if strings.HasPrefix(base, ".wh.") {
		victim := path.Join(dir, strings.TrimPrefix(base, ".wh."))
		delete(t.entries, victim)
		t.removeUnder(victim)
		return nil
	}
	mode := hdr.Mode & 0o7777
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA:
		csum, err := rp.writeContent(rd, hdr.Size, mode)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		t.entries[p] = commitFile{Path: p, Type: "file", Mode: mode, Size: hdr.Size, Object: csum}
	case tar.TypeSymlink:
		t.entries[p] = commitFile{Path: p, Type: "symlink", Mode: 0o777, Target: hdr.Linkname}
	case tar.TypeDir:
		t.entries[p] = commitFile{Path: p, Type: "dir", Mode: mode}
	case tar.TypeLink:
		target, ok := t.entries[cleanTarPath(hdr.Linkname)]
		if !ok {
			return fmt.Errorf("%s: hard link to missing %s", p, hdr.Linkname)
		}
		target.Path = p
		t.entries[p] = target
	default:
		// Devices and fifos have no place in an ostree commit.
	}
	return nil
}

func (t *tree) removeUnder(dir string) {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for p := range t.entries {
		if strings.HasPrefix(p, prefix) {
			delete(t.entries, p)
		}
	}
}

func (t *tree) files() []commitFile {
	out := make([]commitFile, 0, len(t.entries))
	for _, e := range t.entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// shortDigest is what ostree-ext prints: "sha256:" and 12 hex digits.
func shortDigest(d digest.Digest) string {
	s := d.String()
	return s[:min(len(s), 7+12)]
}

type fetchCounter struct {
	r   io.Reader
	n   int64
	rep *reporter
}

func (f *fetchCounter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.n += int64(n)
	f.rep.p.BytesFetched += int64(n)
	return n, err
}
