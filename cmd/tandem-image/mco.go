package main

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"sigs.k8s.io/yaml"
)

// MCOPrograms are the binaries of the MCO image, at /usr/bin/<name> as the
// MCO's Dockerfile (release-4.21) installs them: the MCO's own operator,
// server, machine-os-builder and apiserver-watcher, and tandem's daemon and
// controller (with the MCO's other controllers) in place of the MCO's.
var MCOPrograms = []string{
	"machine-config-operator", "machine-config-server", "machine-os-builder", "apiserver-watcher",
	"machine-config-daemon", "machine-config-controller",
}

// staleMCOPrograms are the files the MCO's Dockerfile (release-4.21)
// installs at /usr/bin besides MCOPrograms, which this image does not
// carry: `make install`'s gzipped machine-config-tests-ext (the MCO's
// openshift-tests extension) and machine-config-daemon.rhel8 (the MCO's
// daemon for RHEL 8 hosts). A base that is an MCO image of another
// z-stream has them, built from its own source: they are whited out so
// that no other MCO's binary ships in this image. /usr/bin itself is not
// made opaque: it is the base's (bash, nmstatectl, ...).
var staleMCOPrograms = []string{"machine-config-tests-ext.gz", "machine-config-daemon.rhel8"}

// opaqueWhiteout, in a layer's directory, hides everything the layers
// below hold in it (OCI image-spec layer.md, "Opaque Whiteout").
const opaqueWhiteout = ".wh..wh..opq"

// releaseOperatorLabel marks an image whose /manifests the CVO applies
// (the MCO's Dockerfile: LABEL io.openshift.release.operator true).
const releaseOperatorLabel = "io.openshift.release.operator"

// MCOOptions build the MCO image from the fork build's output.
type MCOOptions struct {
	Output string // OCI layout directory
	Tag    string
	Base   string // "", oci:DIR[:REF], or a registry reference
	Arch   string
	// ForkBin is the directory hack/mco/build.sh printed: the binaries and
	// fork.env (the MCO source and the version stamp).
	ForkBin string
	// ExtraManifests are tandem's own CVO manifests (the RBAC its
	// controllers need beyond the MCO's), added to /manifests.
	ExtraManifests string
	// CRDs are tandem's CRDs (manifests/crds/tandem), added to /manifests
	// with the CVO's include annotations.
	CRDs string
}

// forkEnv is fork.env: KEY=VALUE lines.
func readForkEnv(dir string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(dir, "fork.env"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a fork build (hack/mco/build.sh prints one): %w", dir, err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"MCO_SRC", "MCO_COMMIT", "VERSION_RAW", "VERSION_HASH"} {
		if env[k] == "" {
			return nil, fmt.Errorf("%s/fork.env has no %s", dir, k)
		}
	}
	return env, sc.Err()
}

// BuildMCO lays the MCO image's binaries, /manifests and
// /etc/mcc/templates on the base and writes it to the layout.
func BuildMCO(ctx context.Context, o MCOOptions) (Result, error) {
	if o.Tag == "" || o.Output == "" || o.ForkBin == "" {
		return Result{}, errors.New("--tag, --output and --fork-bin must not be empty")
	}
	env, err := readForkEnv(o.ForkBin)
	if err != nil {
		return Result{}, err
	}
	for _, p := range MCOPrograms {
		if fi, err := os.Stat(filepath.Join(o.ForkBin, p)); err != nil || fi.Mode()&0o111 == 0 {
			return Result{}, fmt.Errorf("fork build %s lacks the program %s: %v", o.ForkBin, p, err)
		}
		// The MCO copies some of them to the host and runs them there (the
		// daemon's re-exec from /run/bin, the firstboot unit): a binary
		// linked against the image's glibc need not start on the host's.
		if err := requireStatic(filepath.Join(o.ForkBin, p)); err != nil {
			return Result{}, fmt.Errorf("fork build %s: %w", o.ForkBin, err)
		}
	}
	base, err := loadBase(ctx, o.Base, o.Arch)
	if err != nil {
		return Result{}, err
	}
	src := env["MCO_SRC"]
	t := epoch()
	files := []treeFile{{dir: true, name: "usr/"}, {dir: true, name: "usr/bin/"}}
	// Whiteouts before the directory's other entries, as layer.md asks, so
	// that a runtime applying them where it meets them keeps the new files.
	for _, p := range staleMCOPrograms {
		files = append(files, treeFile{name: "usr/bin/.wh." + p, mode: 0o644})
	}
	for _, p := range MCOPrograms {
		files = append(files, treeFile{src: filepath.Join(o.ForkBin, p), name: "usr/bin/" + p, mode: 0o755})
	}
	manifests, err := tree(filepath.Join(src, "install"), "manifests")
	if err != nil {
		return Result{}, err
	}
	if o.ExtraManifests != "" {
		extra, err := tree(o.ExtraManifests, "manifests")
		if err != nil {
			return Result{}, err
		}
		manifests = mergeTrees(manifests, extra)
	}
	if o.CRDs != "" {
		crds, err := cvoCRDs(o.CRDs)
		if err != nil {
			return Result{}, err
		}
		manifests = mergeTrees(manifests, crds)
	}
	templates, err := tree(filepath.Join(src, "templates"), "etc/mcc/templates")
	if err != nil {
		return Result{}, err
	}
	// /manifests and /etc/mcc/templates are the MCO's whole: a base's copy
	// (an MCO image of another z-stream) would leave manifests the CVO
	// applies and templates the controller renders that this MCO never had.
	manifests = replaceDir("manifests", manifests)
	templates = append([]treeFile{{dir: true, name: "etc/"}, {dir: true, name: "etc/mcc/"}}, replaceDir("etc/mcc/templates", templates)...)
	img := base
	for _, layerFiles := range [][]treeFile{files, manifests, templates} {
		lf := layerFiles
		layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return treeTar(lf, t), nil }, tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return Result{}, err
		}
		if img, err = mutate.AppendLayers(img, layer); err != nil {
			return Result{}, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return Result{}, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", o.Arch
	cf.Created = v1.Time{Time: t}
	if len(cf.Config.Env) == 0 {
		cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	cf.Config.Entrypoint = []string{"/usr/bin/machine-config-operator"}
	cf.Config.Cmd = nil
	if cf.Config.Labels == nil {
		cf.Config.Labels = map[string]string{}
	}
	cf.Config.Labels[releaseOperatorLabel] = "true"
	cf.Config.Labels["org.opencontainers.image.title"] = "machine-config-operator (tandem)"
	cf.Config.Labels["org.opencontainers.image.description"] = "the MCO at " + env["MCO_COMMIT"] + " with tandem's daemon and rollout controller"
	cf.Config.Labels["org.opencontainers.image.version"] = env["VERSION_RAW"]
	cf.Config.Labels["org.opencontainers.image.revision"] = env["VERSION_HASH"]
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return Result{}, err
	}
	img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), types.OCIConfigJSON)
	digest, err := writeLayout(o.Output, o.Tag, img)
	if err != nil {
		return Result{}, err
	}
	layers, err := img.Layers()
	if err != nil {
		return Result{}, err
	}
	return Result{Digest: digest, Version: env["VERSION_RAW"], Commit: env["VERSION_HASH"], Layers: len(layers)}, nil
}

