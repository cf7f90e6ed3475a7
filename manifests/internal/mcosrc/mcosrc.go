// Package mcosrc finds the MCO's source at the commit fork/mco.env pins, for
// the tests under manifests/ that read it. The repository keeps none of the
// MCO's text: hack/mco/build.sh fetches the pinned commit into its cache,
// verifies it is exactly that commit with nothing changed, and links it at
// fork/mco. CI (.ci/run) runs hack/mco/build.sh before make test.
package mcosrc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Source is the MCO checkout.
type Source struct {
	Dir    string // the checkout (fork/mco, resolved)
	Commit string // MCO_COMMIT of fork/mco.env, which the checkout is at
	Branch string // MCO_BRANCH of fork/mco.env
}

// Path is a file of the checkout, from a slash-separated path in the MCO's
// repository (e.g. "install/0000_90_machine-config_01_prometheus-rules.yaml").
func (s Source) Path(rel string) string { return filepath.Join(s.Dir, filepath.FromSlash(rel)) }

// Cite names a file of the MCO at the pinned commit, for messages.
func (s Source) Cite(rel string) string {
	return fmt.Sprintf("openshift/machine-config-operator %s at %s: %s", s.Branch, s.Commit, rel)
}

// howTo is what every error ends with: the one way to get the checkout.
const howTo = "run hack/mco/build.sh (make mco-fork), which fetches the MCO's source at the commit fork/mco.env pins " +
	"and links it at fork/mco (TANDEM_MCO_MIRROR names a git mirror of openshift/machine-config-operator " +
	"when upstream is out of reach)"

// Locate finds the repository root above the working directory (a test's
// package directory) and the checkout linked at its fork/mco, and checks
// that the checkout is at fork/mco.env's MCO_COMMIT. Without it, it says
// how to get it: the tests that need the MCO's text fail, they never skip
// (as test/mcoworld's LocateFork).
func Locate() (Source, error) {
	wd, err := os.Getwd()
	if err != nil {
		return Source{}, err
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "fork", "mco.env")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return Source{}, fmt.Errorf("no fork/mco.env above %s", wd)
		}
		root = parent
	}
	env, err := readEnv(filepath.Join(root, "fork", "mco.env"))
	if err != nil {
		return Source{}, err
	}
	s := Source{Commit: env["MCO_COMMIT"], Branch: env["MCO_BRANCH"]}
	if s.Commit == "" {
		return Source{}, fmt.Errorf("%s/fork/mco.env sets no MCO_COMMIT", root)
	}
	link := filepath.Join(root, "fork", "mco")
	if s.Dir, err = filepath.EvalSymlinks(link); err != nil {
		return Source{}, fmt.Errorf("the MCO's source is not at %s (%v): %s", link, err, howTo)
	}
	// build.sh checks the commit out detached, so HEAD holds the commit.
	head, err := os.ReadFile(filepath.Join(s.Dir, ".git", "HEAD"))
	if err != nil {
		return Source{}, fmt.Errorf("%s (fork/mco) is not a git checkout (%v): %s", s.Dir, err, howTo)
	}
	if got := strings.TrimSpace(string(head)); got != s.Commit {
		return Source{}, fmt.Errorf("%s (fork/mco) is at %q, fork/mco.env pins %s: %s", s.Dir, got, s.Commit, howTo)
	}
	return s, nil
}

func readEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			env[k] = v
		}
	}
	return env, sc.Err()
}
