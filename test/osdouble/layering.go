package osdouble

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
)

// Client-side package layering, as rpm-ostree does it on a deployment's
// origin (rpm-ostree src/daemon/rpmostreed-transaction-types.cxx
// deploy_transaction_execute and src/libpriv/rpmostree-core.cxx, v2023.12
// to v2026.2; test/osdouble/README.md lists what is modelled):
//   - an origin requests packages (requested-packages) and base package
//     removals (requested-base-removals); every deployment made from it
//     (install, override, kargs, and rebase or deploy to a new base) carries
//     them over and layers them again on its base commit;
//   - a requested package the base (minus its removals) already provides is
//     inactive: it stays requested but is not layered;
//   - the active requests are resolved from the enabled rpm-md repositories
//     ("Packages not found: a, b" for those no repository has); a cache-only
//     transaction (uninstall, override remove and reset without installs)
//     takes them from the packages already layered on the node instead;
//   - the result is a new commit (the layered commit, with its own checksum)
//     whose base-checksum is the base commit; without active requests the
//     deployment is the base commit itself.

// requests are what an origin asks to layer; both lists are sorted sets, as
// status prints them (rust/src/daemon.rs vdict_insert_optset).
type requests struct {
	packages []string
	removals []string
}

func requestsOf(d *Deployment) requests {
	return requests{packages: slices.Clone(d.RequestedPackages), removals: slices.Clone(d.RequestedBaseRemovals)}
}

func sortedSet(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return slices.Compact(out)
}

func (q requests) empty() bool { return len(q.packages) == 0 && len(q.removals) == 0 }

func (q requests) equal(o requests) bool {
	return slices.Equal(q.packages, o.packages) && slices.Equal(q.removals, o.removals)
}

// unlayered is d as its base commit alone: the deployment to layer on.
func unlayered(d *Deployment) *Deployment {
	c := d.clone()
	if c.IsLayered() {
		c.Checksum, c.Timestamp = c.BaseChecksum, c.BaseTimestamp
	}
	c.BaseChecksum, c.BaseTimestamp = "", 0
	c.LayeredPackages, c.RemovedBasePackages, c.LayeredCommitMeta = nil, nil, nil
	return c
}

// layeredCommitKeys are the keys of a layered commit's metadata that status
// promotes to their own fields and so leaves out of layered-commit-meta
// (rpmostreed-deployment-utils.cxx filter_commit_meta).
var layeredCommitKeys = []string{"rpmostree.rpmdb.pkglist", "rpmostree.advisories", "rpmostree.packages", "rpmostree.modules",
	"rpmostree.spec", "rpmostree.removed-base-packages", "rpmostree.replaced-base-packages", "rpmostree.replaced-base-remote-packages"}