// treeFile is one entry of a layer: a directory, or a file copied from src.
type treeFile struct {
	dir  bool
	src  string
	data []byte // the file's content when src is empty
	name string // path in the image, directories ending in /
	mode int64
}

// tree lists the regular files and directories under root as entries
// under prefix, in a stable order. Symlinks and other types are refused:
// the MCO's install/ and templates/ hold none.
func tree(root, prefix string) ([]treeFile, error) {
	var out []treeFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		name := prefix
		if rel != "." {
			name = prefix + "/" + filepath.ToSlash(rel)
		}
		switch {
		case d.IsDir():
			out = append(out, treeFile{dir: true, name: name + "/"})
		case d.Type().IsRegular():
			out = append(out, treeFile{src: path, name: name, mode: 0o644})
		default:
			return fmt.Errorf("%s: not a regular file or directory", path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return out, nil
}

// replaceDir makes the entries under dir replace the lower layers' dir
// instead of merging into it: the directory, then its opaque whiteout
// (first, as layer.md asks of whiteouts, so that a runtime applying it where
// it meets it does not hide this layer's files), then the entries.
func replaceDir(dir string, entries []treeFile) []treeFile {
	out := []treeFile{{dir: true, name: dir + "/"}, {name: dir + "/" + opaqueWhiteout, mode: 0o644}}
	for _, f := range entries {
		if f.name != dir+"/" {
			out = append(out, f)
		}
	}
	return out
}

// mergeTrees adds b's entries to a, refusing none but keeping one entry
// per name (b's file wins, so an extra manifest can be named on purpose
// like an upstream one).
func mergeTrees(a, b []treeFile) []treeFile {
	byName := map[string]treeFile{}
	for _, f := range append(a, b...) {
		byName[f.name] = f
	}
	out := make([]treeFile, 0, len(byName))
	for _, f := range byName {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func treeTar(files []treeFile, t time.Time) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		for _, f := range files {
			var err error
			switch {
			case f.dir:
				err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: f.name, Mode: 0o755, ModTime: t, Format: tar.FormatPAX})
			case f.src == "":
				if err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: t, Format: tar.FormatPAX}); err == nil {
					_, err = tw.Write(f.data)
				}
			default:
				err = addFileMode(tw, f.src, f.name, f.mode, t)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(tw.Close())
	}()
	return pr
}

// cvoIncludeAnnotations are the cluster profiles the MCO's own install/
// manifests are included in.
var cvoIncludeAnnotations = map[string]string{
	"include.release.openshift.io/self-managed-high-availability": "true",
	"include.release.openshift.io/single-node-developer":          "true",
}

// cvoCRDs turns each CRD in dir into a /manifests entry the CVO applies:
// the include annotations added, named to run with the MCO's level (80).
func cvoCRDs(dir string) ([]treeFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tandem CRDs: %w", err)
	}
	var out []treeFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var crd map[string]any
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		meta, _ := crd["metadata"].(map[string]any)
		if crd["kind"] != "CustomResourceDefinition" || meta == nil {
			return nil, fmt.Errorf("%s: not a CustomResourceDefinition", e.Name())
		}
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		for k, v := range cvoIncludeAnnotations {
			ann[k] = v
		}
		meta["annotations"] = ann
		b, err := yaml.Marshal(crd)
		if err != nil {
			return nil, err
		}
		out = append(out, treeFile{name: "manifests/0000_80_machine-config_01_tandem_" + e.Name(), data: b, mode: 0o644})
	}
	return out, nil
}
