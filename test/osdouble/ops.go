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

// pullEnv is the node as a pull sees it, with the auth file ostree-ext
// would hand the container stack (pullauth.go).
func (n *node) pullEnv() (pullEnv, error) {
	e := pullEnv{root: n.root, run: n.l.run}
	f, err := findAuthFile(e, n.prof)
	if err != nil {
		return e, fmt.Errorf("Creating importer: looking for the registry auth file: %w", err)
	}
	e.authFile = f
	return e, nil
}

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
	env, err := n.pullEnv()
	if err != nil {
		return err
	}
	imp, err := pull(ctx, n.l, env, rp, name, refspec, r)
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
	env, err := n.pullEnv()
	if err != nil {
		return err
	}
	imp, err := pull(ctx, n.l, env, rp, name, def.Origin, r)
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
	// rpmostree_syscore_filter_deployments (src/daemon/rpmostree-sysroot-core.cxx,
	// v2023.12 to v2026.2): of the booted osname, the unpinned deployments
	// before the booted one (the staged one included) are pending, those
	// after it the rollback; the booted, other osnames' and pinned ones stay.
	osname := st.booted().OSName
	removed := 0
	if pending && st.staged != nil && st.staged.OSName == osname {
		if err := removeStaged(n.l); err != nil {
			return err
		}
		st.staged = nil
		removed++
	}
	if pending || rollback {
		var kept []Deployment
		bootedID, pastBooted := st.booted().ID(), false
		for _, d := range st.boot.Deployments {
			switch {
			case d.ID() == bootedID:
				pastBooted = true
			case d.OSName != osname || d.Pinned:
			case !pastBooted && pending, pastBooted && rollback:
				removed++
				continue
			}
			kept = append(kept, d)
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

// errNoKargsChange is kernel_arg_apply's "No changes." (no edit ran).
var errNoKargsChange = errors.New("No changes.")

// editKargs stages the default deployment with changed kernel arguments.
func (n *node) editKargs(out io.Writer, p kargsPatch, locked bool) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	base := st.defaultDeployment()
	kargs, changed, err := applyKargsPatch(base.Kargs, p, n.prof)
	if err != nil {
		return err
	}
	if !changed {
		return errNoKargsChange
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
	// Root is the node's root (see EnvRoot): the installer's pull of
	// ImageRef trusts the registries its /etc/containers/certs.d trusts.
	Root string
	// AuthFile is the auth.json (a path on this machine) the installer
	// pulls ImageRef with; "" pulls anonymously. On OpenShift the first
	// boot pulls with the pull secret Ignition wrote, /var/lib/kubelet/config.json.
	AuthFile string
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
		env := pullEnv{root: initial.Root, authFile: initial.AuthFile}
		imp, err := pull(ctx, l, env, rp, initial.ImageRef, origin, newReporter(io.Discard, "", "init"))
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
	if err := wipeDir(l.run); err != nil {
		return err
	}
	// The bootloader boots its first entry: that is the booted deployment
	// until the next boot, whatever the list becomes.
	var b bootList
	if _, err := readJSON(l.bootFile(), &b); err != nil {
		return err
	}
	_, err = writeBootRecord(l, b)
	return err
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
