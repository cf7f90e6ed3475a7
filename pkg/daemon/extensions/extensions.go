// Package extensions gives rpm-ostree the packages of the MCO's extensions
// image (a MachineConfig's spec.baseOSExtensionsContainerImage), the way
// the MCO does (openshift/machine-config-operator pkg/daemon/update.go
// ExtractExtensionsImage, podmanCopy and addExtensionsRepo, release-4.20 at
// afed09939d80): the image's content is extracted under
// /run/mco-extensions/os-extensions-content-*, and
// /etc/yum.repos.d/coreos-extensions.repo points rpm-ostree at its
// usr/share/rpm-ostree/extensions/ rpm-md repository until the transaction
// is over; then both go.
//
// The MCO pulls with podman and copies the whole image out; tandem pulls
// with containers/image, as the node's podman would (the node's
// registries.conf, policy.json and the kubelet's pull secret), and extracts
// only the repository directory.
package extensions

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/image"
	"github.com/containers/image/v5/pkg/blobinfocache/none"
	"github.com/containers/image/v5/pkg/compression"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// Paths of the MCO's (pkg/daemon/update.go extensionsRepo and
// osExtensionsContentBaseDir, same tag), on the host.
const (
	RepoFile = "/etc/yum.repos.d/coreos-extensions.repo"
	// ContentBase is under /run: an extraction never outlives a boot.
	ContentBase = "/run/mco-extensions"
	// RepoDir is the repository's place inside the image.
	RepoDir = "usr/share/rpm-ostree/extensions"
	// KubeletAuthFile is the pull secret the MCO hands podman.
	KubeletAuthFile = "/var/lib/kubelet/config.json"
)

// Repo provides extensions repositories on one host.
type Repo struct {
	// Root is the host's root as this process sees it ("/" on a node where
	// the daemon runs chrooted; --root): /etc/yum.repos.d and the container
	// configuration are read and written under it.
	Root string
	// HostRun is the host's /run as this process sees it (--host-run).
	HostRun string
}

func (r *Repo) host(p string) string { return filepath.Join(r.Root, p) }

// Provide pulls image, extracts its repository and writes the .repo file.
// A .repo file left by a crash is replaced. release removes both.
func (r *Repo) Provide(ctx context.Context, image string) (func() error, error) {
	if r.HostRun == "" {
		return nil, errors.New("extensions: the host's /run is not known")
	}
	base := filepath.Join(r.HostRun, strings.TrimPrefix(ContentBase, "/run/"))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, "os-extensions-content-")
	if err != nil {
		return nil, err
	}
	release := func() error {
		err := files.RemoveDurably(r.host(RepoFile))
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return errors.Join(err, os.RemoveAll(dir))
	}
	fail := func(err error) (func() error, error) {
		return nil, errors.Join(err, release())
	}
	if err := os.MkdirAll(filepath.Join(dir, ".containers"), 0o700); err != nil {
		return fail(err)
	}
	n, err := r.extract(ctx, image, dir)
	if err != nil {
		return fail(fmt.Errorf("error pulling extensions image %s: %w", image, err))
	}
	if n == 0 {
		return fail(fmt.Errorf("extensions image %s has no /%s", image, RepoDir))
	}
	// The repository as rpm-ostree on the host sees it.
	hostDir := path.Join(ContentBase, filepath.Base(dir))
	content := "[coreos-extensions]\nenabled=1\nmetadata_expire=1m\nbaseurl=" + hostDir + "/" + RepoDir + "/\ngpgcheck=0\nskip_if_unavailable=False\n"
	// WriteFileAtomic makes a missing directory, durably.
	if err := files.WriteFileAtomic(r.host(RepoFile), []byte(content), 0o644, -1, -1); err != nil {
		return fail(err)
	}
	klog.FromContext(ctx).Info("Extensions repository ready", "image", image, "files", n, "repo", RepoFile)
	return release, nil
}

