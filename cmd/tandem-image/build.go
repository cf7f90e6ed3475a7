package main

import (
	"archive/tar"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"k8s.io/klog/v2"
)

// Programs are the commands the image carries, at /usr/bin/<name> as in the MCO image.
var Programs = []string{"machine-config-daemon", "machine-config-controller"}

// versionPkg is where the ldflags stamps go.
const versionPkg = "github.com/tandem-mco/tandem/pkg/version"

// refNameAnnotation names an image in an OCI layout's index.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// Options of one image build.
type Options struct {
	Output    string // OCI layout directory
	Tag       string // ref.name in the layout's index
	Base      string // "", oci:DIR[:REF], or a registry reference
	Arch      string // GOARCH
	Version   string // "" : git describe
	Commit    string // "" : git rev-parse HEAD
	Binaries  string // build directory; "" : temporary
	ModuleDir string // the module to build
	// Prebuilt skips the compile and packages the binaries already in
	// Binaries (they must still be static): for tests of the packaging.
	Prebuilt bool
}

// Result describes the written image.
type Result struct {
	Digest  v1.Hash
	Version string
	Commit  string
	Layers  int
}

// Build compiles the programs statically, lays them on the base and writes
// the image into the OCI layout at o.Output.
func Build(ctx context.Context, o Options) (Result, error) {
	if o.Tag == "" || o.Output == "" {
		return Result{}, errors.New("--tag and --output must not be empty")
	}
	if o.Arch == "" {
		return Result{}, errors.New("--arch must not be empty")
	}
	if o.Version == "" {
		o.Version = gitOutput(ctx, o.ModuleDir, "describe", "--tags", "--always", "--dirty")
	}
	if o.Commit == "" {
		o.Commit = gitCommit(ctx, o.ModuleDir)
	}
	base, err := loadBase(ctx, o.Base, o.Arch)
	if err != nil {
		return Result{}, err
	}
	bin := o.Binaries
	if bin == "" {
		if bin, err = os.MkdirTemp("", "tandem-image-"); err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(bin)
	}
	if !o.Prebuilt {
		if err := compile(ctx, o, bin); err != nil {
			return Result{}, err
		}
	}
	for _, p := range Programs {
		if err := requireStatic(filepath.Join(bin, p)); err != nil {
			return Result{}, err
		}
	}
	img, err := assemble(base, bin, o)
	if err != nil {
		return Result{}, err
	}
	digest, err := writeLayout(o.Output, o.Tag, img)
	if err != nil {
		return Result{}, err
	}
	layers, err := img.Layers()
	if err != nil {
		return Result{}, err
	}
	return Result{Digest: digest, Version: o.Version, Commit: o.Commit, Layers: len(layers)}, nil
}

// compile builds the programs with CGO disabled, so they run on any base
// (or none), stamped with the version and commit.
func compile(ctx context.Context, o Options, dir string) error {
	ldflags := []string{"-s", "-w"}
	if o.Version != "" {
		ldflags = append(ldflags, "-X", versionPkg+".Version="+o.Version)
	}
	if o.Commit != "" {
		ldflags = append(ldflags, "-X", versionPkg+".Commit="+o.Commit)
	}
	args := []string{"build", "-tags", "containers_image_openpgp", "-ldflags", strings.Join(ldflags, " "), "-o", dir + string(os.PathSeparator)}
	for _, p := range Programs {
		args = append(args, "./cmd/"+p)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = o.ModuleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.Arch)
	klog.InfoS("Compiling", "programs", Programs, "arch", o.Arch, "version", o.Version, "commit", o.Commit)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// requireStatic refuses a dynamically linked binary: on a scratch or
// foreign base it would not start.
func requireStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked (has an ELF interpreter); build it with CGO_ENABLED=0", path)
		}
	}
	return nil
}

// loadBase returns the base image: none, an OCI layout, or a registry image.
func loadBase(ctx context.Context, ref, arch string) (v1.Image, error) {
	switch {
	case ref == "":
		return empty.Image, nil
	case strings.HasPrefix(ref, "oci:"):
		dir, want := splitLayoutRef(strings.TrimPrefix(ref, "oci:"))
		return imageFromLayout(dir, want)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("--base %q: %w", ref, err)
	}
	img, err := remote.Image(r, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}))
	if err != nil {
		return nil, fmt.Errorf("pulling base %s: %w", ref, err)
	}
	return img, nil
}

