package osdouble

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// rpm-md repositories, as libdnf reads them for rpm-ostree: the enabled
// sections of /etc/yum.repos.d/*.repo, each a baseurl holding
// repodata/repomd.xml, which names the primary metadata (primary.xml or
// primary.xml.gz, createrepo_c's format) listing every package with its
// NEVRA, checksum and location. That is how the MCO hands rpm-ostree its
// extensions: it extracts the extensions container and writes
// /etc/yum.repos.d/coreos-extensions.repo with
// baseurl=<dir>/usr/share/rpm-ostree/extensions/ (openshift/machine-config-operator
// pkg/daemon/update.go addExtensionsRepo, release-4.20 at afed09939d80).
//
// The node's filesystem, as rpm-ostree sees it: /etc is under the node's
// root dir (EnvRoot), /run is the node's run dir (EnvRun). Without a root
// the node has no repositories. Only file:// and absolute-path baseurls are
// supported (no network repositories, mirrorlists or metalinks); repo GPG
// checks are not modelled.

// yumRepo is one enabled repository.
type yumRepo struct {
	ID      string
	BaseURL string
	// SkipIfUnavailable: a repository whose metadata cannot be read is
	// skipped instead of failing the transaction.
	SkipIfUnavailable bool
}

// hostPath maps a path of the node's filesystem to where the double keeps it.
func (n *node) hostPath(p string) (string, error) {
	p = filepath.Clean("/" + p)
	if rest, ok := strings.CutPrefix(p, "/run"); ok && (rest == "" || rest[0] == '/') {
		return filepath.Join(n.l.run, rest), nil
	}
	if n.root == "" {
		return "", fmt.Errorf("the node has no root dir (%s) to find %s in", EnvRoot, p)
	}
	return filepath.Join(n.root, p), nil
}

// enabledRepos reads the node's /etc/yum.repos.d, in file name order.
func (n *node) enabledRepos() ([]yumRepo, error) {
	if n.root == "" {
		return nil, nil
	}
	dir := filepath.Join(n.root, "etc", "yum.repos.d")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []yumRepo
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".repo") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		repos, err := parseRepoFile(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join("/etc/yum.repos.d", e.Name()), err)
		}
		out = append(out, repos...)
	}
	return out, nil
}

// parseRepoFile returns a .repo file's enabled sections (dnf: enabled
// defaults to 1).
func parseRepoFile(b []byte) ([]yumRepo, error) {
	type section struct {
		id   string
		keys map[string]string
	}
	var sections []*section
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			sections = append(sections, &section{id: strings.TrimSpace(line[1 : len(line)-1]), keys: map[string]string{}})
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || len(sections) == 0 {
			return nil, fmt.Errorf("cannot parse line %q", line)
		}
		sections[len(sections)-1].keys[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	var out []yumRepo
	for _, s := range sections {
		if v, ok := s.keys["enabled"]; ok && !truthy(v) {
			continue
		}
		r := yumRepo{ID: s.id, BaseURL: s.keys["baseurl"], SkipIfUnavailable: truthy(s.keys["skip_if_unavailable"])}
		if r.BaseURL == "" {
			return nil, fmt.Errorf("repo '%s': no baseurl (mirrorlist and metalink are not supported by this test double)", s.id)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// rpmmdPackage is one package of a repository's primary metadata.
type rpmmdPackage struct {
	NEVRA
	Repo     string
	Location string // file path of the .rpm on the host
	SHA256   string
	Size     int64
}

// rpmmdRepo is a repository's loaded metadata.
type rpmmdRepo struct {
	ID        string
	Timestamp int64
	Packages  []rpmmdPackage
}

type repomdXML struct {
	Revision string `xml:"revision"`
	Data     []struct {
		Type     string `xml:"type,attr"`
		Checksum struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"checksum"`
		Location struct {
			Href string `xml:"href,attr"`
		} `xml:"location"`
		Timestamp int64 `xml:"timestamp"`
	} `xml:"data"`
}

type primaryXML struct {
	Packages []struct {
		Type    string `xml:"type,attr"`
		Name    string `xml:"name"`
		Arch    string `xml:"arch"`
		Version struct {
			Epoch string `xml:"epoch,attr"`
			Ver   string `xml:"ver,attr"`
			Rel   string `xml:"rel,attr"`
		} `xml:"version"`
		Checksum struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"checksum"`
		Size struct {
			Package int64 `xml:"package,attr"`
		} `xml:"size"`
		Location struct {
			Href string `xml:"href,attr"`
		} `xml:"location"`
	} `xml:"package"`
}

// loadRepo reads a repository's repomd.xml and primary metadata. The
// primary file's checksum is verified against repomd.xml, as librepo does.
func (n *node) loadRepo(r yumRepo) (*rpmmdRepo, error) {
	fail := func(err error) (*rpmmdRepo, error) {
		// The prefix is rpm-ostree's (rpmostree-core.cxx
		// rpmostree_context_download_metadata); what follows is the double's.
		return nil, fmt.Errorf("Updating rpm-md repo '%s': %w", r.ID, err)
	}
	base := strings.TrimPrefix(r.BaseURL, "file://")
	if !strings.HasPrefix(base, "/") {
		return fail(fmt.Errorf("baseurl %q: only local (file://) repositories are supported by this test double", r.BaseURL))
	}
	dir, err := n.hostPath(base)
	if err != nil {
		return fail(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "repodata", "repomd.xml"))
	if err != nil {
		return fail(fmt.Errorf("Cannot download repomd.xml: Cannot download repodata/repomd.xml: All mirrors were tried; Last error: %w", err))
	}
	var md repomdXML
	if err := xml.Unmarshal(b, &md); err != nil {
		return fail(fmt.Errorf("repomd.xml parser error: %w", err))
	}
	out := &rpmmdRepo{ID: r.ID}
	if ts, err := strconv.ParseInt(md.Revision, 10, 64); err == nil {
		out.Timestamp = ts
	}
	found := false
	for _, d := range md.Data {
		if d.Type != "primary" {
			continue
		}
		found = true
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d.Location.Href)))
		if err != nil {
			return fail(fmt.Errorf("Cannot download %s: %w", d.Location.Href, err))
		}
		if d.Checksum.Type == "sha256" {
			sum := sha256.Sum256(raw)
			if got := hex.EncodeToString(sum[:]); got != strings.TrimSpace(d.Checksum.Value) {
				return fail(fmt.Errorf("Downloading successful, but checksum doesn't match. Calculated: %s(sha256) Expected: %s(sha256)", got, strings.TrimSpace(d.Checksum.Value)))
			}
		}
		if d.Timestamp > out.Timestamp {
			out.Timestamp = d.Timestamp
		}
		var rd io.Reader = bytes.NewReader(raw)
		if strings.HasSuffix(d.Location.Href, ".gz") {
			gz, err := gzip.NewReader(rd)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", d.Location.Href, err))
			}
			defer gz.Close()
			rd = gz
		}
		var prim primaryXML
		if err := xml.NewDecoder(rd).Decode(&prim); err != nil {
			return fail(fmt.Errorf("primary.xml parser error: %w", err))
		}
		for _, p := range prim.Packages {
			if p.Type != "" && p.Type != "rpm" {
				continue
			}
			pkg := rpmmdPackage{
				NEVRA: NEVRA{Name: p.Name, Version: p.Version.Ver, Release: p.Version.Rel, Arch: p.Arch},
				Repo:  r.ID, Location: filepath.Join(dir, filepath.FromSlash(p.Location.Href)), Size: p.Size.Package,
			}
			if p.Version.Epoch != "" {
				if pkg.Epoch, err = strconv.ParseUint(p.Version.Epoch, 10, 64); err != nil {
					return fail(fmt.Errorf("package %s: epoch %q", p.Name, p.Version.Epoch))
				}
			}
			if p.Checksum.Type == "sha256" {
				pkg.SHA256 = strings.TrimSpace(p.Checksum.Value)
			}
			out.Packages = append(out.Packages, pkg)
		}
	}
	if !found {
		return fail(errors.New("repomd.xml has no primary metadata"))
	}
	return out, nil
}