// systemContext reads the host's container configuration, as podman there
// would: every implicit path resolves under the host's root, the pull
// secret is the kubelet's. scratch holds what the host lacks (an empty
// registries.conf means the defaults) and the blob info cache.
func (r *Repo) systemContext(scratch string) (*types.SystemContext, error) {
	sys := &types.SystemContext{
		RootForImplicitAbsolutePaths: r.Root,
		SystemRegistriesConfPath:     r.host("/etc/containers/registries.conf"),
		SystemRegistriesConfDirPath:  r.host("/etc/containers/registries.conf.d"),
		SignaturePolicyPath:          r.host("/etc/containers/policy.json"),
		AuthFilePath:                 r.host(KubeletAuthFile),
		BlobInfoCacheDir:             scratch,
	}
	if _, err := os.Stat(sys.SystemRegistriesConfPath); errors.Is(err, os.ErrNotExist) {
		sys.SystemRegistriesConfPath = filepath.Join(scratch, "registries.conf")
		if err := os.WriteFile(sys.SystemRegistriesConfPath, nil, 0o644); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(sys.AuthFilePath); errors.Is(err, os.ErrNotExist) {
		sys.AuthFilePath = filepath.Join(scratch, "auth.json") // none
	}
	return sys, nil
}

// policy is the host's signature policy, or, on a host without one,
// accepting anything (the image is referenced by digest in a rendered
// MachineConfig).
func (r *Repo) policy(sys *types.SystemContext) (*signature.PolicyContext, error) {
	pol := &signature.Policy{Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}}
	if _, err := os.Stat(sys.SignaturePolicyPath); err == nil {
		if pol, err = signature.NewPolicyFromFile(sys.SignaturePolicyPath); err != nil {
			return nil, err
		}
	}
	return signature.NewPolicyContext(pol)
}

// extract writes the files under RepoDir of image's layers into dir and
// returns how many it wrote. Every blob is verified against its digest.
func (r *Repo) extract(ctx context.Context, name, dir string) (int, error) {
	ref, err := docker.ParseReference("//" + strings.TrimPrefix(name, "docker://"))
	if err != nil {
		return 0, err
	}
	sys, err := r.systemContext(filepath.Join(dir, ".containers"))
	if err != nil {
		return 0, err
	}
	src, err := ref.NewImageSource(ctx, sys)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	unparsed := image.UnparsedInstance(src, nil)
	pc, err := r.policy(sys)
	if err != nil {
		return 0, err
	}
	defer func() { _ = pc.Destroy() }()
	if ok, err := pc.IsRunningImageAllowed(ctx, unparsed); !ok || err != nil {
		return 0, fmt.Errorf("rejected by the signature policy: %w", err)
	}
	img, err := image.FromUnparsedImage(ctx, sys, unparsed)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, li := range img.LayerInfos() {
		c, err := extractLayer(ctx, src, li, dir)
		if err != nil {
			return n, err
		}
		n += c
	}
	return n, nil
}

// extractLayer extracts one layer, verified against its digest: a mismatch
// is reported as such even when the bad bytes broke the decompression first.
func extractLayer(ctx context.Context, src types.ImageSource, li types.BlobInfo, dir string) (int, error) {
	rc, _, err := src.GetBlob(ctx, li, none.NoCache)
	if err != nil {
		return 0, fmt.Errorf("fetching layer %s: %w", li.Digest, err)
	}
	defer rc.Close()
	verifier := li.Digest.Verifier()
	blob := io.TeeReader(rc, verifier)
	n, err := untarRepo(blob, li, dir)
	if _, derr := io.Copy(io.Discard, blob); err == nil && derr != nil {
		err = derr
	}
	if !verifier.Verified() {
		return n, fmt.Errorf("layer %s: digest mismatch: the content fetched does not match its digest", li.Digest)
	}
	return n, err
}

// untarRepo writes the regular files under RepoDir of a layer into dir.
func untarRepo(blob io.Reader, li types.BlobInfo, dir string) (int, error) {
	decomp, _, err := compression.AutoDecompress(blob)
	if err != nil {
		return 0, fmt.Errorf("layer %s: %w", li.Digest, err)
	}
	defer decomp.Close()
	tr := tar.NewReader(decomp)
	n := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("layer %s: %w", li.Digest, err)
		}
		p := path.Clean("/" + hdr.Name)[1:]
		rel, ok := strings.CutPrefix(p, RepoDir+"/")
		if !ok || hdr.Typeflag != tar.TypeReg || strings.HasPrefix(path.Base(rel), ".wh.") {
			continue
		}
		out := filepath.Join(dir, RepoDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return n, err
		}
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return n, err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return n, fmt.Errorf("layer %s: %s: %w", li.Digest, p, err)
		}
		n++
	}
	// The rest of the stream (a plain Reader: pgzip's WriteTo panics on a
	// stream already read to its end).
	_, err = io.Copy(io.Discard, struct{ io.Reader }{decomp})
	return n, err
}
