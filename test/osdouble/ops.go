package osdouble

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// errNoChange is the outcome of a deploy that would not change anything.
var errNoChange = errors.New("No change.")

// node is one simulated machine, as the CLI sees it.
type node struct {
	l          layout
	rebootFile string
	prof       Profile
	// root is the node's root filesystem ("" when not given, see EnvRoot).
	root string
}

func (n *node) repo() (*repo, error) { return openRepo(n.l.repoDir()) }

// rebase pulls the image refspec points to and stages it.
func (n *node) rebase(ctx context.Context, r *reporter, refspec, revision string, locked bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	def := st.defaultDeployment()
	if refspec == def.Origin {
		return fmt.Errorf("Old and new refs are equal: %s", refspec)
	}
	name, err := imageNameFromRefspec(refspec)
	if err != nil {
		return err
	}
	if revision != "" {
		if name, err = withDigest(name, revision); err != nil {
			return err
		}
	}
	rp, err := n.repo()
	if err != nil {
		return err
	}
	if err := rp.cleanTmp(); err != nil {
		return err
	}
	imp, err := pull(ctx, n.l, rp, name, refspec, r)
	if err != nil {
		return err
	}
	return n.stageImported(ctx, st, imp, refspec, locked, rp, r)
}

// deploy stages another digest of the image the default deployment follows.
func (n *node) deploy(ctx context.Context, r *reporter, revision string, locked bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	def := st.defaultDeployment()
	if rev, ok := strings.CutPrefix(revision, "revision="); ok {
		if rev == def.Checksum {
			return errNoChange
		}
		return fmt.Errorf("deploying ostree commit %s is not supported by this test double; deploy an image digest", rev)
	}
	if !def.IsContainer() {
		return fmt.Errorf("Cannot deploy %s: origin %q is not a container image", revision, def.Origin)
	}
	if !n.prof.ContainerDigests {
		// rpmostreed-transaction-types.cxx apply_revision_override, before 2025.7.
		return errors.New("Cannot look up version while tracking a container image reference")
	}
	if revision == def.ImageDigest {
		return errNoChange
	}
	name, err := imageNameFromRefspec(def.Origin)
	if err != nil {
		return err
	}
	if name, err = withDigest(trimDigest(name), revision); err != nil {
		return err
	}
	rp, err := n.repo()
	if err != nil {
		return err
	}
	if err := rp.cleanTmp(); err != nil {
		return err
	}
	imp, err := pull(ctx, n.l, rp, name, def.Origin, r)
	if err != nil {
		return err
	}
	if imp.commit == def.Base() {
		return errNoChange
	}
	return n.stageImported(ctx, st, imp, def.Origin, locked, rp, r)
}

func trimDigest(name string) string {
	if i := strings.LastIndex(name, "@"); i >= 0 {
		return name[:i]
	}
	return name
}

// stageImported stages the imported commit with the default deployment's
// kernel arguments and package requests (layered again on the new base, see
// layering.go), then prunes what no deployment needs any more.
func (n *node) stageImported(ctx context.Context, st *nodeState, imp *imported, origin string, locked bool, rp *repo, r *reporter) error {
	base := st.defaultDeployment()
	d := &Deployment{
		OSName:      base.OSName,
		Checksum:    imp.commit,
		Version:     imp.version,
		Timestamp:   imp.timestamp,
		Origin:      origin,
		ImageDigest: imp.manifestDigest,
		Kargs:       slices.Clone(base.Kargs),
		CommitMeta:  imp.meta,
	}
	if req := requestsOf(base); !req.empty() {
		var err error
		if d, err = n.layer(ctx, r, rp, d, req, false); err != nil {
			return err
		}
	}
	d.Serial = st.nextSerial(d.Checksum)
	r.p.Phase = PhaseStaging
	r.save()
	r.beginTask("Staging deployment")
	if err := stageTree(n.l, n.prof, d, base, locked, st.staged != nil); err != nil {
		return err
	}
	r.endTask("done")
	freed, err := rp.prune(keepCommits(st.boot.Deployments, d))
	if err != nil {
		return err
	}
	if freed > 0 {
		r.message("Freed: %s (pkgcache branches: 0)", formatSize(freed))
	}
	r.message("Run \"systemctl reboot\" to start a reboot")
	return nil
}

