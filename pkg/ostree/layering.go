package ostree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/klog/v2"
)

// PackageChange changes the package layering of the deployment that boots
// next, the way the MCO layers a kernelType and extensions on with
// rpm-ostree (openshift/machine-config-operator pkg/daemon/update.go
// switchKernel, queueRevertKernelSwap and applyExtensions, release-4.20 at
// afed09939d80).
type PackageChange struct {
	// Install and Uninstall are packages to request and to stop requesting
	// (requested-packages).
	Install, Uninstall []string
	// Remove are base packages to override away, Reset removal overrides
	// to drop (requested-base-removals).
	Remove, Reset []string
}

// Empty tells whether the change asks for nothing.
func (c PackageChange) Empty() bool {
	return len(c.Install)+len(c.Uninstall)+len(c.Remove)+len(c.Reset) == 0
}

func (c PackageChange) String() string {
	var parts []string
	for _, p := range []struct {
		name string
		pkgs []string
	}{{"install", c.Install}, {"uninstall", c.Uninstall}, {"remove", c.Remove}, {"reset", c.Reset}} {
		if len(p.pkgs) > 0 {
			parts = append(parts, p.name+" "+strings.Join(p.pkgs, ","))
		}
	}
	if len(parts) == 0 {
		return "no package change"
	}
	return strings.Join(parts, "; ")
}

// Layer applies ch to the deployment that boots next: the staged one, or a
// new one made from the booted one, which rpm-ostree stages. The result is
// finalization-locked on every release. It is idempotent: what the
// deployment already requests is not asked for again (`override remove`
// and `override reset` have no --idempotent), so after a crash it is simply
// called again. The packages to install come from the rpm-md repositories
// of the host's /etc/yum.repos.d (the caller provides them).
//
// It runs at most two transactions, each with --lock-finalization:
// `override reset <removals> --uninstall <pkgs>` when overrides go,
// `override remove <pkgs> --install <pkgs>` when base packages go (the
// MCO's kernel switch: the kernel is replaced in one transaction), else
// `install --idempotent ... --uninstall ...` or `uninstall --idempotent`.
// Each re-stages the staged deployment. On rpm-ostree before 2024.6 that
// loses its finalization lock even with --lock-finalization: rpm-ostree
// touches /run/ostree/staged-deployment-locked before staging and ostree
// (since 2023.7, commit ac69c707 "deploy: Remove lock when re-staging")
// removes it when it replaces the staged deployment. Layer then locks it
// again the way rpm-ostree of that release locks, with that file, so the
// deployment never stays unlocked while the daemon runs.
func (c *Client) Layer(ctx context.Context, ch PackageChange) error {
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	pending := st.StagedDeployment()
	if pending == nil {
		if pending, err = st.Booted(); err != nil {
			return err
		}
	}
	plan := planLayering(pending, ch)
	log := klog.FromContext(ctx)
	for _, args := range plan {
		log.Info("Layering packages", "args", args)
		if _, err := c.run(ctx, nil, args...); err != nil {
			return err
		}
	}
	if st, err = c.Status(ctx); err != nil {
		return err
	}
	if len(plan) == 0 {
		return nil // the deployment that boots next already has it
	}
	staged := st.StagedDeployment()
	if staged == nil {
		return fmt.Errorf("layering %s: rpm-ostree succeeded but no deployment is staged", ch)
	}
	if rest := planLayering(staged, ch); len(rest) > 0 {
		return fmt.Errorf("layering %s: the staged deployment %s still needs %q (requested packages %v, base removals %v)",
			ch, staged.ID, rest, staged.RequestedPackages, staged.RequestedBaseRemovals)
	}
	return c.ensureLocked(ctx, staged, "layering "+ch.String())
}

// planLayering returns the rpm-ostree commands that take d's requests to
// what ch asks, none when d already has them.
func planLayering(d *Deployment, ch PackageChange) [][]string {
	install := slices.DeleteFunc(slices.Clone(ch.Install), func(p string) bool { return slices.Contains(d.RequestedPackages, p) })
	uninstall := slices.DeleteFunc(slices.Clone(ch.Uninstall), func(p string) bool { return !slices.Contains(d.RequestedPackages, p) })
	remove := slices.DeleteFunc(slices.Clone(ch.Remove), func(p string) bool { return slices.Contains(d.RequestedBaseRemovals, p) })
	reset := slices.DeleteFunc(slices.Clone(ch.Reset), func(p string) bool { return !slices.Contains(d.RequestedBaseRemovals, p) })
	flags := func(flag string, pkgs []string) []string {
		var out []string
		for _, p := range pkgs {
			out = append(out, flag, p)
		}
		return out
	}
	var plan [][]string
	if len(reset) > 0 {
		plan = append(plan, slices.Concat([]string{"override", "reset", "--lock-finalization"}, reset, flags("--uninstall", uninstall)))
		uninstall = nil
	}
	switch {
	case len(remove) > 0:
		plan = append(plan, slices.Concat([]string{"override", "remove", "--lock-finalization"}, remove,
			flags("--install", install), flags("--uninstall", uninstall)))
	case len(install) > 0:
		plan = append(plan, slices.Concat([]string{"install", "--idempotent", "--lock-finalization"}, install, flags("--uninstall", uninstall)))
	case len(uninstall) > 0:
		plan = append(plan, slices.Concat([]string{"uninstall", "--idempotent", "--lock-finalization"}, uninstall))
	}
	return plan
}

// releaseLockInStagedFile: rpm-ostree keeps the finalization lock in
// ostree's staged deployment record (commit 37c7228d, v2024.6); before, in
// /run/ostree/staged-deployment-locked alone.
var releaseLockInStagedFile = Release{2024, 6}

// ensureLocked makes sure the staged deployment d, just re-staged with
// --lock-finalization, is locked. Only rpm-ostree before 2024.6 can have
// lost the lock (see Layer); it is restored with the file that release
// itself locks with. On later releases an unlocked result is an error: the
// legacy file there would make the shutdown finalizer skip the deployment
// that finalize-deployment unlocks.
func (c *Client) ensureLocked(ctx context.Context, d *Deployment, what string) error {
	if d.FinalizationLocked {
		return nil
	}
	rel, err := c.Release(ctx)
	if err != nil {
		return err
	}
	if rel.AtLeast(releaseLockInStagedFile.Year, releaseLockInStagedFile.Minor) {
		return fmt.Errorf("%s: the staged deployment %s is not finalization-locked after --lock-finalization (rpm-ostree %s)", what, d.ID, rel)
	}
	klog.FromContext(ctx).Info("Re-staging dropped the finalization lock; locking again", "deployment", d.ID, "rpmOstree", rel)
	lock := filepath.Join(c.opts.HostRun, "ostree", "staged-deployment-locked")
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%s: locking the staged deployment %s: %w", what, d.ID, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	again := st.StagedDeployment()
	switch {
	case again == nil:
		return errors.Join(fmt.Errorf("%s: the staged deployment %s went away while it was locked again", what, d.ID), os.Remove(lock))
	case again.ID != d.ID:
		// Another deployment was staged meanwhile. Locked is the safe state
		// for it too; the caller decides what to do with it.
		return fmt.Errorf("%s: %s was staged instead of %s while it was locked again", what, again.ID, d.ID)
	case !again.FinalizationLocked:
		return fmt.Errorf("%s: the staged deployment %s is still not finalization-locked after %s was written", what, d.ID, lock)
	}
	return nil
}