// layer returns base (a deployment of a base commit, see unlayered) with
// req layered on it. Without active requests it is base itself, carrying
// req. The layered commit is written to the repo; nothing is staged.
func (n *node) layer(ctx context.Context, r *reporter, rp *repo, base *Deployment, req requests, cacheOnly bool) (*Deployment, error) {
	out := base.clone()
	out.RequestedPackages, out.RequestedBaseRemovals = sortedSet(req.packages), sortedSet(req.removals)
	basePkgs, err := rp.commitPackages(base.Checksum)
	if err != nil {
		return nil, err
	}
	var removed []NEVRA
	for _, name := range out.RequestedBaseRemovals {
		// A removal the base does not carry is an inactive override.
		removed = append(removed, byName(basePkgs, name)...)
	}
	remaining := slices.DeleteFunc(slices.Clone(basePkgs), func(p NEVRA) bool { return slices.Contains(out.RequestedBaseRemovals, p.Name) })
	var active []string
	for _, name := range out.RequestedPackages {
		if len(byName(remaining, name)) == 0 {
			active = append(active, name)
		}
	}
	if len(active) == 0 && len(removed) == 0 {
		return out, nil
	}
	installed, err := n.resolve(ctx, r, rp, active, cacheOnly)
	if err != nil {
		return nil, err
	}
	baseCommit, err := rp.loadCommit(base.Checksum)
	if errors.Is(err, os.ErrNotExist) {
		baseCommit = &commit{Timestamp: base.Timestamp, Version: base.Version}
	} else if err != nil {
		return nil, err
	}
	r.beginTask("Checking out tree %s", short(base.Checksum))
	t := newTree()
	for _, f := range baseCommit.Files {
		t.entries[f.Path] = f
	}
	r.endTask("done")
	db := slices.Clone(remaining)
	for _, p := range installed {
		db = append(db, p.nevra)
		t.entries[p.path] = commitFile{Path: p.path, Type: "file", Mode: 0o644, Size: p.size, Object: p.object}
	}
	sort.Slice(db, func(i, j int) bool { return db[i].String() < db[j].String() })
	r.beginTask("Writing rpmdb")
	dbBytes := FormatRPMDB(db)
	dbObj, err := rp.writeContent(bytes.NewReader(dbBytes), int64(len(dbBytes)), 0o644)
	if err != nil {
		return nil, err
	}
	t.entries[RPMDBPath] = commitFile{Path: RPMDBPath, Type: "file", Mode: 0o644, Size: int64(len(dbBytes)), Object: dbObj}
	r.endTask("done")

	removedMeta := []any{}
	for _, p := range removed {
		removedMeta = append(removedMeta, p.statusTuple())
	}
	meta := map[string]any{
		"rpmostree.clientlayer":                   true,
		"rpmostree.clientlayer_version":           6,
		"rpmostree.packages":                      active,
		"rpmostree.modules":                       []string{},
		"rpmostree.removed-base-packages":         removedMeta,
		"rpmostree.replaced-base-packages":        []any{},
		"rpmostree.replaced-base-remote-packages": map[string]any{},
		"rpmostree.rpmmd-repos":                   installedRepos(installed),
		"rpmostree.state-sha512":                  stateChecksum(base.Checksum, out),
	}
	// The version tag is copied from the base (rpmostree-core.cxx
	// rpmostree_context_commit), and so are the kernel and bootable keys.
	for _, k := range []string{"version", "ostree.linux", "ostree.bootable"} {
		if v, ok := base.CommitMeta[k]; ok {
			meta[k] = v
		}
	}
	r.beginTask("Writing OSTree commit")
	c := &commit{Timestamp: time.Now().Unix(), Version: base.Version, Metadata: meta, Files: t.files()}
	csum, err := rp.writeCommit(c)
	if err != nil {
		return nil, err
	}
	if err := rp.syncAll(); err != nil {
		return nil, err
	}
	r.endTask("done")
	shown := map[string]any{}
	for k, v := range meta {
		if !slices.Contains(layeredCommitKeys, k) {
			shown[k] = v
		}
	}
	out.Checksum, out.Timestamp = csum, c.Timestamp
	out.BaseChecksum, out.BaseTimestamp = base.Checksum, base.Timestamp
	out.LayeredPackages, out.RemovedBasePackages, out.LayeredCommitMeta = active, removed, shown
	return out, nil
}

// stateChecksum stands in for rpmostree.state-sha512 (a digest of the
// rpm-md state and the requests).
func stateChecksum(base string, d *Deployment) string {
	h := sha512.New()
	fmt.Fprintf(h, "%s\n%v\n%v\n", base, d.RequestedPackages, d.RequestedBaseRemovals)
	return hex.EncodeToString(h.Sum(nil))
}

// installedPackage is a package imported for a layered commit.
type installedPackage struct {
	nevra  NEVRA
	repo   *rpmmdRepo // nil when taken from the pkgcache
	path   string     // in the tree
	object string
	size   int64
}

func installedRepos(pkgs []installedPackage) []map[string]any {
	var repos []*rpmmdRepo
	for _, p := range pkgs {
		if p.repo != nil && !slices.Contains(repos, p.repo) {
			repos = append(repos, p.repo)
		}
	}
	return repoSummaries(repos)
}