func keepCommits(ds []Deployment, staged *Deployment) []string {
	var keep []string
	for _, d := range ds {
		keep = append(keep, d.Checksum, d.BaseChecksum)
	}
	if staged != nil {
		keep = append(keep, staged.Checksum, staged.BaseChecksum)
	}
	return keep
}

// finalize unlocks the staged deployment if expected names it, then asks
// for a reboot: rpmostreed-transaction-types.cxx
// finalize_deployment_transaction_execute, checks in its order.
func (n *node) finalize(expected string, allowMissing, allowUnlocked bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	if st.staged == nil {
		return errors.New("No pending staged deployment found")
	}
	// The base commit, not a layered one (rpm-ostree's base checksum).
	found := st.staged.Base()
	// >= 2025.7: a container deployment is named by its image digest, when
	// the image can be queried (the same query status uses).
	if n.prof.ContainerDigests && st.staged.IsContainer() && !n.noImageDigest() {
		found = st.staged.ImageDigest
	}
	if expected == "" && !allowMissing {
		return errors.New("Missing expected checksum")
	}
	if expected != "" && expected != found {
		return fmt.Errorf("Expected staged base checksum %s, but found %s", expected, found)
	}
	if err := n.checkInhibitors(); err != nil {
		return err
	}
	if n.prof.LockInStagedFile {
		if !st.keyLocked {
			if !allowUnlocked {
				return errors.New("Staged deployment already unlocked")
			}
		} else {
			rec, err := readStaged(n.l)
			if err != nil {
				return err
			}
			if err := unlockStaged(n.l, rec); err != nil {
				return fmt.Errorf("Failed to unlock finalization of staged deployment: %w", err)
			}
		}
	} else {
		if !st.legacyLocked && !allowUnlocked {
			return errors.New("Staged deployment already unlocked")
		}
		if err := removeIfExists(n.l.lockedFile()); err != nil {
			return fmt.Errorf("unlink(%s): %w", n.l.lockedFile(), err)
		}
	}
	return n.requestReboot("finalize-deployment " + found)
}

// requestReboot writes the reboot file the harness watches.
func (n *node) requestReboot(reason string) error {
	return writeFileAtomic(n.rebootFile, []byte(reason+"\n"), false)
}

// cleanup removes the pending and/or rollback deployments and prunes the repo.
func (n *node) cleanup(out io.Writer, pending, rollback, base bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	removed := 0
	if pending && st.staged != nil {
		if err := removeStaged(n.l); err != nil {
			return err
		}
		st.staged = nil
		removed++
	}
	if rollback && len(st.boot.Deployments) > 1 {
		kept := []Deployment{st.boot.Deployments[0]}
		for _, d := range st.boot.Deployments[1:] {
			if d.Pinned {
				kept = append(kept, d)
			} else {
				removed++
			}
		}
		if len(kept) != len(st.boot.Deployments) {
			st.boot.Deployments = kept
			if err := saveBootList(n.l, st.boot); err != nil {
				return err
			}
		}
	}
	rp, err := n.repo()
	if err != nil {
		return err
	}
	if err := rp.cleanTmp(); err != nil {
		return err
	}
	freed, err := rp.prune(keepCommits(st.boot.Deployments, st.staged))
	if err != nil {
		return err
	}
	if removed == 0 {
		fmt.Fprintln(out, "Deployments unchanged.")
	} else {
		fmt.Fprintf(out, "Transaction complete; bootconfig swap: no; deployment count change: -%d\n", removed)
	}
	if freed > 0 || base {
		fmt.Fprintf(out, "Freed: %s (pkgcache branches: 0)\n", formatSize(freed))
	}
	return nil
}

