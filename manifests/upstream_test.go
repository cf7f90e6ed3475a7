package manifests_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-mco/tandem/manifests/internal/mcosrc"
)

// upstreamDirs are the directories of the MCO's repository that hold its
// manifests: install/ (what the CVO applies from the release payload) and
// manifests/ (what the MCO's operator renders into the cluster).
var upstreamDirs = []string{"install", "manifests"}

// generated are the directories of manifests/ whose files are not written
// by hand: crds/tandem, made by controller-gen from tandem's own types in
// pkg/apis (hack/generate-crds.sh).
var generated = []string{"crds/tandem"}

// maxCopied is the share of a file's non-blank lines that may be the MCO's.
const maxCopied = 0.5

// What counts as the MCO's text, line by line.
//
// Lines are compared after normalize: without indentation, list dashes and
// trailing spaces, so re-indenting or re-flowing a list hides nothing.
//
// A line is "countable" when it is longer than minLen characters and is
// not an identity line. Only a countable line can by itself make a passage
// the MCO's. That leaves out what every manifest shares and no one owns:
// "---", "metadata:", "spec:", lone keys, "expr: |", short values
// ("port: 9001", "severity: warning", `verbs: ["get", "list", "watch"]`),
// and the identity lines below. It keeps what says whose text a file is:
// expressions, summaries and descriptions, comments, paths, long values.
//
// A line of a file is copied when it is countable and found in one of the
// MCO's manifests, or when it belongs to a passage copied with such a line:
// a run of consecutive lines of the file each of which follows the one
// before it in the MCO's manifests too (a pair of lines adjacent there),
// if the run holds a countable line found there. So the "rules:",
// "labels:" and "severity: warning" between a copied alert's expression
// and its description are the MCO's as well, while the same words in
// tandem's own alerts are not.
//
// The share of a file is its copied lines over its non-blank lines.

// minLen: a line this short or shorter is not countable. 40 rather than
// fewer: at 31 to 40 characters are still RBAC verb lists and API group
// names, which tandem's RBAC must spell as anyone's.
const minLen = 40

// identity matches lines that only name an object, its type, or the
// release profiles the CVO applies it in. Manifests of the same objects
// spell these as the MCO does because the API fixes them, so they are
// never countable, however long ("namespace: openshift-machine-config-operator",
// `include.release.openshift.io/self-managed-high-availability: "true"`).
var identity = regexp.MustCompile(`^(apiVersion|apiGroup|kind|name|namespace):\s|^include\.release\.openshift\.io/`)

func normalize(line string) string {
	l := strings.TrimSpace(line)
	for strings.HasPrefix(l, "- ") {
		l = strings.TrimSpace(l[2:])
	}
	return l
}

func countable(l string) bool { return len(l) > minLen && !identity.MatchString(l) }

// nonBlank is a text's non-blank lines, normalized.
func nonBlank(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if l := normalize(line); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// upstream is what the comparison knows of the MCO's manifests.
type upstream struct {
	lines map[string]string  // countable line -> the first file it is in
	pairs map[[2]string]bool // adjacent non-blank lines of a file
}

func (u *upstream) add(file, text string) {
	ls := nonBlank(text)
	for i, l := range ls {
		if _, ok := u.lines[l]; !ok && countable(l) {
			u.lines[l] = file
		}
		if i > 0 {
			u.pairs[[2]string{ls[i-1], l}] = true
		}
	}
}

func readUpstream(t *testing.T, src mcosrc.Source) *upstream {
	t.Helper()
	u := &upstream{lines: map[string]string{}, pairs: map[[2]string]bool{}}
	for _, d := range upstreamDirs {
		err := filepath.WalkDir(src.Path(d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src.Dir, p)
			if err != nil {
				return err
			}
			u.add(filepath.ToSlash(rel), string(b))
			return nil
		})
		if err != nil {
			t.Fatalf("reading the MCO's %s/: %v", d, err)
		}
	}
	if len(u.lines) == 0 {
		t.Fatalf("no countable lines in the MCO's %v at %s", upstreamDirs, src.Dir)
	}
	return u
}

// copied is a file's measure: its non-blank lines, how many of them are
// the MCO's, and the countable ones with the MCO file each is from.
type copied struct {
	nonBlank, copied int
	evidence         []string
}

func (c copied) share() float64 {
	if c.nonBlank == 0 {
		return 0
	}
	return float64(c.copied) / float64(c.nonBlank)
}