// resolve finds each package named in names and imports its payload.
func (n *node) resolve(ctx context.Context, r *reporter, rp *repo, names []string, cacheOnly bool) ([]installedPackage, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var repos []*rpmmdRepo
	if !cacheOnly {
		enabled, err := n.enabledRepos()
		if err != nil {
			return nil, err
		}
		if len(enabled) == 0 {
			r.message("No enabled rpm-md repositories.")
		} else {
			ids := make([]string, len(enabled))
			for i, e := range enabled {
				ids[i] = e.ID
			}
			r.message("Enabled rpm-md repositories: %s", strings.Join(ids, " "))
		}
		for _, e := range enabled {
			r.beginTask("Updating metadata for '%s'", e.ID)
			md, err := n.loadRepo(e)
			if err != nil {
				if e.SkipIfUnavailable {
					r.endTask("failed")
					continue
				}
				return nil, err
			}
			r.endTask("done")
			r.message("rpm-md repo '%s'; generated: %s solvables: %d", md.ID, time.Unix(md.Timestamp, 0).UTC().Format("2006-01-02T15:04:05Z"), len(md.Packages))
			repos = append(repos, md)
		}
	}
	cache, err := n.pkgcache(rp)
	if err != nil {
		return nil, err
	}
	r.beginTask("Resolving dependencies")
	var out []installedPackage
	var missing []string
	for _, name := range names {
		if p := newest(repos, name); p != nil {
			out = append(out, installedPackage{nevra: p.NEVRA, repo: repoOf(repos, p.Repo)})
			continue
		}
		if cacheOnly {
			if c, ok := cache[name]; ok {
				out = append(out, c)
				continue
			}
		}
		missing = append(missing, name)
	}
	if len(missing) > 0 {
		r.endTask("failed")
		// rpmostree-core.cxx throw_package_list.
		return nil, fmt.Errorf("Packages not found: %s", strings.Join(missing, ", "))
	}
	r.endTask("done")
	var download int64
	for _, p := range out {
		if p.repo != nil {
			download += newest([]*rpmmdRepo{p.repo}, p.nevra.Name).Size
		}
	}
	if download > 0 {
		r.message("Will download: %d package%s (%s)", len(out), plural(len(out)), formatSize(download))
	}
	for i := range out {
		p := &out[i]
		p.path = path.Join(LayeredPayloadDir, p.nevra.String()+".rpm")
		if p.repo == nil {
			continue // from the pkgcache: its object is in the repo
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := newest([]*rpmmdRepo{p.repo}, p.nevra.Name)
		r.beginTask("Downloading from '%s'", p.repo.ID)
		obj, size, err := importPayload(rp, src)
		if err != nil {
			r.endTask("failed")
			return nil, fmt.Errorf("Downloading from '%s': %w", p.repo.ID, err)
		}
		r.endTask("done")
		p.object, p.size = obj, size
	}
	if len(out) > 0 {
		r.beginTask("Importing packages")
		r.endTask("done")
	}
	return out, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func repoOf(repos []*rpmmdRepo, id string) *rpmmdRepo {
	for _, r := range repos {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// importPayload writes a package's .rpm into the repo as a content object,
// checking it against the metadata's checksum and size.
func importPayload(rp *repo, p *rpmmdPackage) (string, int64, error) {
	b, err := os.ReadFile(p.Location)
	if err != nil {
		return "", 0, fmt.Errorf("Cannot download %s: %w", path.Base(p.Location), err)
	}
	if p.SHA256 != "" {
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
			return "", 0, fmt.Errorf("%s: checksum mismatch: calculated %s, expected %s", path.Base(p.Location), got, p.SHA256)
		}
	}
	if p.Size > 0 && int64(len(b)) != p.Size {
		return "", 0, fmt.Errorf("%s: size %d, expected %d", path.Base(p.Location), len(b), p.Size)
	}
	obj, err := rp.writeContent(bytes.NewReader(b), int64(len(b)), 0o644)
	return obj, int64(len(b)), err
}

// pkgcache is the packages layered on any deployment of the node, by name:
// what a cache-only transaction can layer again without a repository.
func (n *node) pkgcache(rp *repo) (map[string]installedPackage, error) {
	st, err := loadState(n.l)
	if err != nil {
		return nil, err
	}
	ds := slices.Clone(st.boot.Deployments)
	if st.staged != nil {
		ds = append(ds, *st.staged)
	}
	out := map[string]installedPackage{}
	for _, d := range ds {
		if !d.IsLayered() {
			continue
		}
		c, err := rp.loadCommit(d.Checksum)
		if err != nil {
			return nil, err
		}
		for _, f := range c.Files {
			rest, ok := strings.CutPrefix(f.Path, LayeredPayloadDir+"/")
			if !ok || !strings.HasSuffix(rest, ".rpm") {
				continue
			}
			p, err := ParseNEVRA(strings.TrimSuffix(rest, ".rpm"))
			if err != nil {
				continue
			}
			out[p.Name] = installedPackage{nevra: p, path: f.Path, object: f.Object, size: f.Size}
		}
	}
	return out, nil
}

func short(csum string) string {
	if len(csum) > 12 {
		return csum[:12]
	}
	return csum
}