// splitLayoutRef splits DIR[:REF] at the first colon, as containers/image's
// oci: transport does (oci/layout ParseReference): the directory cannot hold
// a colon, the reference may ("ubi9:latest").
func splitLayoutRef(s string) (dir, ref string) {
	dir, ref, _ = strings.Cut(s, ":")
	return dir, ref
}

// imageFromLayout picks the image named ref in the layout (or its only image).
func imageFromLayout(dir, ref string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("base layout %s: %w", dir, err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var found []v1.Descriptor
	for _, d := range im.Manifests {
		if ref == "" || d.Annotations[refNameAnnotation] == ref {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("base layout %s: %d images match %q; name one as oci:DIR:REF", dir, len(found), ref)
	}
	if !found[0].MediaType.IsImage() {
		return nil, fmt.Errorf("base layout %s: %s is a %s, not an image manifest", dir, found[0].Digest, found[0].MediaType)
	}
	return idx.Image(found[0].Digest)
}

// epoch is the timestamp of every file and of the image, so that the same
// binaries give the same digest.
func epoch() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

// assemble appends the binaries' layer to base and sets the config.
func assemble(base v1.Image, bin string, o Options) (v1.Image, error) {
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return binariesTar(bin) },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.Arch
	cf.Created = v1.Time{Time: epoch()}
	if len(cf.Config.Env) == 0 {
		cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	if cf.Config.Labels == nil {
		cf.Config.Labels = map[string]string{}
	}
	cf.Config.Labels["org.opencontainers.image.title"] = "tandem"
	cf.Config.Labels["org.opencontainers.image.description"] = "tandem machine-config-daemon and machine-config-controller"
	cf.Config.Labels["org.opencontainers.image.version"] = o.Version
	cf.Config.Labels["org.opencontainers.image.revision"] = o.Commit
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	return mutate.ConfigMediaType(img, types.OCIConfigJSON), nil
}

// binariesTar streams a tar of usr/bin/<program> for every program.
func binariesTar(bin string) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBinariesTar(pw, bin)) }()
	return pr, nil
}

func writeBinariesTar(w io.Writer, bin string) error {
	tw := tar.NewWriter(w)
	t := epoch()
	for _, d := range []string{"usr/", "usr/bin/"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: t, Format: tar.FormatPAX}); err != nil {
			return err
		}
	}
	for _, p := range Programs {
		if err := addFile(tw, filepath.Join(bin, p), "usr/bin/"+p, t); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, src, dst string, t time.Time) error {
	return addFileMode(tw, src, dst, 0o755, t)
}

func addFileMode(tw *tar.Writer, src, dst string, mode int64, t time.Time) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dst, Mode: mode, Size: fi.Size(), ModTime: t, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// writeLayout writes img into the layout at dir under tag, replacing an
// image of the same tag, and returns its manifest digest.
func writeLayout(dir, tag string, img v1.Image) (v1.Hash, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return v1.Hash{}, fmt.Errorf("creating OCI layout %s: %w", dir, err)
		}
	}
	ann := layout.WithAnnotations(map[string]string{refNameAnnotation: tag})
	if err := p.ReplaceImage(img, match.Annotation(refNameAnnotation, tag), ann); err != nil {
		return v1.Hash{}, fmt.Errorf("writing image to %s: %w", dir, err)
	}
	return img.Digest()
}

func gitOutput(ctx context.Context, dir string, args ...string) string {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gitCommit is HEAD, marked -dirty when the tree has changes, as Go's own
// vcs stamping marks it.
func gitCommit(ctx context.Context, dir string) string {
	rev := gitOutput(ctx, dir, "rev-parse", "HEAD")
	if rev != "" && gitOutput(ctx, dir, "status", "--porcelain", "--untracked-files=no") != "" {
		rev += "-dirty"
	}
	return rev
}
