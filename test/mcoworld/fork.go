package mcoworld

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-mco/tandem/test/framework"
)

// EnvForkBin names the fork build's directory (the last line of
// hack/mco/build.sh); make test-mco sets it.
const EnvForkBin = "TANDEM_MCO_BIN"

// Fork is the fork build: its binaries and the MCO source they came from.
type Fork struct {
	Bin    string // the binaries, as the MCO image carries them at /usr/bin
	Src    string // the MCO checkout: install/ (the CVO's manifests), templates/
	Commit string // the MCO commit
	Raw    string // the version stamp of every binary (the MCO's version.Raw)
	Hash   string // and its version hash (version.Hash)
}

// LocateFork reads the fork build named by $TANDEM_MCO_BIN. Without it the
// tests that need the MCO fail, saying how to get it: they never skip.
func LocateFork() (Fork, error) {
	dir := os.Getenv(EnvForkBin)
	if dir == "" {
		return Fork{}, fmt.Errorf("$%s is not set: these tests run the MCO's operator and need the fork build; "+
			"run them with `make test-mco`, which builds it from the pinned MCO source (hack/mco/build.sh; "+
			"TANDEM_MCO_MIRROR names a git mirror of openshift/machine-config-operator when upstream is out of reach)", EnvForkBin)
	}
	f, err := os.Open(filepath.Join(dir, "fork.env"))
	if err != nil {
		return Fork{}, fmt.Errorf("$%s=%s is not a fork build: %w", EnvForkBin, dir, err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return Fork{}, err
	}
	fk := Fork{Bin: dir, Src: env["MCO_SRC"], Commit: env["MCO_COMMIT"], Raw: env["VERSION_RAW"], Hash: env["VERSION_HASH"]}
	if fk.Src == "" || fk.Raw == "" || fk.Hash == "" {
		return Fork{}, fmt.Errorf("%s/fork.env lacks MCO_SRC, VERSION_RAW or VERSION_HASH", dir)
	}
	return fk, nil
}

// imageTemplates is where the MCO image carries the controller's templates.
const imageTemplates = "/etc/mcc/templates"

// stockController is where the fork build keeps the MCO's own controller.
const stockController = "/usr/bin/stock/machine-config-controller"

// ImagePath is the fork build's copy of a path of the MCO image: its
// programs (/usr/bin/<name>) and the templates (/etc/mcc/templates, from
// the MCO source, as the image's Dockerfile copies them).
func (f Fork) ImagePath(p string) (string, error) {
	switch {
	case strings.HasPrefix(p, "/usr/bin/"):
		return filepath.Join(f.Bin, strings.TrimPrefix(p, "/usr/bin/")), nil
	case p == imageTemplates:
		return filepath.Join(f.Src, "templates"), nil
	}
	return "", fmt.Errorf("the fork build has no copy of the image's %s", p)
}

// Manifests is the CVO's manifest directory of the MCO image.
func (f Fork) Manifests() string { return filepath.Join(f.Src, "install") }

// imageManifests lays in dir the /manifests `make mco-image` gives the
// image (cmd/tandem-image BuildMCO): the MCO's install/ and tandem's own
// additions (manifests/mco-image, the RBAC its controller needs beyond the
// MCO's). tandem's CRDs are installed with the control plane.
func imageManifests(f Fork, dir string) (string, error) {
	root, err := framework.ModuleRoot()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, src := range []string{f.Manifests(), filepath.Join(root, "manifests", "mco-image")} {
		files, err := filepath.Glob(filepath.Join(src, "*.yaml"))
		if err != nil {
			return "", err
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), b, 0o644); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}