func (u *upstream) measure(text string) copied {
	ls := nonBlank(text)
	found := func(l string) bool { _, ok := u.lines[l]; return ok && countable(l) }
	mco := make([]bool, len(ls))
	for i := 0; i < len(ls); {
		j := i // the run ls[i..j]: each line follows the one before it in the MCO's
		for j+1 < len(ls) && u.pairs[[2]string{ls[j], ls[j+1]}] {
			j++
		}
		seeded := false
		for k := i; k <= j; k++ {
			seeded = seeded || found(ls[k])
		}
		for k := i; k <= j; k++ {
			mco[k] = seeded || found(ls[k])
		}
		i = j + 1
	}
	c := copied{nonBlank: len(ls)}
	for k, l := range ls {
		if mco[k] {
			c.copied++
			if found(l) {
				c.evidence = append(c.evidence, fmt.Sprintf("%q (%s)", l, u.lines[l]))
			}
		}
	}
	return c
}

// TestNoMCOText: no file in manifests/ is mostly the MCO's text. What
// tandem needs of the MCO's manifests (its alerts, for one: see
// monitoring/rules_test.go) is read from the MCO's source at the pinned
// commit (fork/mco, made by hack/mco/build.sh), not copied here. Every file
// under manifests/ but the generated ones is measured against every file
// of the MCO's install/ and manifests/ directories (see "What counts as
// the MCO's text" above); the test fails for a file whose share is above
// maxCopied, and prints each file's share.
func TestNoMCOText(t *testing.T) {
	src, err := mcosrc.Locate()
	if err != nil {
		t.Fatal(err)
	}
	u := readUpstream(t, src)
	files, over := 0, 0
	most, mostName := 0.0, ""
	err = filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := filepath.ToSlash(p)
		for _, g := range generated {
			if e.IsDir() && name == g {
				return filepath.SkipDir
			}
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		c := u.measure(string(b))
		if c.share() >= most {
			most, mostName = c.share(), "manifests/"+name
		}
		if c.share() > maxCopied {
			over++
			ev := c.evidence
			if len(ev) > 8 {
				ev = append(ev[:8:8], fmt.Sprintf("... and %d more", len(c.evidence)-8))
			}
			t.Errorf("manifests/%s: %d of its %d non-blank lines (%.0f%%) are the MCO's (%s/ at %s), more than %.0f%%; "+
				"read what tandem needs from the pinned checkout instead of copying it. Lines found there:\n  %s",
				name, c.copied, c.nonBlank, 100*c.share(), strings.Join(upstreamDirs, "/, "), src.Commit,
				100*maxCopied, strings.Join(ev, "\n  "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no files under manifests/")
	}
	// One line for make test; a file over the bound is named by its error.
	fmt.Printf("mco-text: files=%d over=%d max_share=%.2f max_file=%s\n", files, over, most, mostName)
}

// TestCopiedLineRule: the rule counts a copied passage, structure and all,
// and not the structure every manifest shares.
func TestCopiedLineRule(t *testing.T) {
	mco := `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: upstream-example
  namespace: openshift-machine-config-operator
spec:
  groups:
    - name: upstream-example-group
      rules:
        - alert: UpstreamExampleAlert
          expr: |
            upstream_example_errors_total > 0
          for: 2m
          labels:
            namespace: openshift-machine-config-operator
            severity: warning
          annotations:
            summary: "A made-up upstream alert that stands for a copied passage."
`
	u := &upstream{lines: map[string]string{}, pairs: map[[2]string]bool{}}
	u.add("install/rules.yaml", mco)

	// The upstream alert re-indented: every line is upstream's.
	reindented := strings.ReplaceAll(mco, "    ", "  ")
	if c := u.measure(reindented); c.copied != c.nonBlank || len(c.evidence) != 1 {
		t.Errorf("the upstream alert re-indented: %+v, want all %d lines copied, on one countable line", c, c.nonBlank)
	}

	// An alert of one's own in the same structure: nothing is copied.
	own := `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: tandem
  namespace: openshift-machine-config-operator
spec:
  groups:
    - name: tandem-rollout
      rules:
        - alert: StageStuck
          expr: |
            tandem_daemon_stage_started_timestamp_seconds > 0
          for: 2m
          labels:
            namespace: openshift-machine-config-operator
            severity: warning
          annotations:
            summary: "An OS stage has been running for more than an hour."
`
	if c := u.measure(own); c.copied != 0 {
		t.Errorf("an alert of one's own: %+v, want nothing copied", c)
	}

	// A copied countable line alone counts; the structure around it,
	// where it does not follow upstream's, does not.
	mixed := "spec:\n  ports: []\n  summary: \"A made-up upstream alert that stands for a copied passage.\"\n  other: 1\n"
	if c := u.measure(mixed); c.copied != 1 || c.nonBlank != 4 {
		t.Errorf("one copied line among others: %+v, want 1 of 4", c)
	}
	if countable("namespace: openshift-machine-config-operator-and-longer") ||
		countable(`include.release.openshift.io/self-managed-high-availability: "true"`) ||
		countable(`verbs: ["get", "list", "watch"]`) {
		t.Error("identity lines and short values must not be countable")
	}
}