// loadRepos loads every enabled repository; an unavailable one fails the
// transaction unless it may be skipped.
func (n *node) loadRepos() ([]*rpmmdRepo, error) {
	repos, err := n.enabledRepos()
	if err != nil {
		return nil, err
	}
	var out []*rpmmdRepo
	for _, r := range repos {
		md, err := n.loadRepo(r)
		if err != nil {
			if r.SkipIfUnavailable {
				continue
			}
			return nil, err
		}
		out = append(out, md)
	}
	return out, nil
}

// newest returns the installable package named name with the highest
// version-release across repos (compared as rpm does, rpmvercmp), nil if
// none.
func newest(repos []*rpmmdRepo, name string) *rpmmdPackage {
	var best *rpmmdPackage
	for _, r := range repos {
		for i := range r.Packages {
			p := &r.Packages[i]
			if p.Name != name || !installable(p.Arch) {
				continue
			}
			if best == nil || compareEVR(p.NEVRA, best.NEVRA) > 0 {
				best = p
			}
		}
	}
	return best
}

// compareEVR orders two packages by epoch, version, release.
func compareEVR(a, b NEVRA) int {
	if a.Epoch != b.Epoch {
		if a.Epoch < b.Epoch {
			return -1
		}
		return 1
	}
	if c := rpmvercmp(a.Version, b.Version); c != 0 {
		return c
	}
	return rpmvercmp(a.Release, b.Release)
}

// rpmvercmp is rpm's version comparison: alternating runs of digits and
// letters, digits numerically and newer than letters, separators ignored,
// "~" sorting before anything.
func rpmvercmp(a, b string) int {
	isAlnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for a != "" || b != "" {
		for a != "" && !isAlnum(a[0]) && a[0] != '~' {
			a = a[1:]
		}
		for b != "" && !isAlnum(b[0]) && b[0] != '~' {
			b = b[1:]
		}
		if a != "" && a[0] == '~' || b != "" && b[0] == '~' {
			switch {
			case a == "" || a[0] != '~':
				return 1
			case b == "" || b[0] != '~':
				return -1
			}
			a, b = a[1:], b[1:]
			continue
		}
		if a == "" || b == "" {
			break
		}
		digits := isDigit(a[0])
		run := func(s string) (string, string) {
			i := 0
			for i < len(s) && isAlnum(s[i]) && isDigit(s[i]) == digits {
				i++
			}
			return s[:i], s[i:]
		}
		var x, y string
		x, a = run(a)
		y, b = run(b)
		if y == "" {
			if digits {
				return 1
			}
			return -1
		}
		if digits {
			x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
			if len(x) != len(y) {
				if len(x) < len(y) {
					return -1
				}
				return 1
			}
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// repoSummaries are the rpmostree.rpmmd-repos of a layered commit.
func repoSummaries(repos []*rpmmdRepo) []map[string]any {
	out := []map[string]any{}
	for _, r := range repos {
		out = append(out, map[string]any{"id": r.ID, "timestamp": r.Timestamp})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["id"].(string) < out[j]["id"].(string) })
	return out
}