// kargsEdit is one kernel argument change of `rpm-ostree kargs`.
type kargsEdit struct {
	op  string // append, append-if-missing, delete, delete-if-present, replace
	arg string
}

// applyKargs applies edits in rpm-ostree's order: deletions, replacements,
// then additions.
func applyKargs(kargs []string, edits []kargsEdit) ([]string, error) {
	out := slices.Clone(kargs)
	order := []string{"delete", "delete-if-present", "replace", "append", "append-if-missing"}
	for _, op := range order {
		for _, e := range edits {
			if e.op != op {
				continue
			}
			var err error
			switch op {
			case "delete", "delete-if-present":
				out, err = deleteKarg(out, e.arg, op == "delete")
			case "replace":
				out, err = replaceKarg(out, e.arg)
			case "append":
				out = append(out, e.arg)
			case "append-if-missing":
				if !slices.Contains(out, e.arg) {
					out = append(out, e.arg)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func kargKey(a string) string { k, _, _ := strings.Cut(a, "="); return k }

func deleteKarg(kargs []string, arg string, strict bool) ([]string, error) {
	if strings.Contains(arg, "=") {
		if i := slices.Index(kargs, arg); i >= 0 {
			return slices.Delete(kargs, i, i+1), nil
		}
	} else {
		var idx []int
		for i, a := range kargs {
			if kargKey(a) == arg {
				idx = append(idx, i)
			}
		}
		if len(idx) > 1 {
			return nil, fmt.Errorf("Multiple values for key '%s' found", arg)
		}
		if len(idx) == 1 {
			return slices.Delete(kargs, idx[0], idx[0]+1), nil
		}
	}
	if strict {
		return nil, fmt.Errorf("No karg '%s' found", arg)
	}
	return kargs, nil
}

func replaceKarg(kargs []string, arg string) ([]string, error) {
	key := kargKey(arg)
	var idx []int
	for i, a := range kargs {
		if kargKey(a) == key {
			idx = append(idx, i)
		}
	}
	switch len(idx) {
	case 0:
		return nil, fmt.Errorf("No karg '%s' found", key)
	case 1:
		kargs[idx[0]] = arg
		return kargs, nil
	}
	return nil, fmt.Errorf("Multiple values for key '%s' found", key)
}

// editKargs stages the default deployment with changed kernel arguments.
func (n *node) editKargs(out io.Writer, edits []kargsEdit, locked bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	base := st.defaultDeployment()
	kargs, err := applyKargs(base.Kargs, edits)
	if err != nil {
		return err
	}
	if slices.Equal(kargs, base.Kargs) {
		return errNoChange
	}
	d := base.clone()
	d.Kargs = kargs
	d.Serial = st.nextSerial(d.Checksum)
	fmt.Fprint(out, "Staging deployment...")
	if err := stageTree(n.l, n.prof, d, st.booted(), locked, st.staged != nil); err != nil {
		return err
	}
	fmt.Fprintln(out, "done")
	fmt.Fprintln(out, "Kernel arguments updated.")
	fmt.Fprintln(out, "Run \"systemctl reboot\" to start a reboot")
	return nil
}

// InitialOS is what a fresh node boots.
type InitialOS struct {
	// ImageRef, if set, is an image ("host/repo@sha256:...") pulled from its
	// registry and booted; its origin is ostree-unverified-registry:ImageRef.
	ImageRef string
	// Without ImageRef the node boots a "base" deployment with no content and
	// this Checksum (default: derived from Version) and Version (default "0").
	Checksum string
	Version  string
	// OSName is the stateroot; default DefaultOSName.
	OSName string
	// Kargs are the kernel arguments; default DefaultKargs().
	Kargs []string
	// NoFsync sets core.fsync=false (see SetFsync): nothing is synced. For
	// behaviour tests on a disk shared with other work; never for I/O figures.
	NoFsync bool
	// Profile is the rpm-ostree release the node runs (see Profiles);
	// default DefaultProfile.
	Profile string
}

// DefaultKargs are the kernel arguments of a node made by Init.
func DefaultKargs() []string { return []string{"rw", "root=LABEL=root", "console=ttyS0,115200n8"} }

// Init makes a fresh node in sysroot booting initial. It fails if the
// sysroot already holds a node.
func Init(ctx context.Context, sysroot string, initial InitialOS) error {
	l := layout{sysroot: sysroot}
	if ok, err := exists(l.bootFile()); err != nil || ok {
		if ok {
			return fmt.Errorf("init %s: already initialized", sysroot)
		}
		return err
	}
	if err := initRepo(l.repoDir()); err != nil {
		return fmt.Errorf("init %s: %w", sysroot, err)
	}
	if err := writeProfile(sysroot, initial.Profile); err != nil {
		return fmt.Errorf("init %s: %w", sysroot, err)
	}
	if initial.NoFsync {
		if err := SetFsync(sysroot, false); err != nil {
			return err
		}
	}
	d := Deployment{OSName: initial.OSName, Kargs: slices.Clone(initial.Kargs)}
	if d.OSName == "" {
		d.OSName = DefaultOSName
	}
	if d.Kargs == nil {
		d.Kargs = DefaultKargs()
	}
	if initial.ImageRef != "" {
		rp, err := openRepo(l.repoDir())
		if err != nil {
			return err
		}
		origin := transportUnverifiedRegistry + initial.ImageRef
		imp, err := pull(ctx, l, rp, initial.ImageRef, origin, newReporter(io.Discard, "", "init"))
		if err != nil {
			return fmt.Errorf("init %s: %w", sysroot, err)
		}
		d.Checksum, d.Version, d.Timestamp = imp.commit, imp.version, imp.timestamp
		d.Origin, d.ImageDigest, d.CommitMeta = origin, imp.manifestDigest, imp.meta
	} else {
		d.Version = initial.Version
		if d.Version == "" {
			d.Version = "0"
		}
		d.Checksum = initial.Checksum
		if d.Checksum == "" {
			sum := sha256.Sum256([]byte(d.OSName + " base " + d.Version))
			d.Checksum = hex.EncodeToString(sum[:])
		}
		d.Origin = d.OSName + ":base"
		d.CommitMeta = map[string]any{"version": d.Version}
	}
	return saveBootList(l, bootList{Deployments: []Deployment{d}})
}

// Reboot is an orderly reboot of the node: like ostree-finalize-staged at
// shutdown, it makes an unlocked staged deployment the default (the booted
// one becomes the rollback), discards a locked one, prunes the repo, and
// wipes the run dir. It fails while an rpm-ostree transaction runs: the
// harness must stop the node's processes first.
func Reboot(sysroot, run string) error { return reboot(layout{sysroot: sysroot, run: run}, true) }

// PowerLoss is a reboot without an orderly shutdown: ostree never finalizes,
// so any staged deployment is lost, locked or not, and the run dir is wiped.
func PowerLoss(sysroot, run string) error { return reboot(layout{sysroot: sysroot, run: run}, false) }

func reboot(l layout, orderly bool) error {
	if l.run == "" {
		return errors.New("reboot: run dir not set")
	}
	f, ok, err := lockSysroot(l)
	if err != nil {
		return err
	}
	if !ok {
		rec, _ := runningTransaction(l)
		if rec != nil {
			return fmt.Errorf("reboot: %w (pid %d: %s): stop it first", ErrTransactionInProgress, rec.PID, rec.Title)
		}
		return fmt.Errorf("reboot: %w: stop the node's rpm-ostree first", ErrTransactionInProgress)
	}
	defer unlockFile(f)
	if orderly {
		if _, err := finalizeStaged(l); err != nil {
			return err
		}
	}
	if err := bootFallback(l); err != nil {
		return err
	}
	return wipeDir(l.run)
}

func wipeDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
