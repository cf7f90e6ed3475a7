package osdouble

import "fmt"

// FinalizeStaged is what ostree-finalize-staged.service does at an orderly
// shutdown (`ostree admin finalize-staged`, _ostree_sysroot_finalize_staged_inner
// in ostree's src/libostree/ostree-sysroot-deploy.c, v2024.9): nothing staged,
// or staged and finalization-locked, leaves the boot entries alone; an
// unlocked staged deployment becomes the first entry (the booted one the
// rollback) and the repo is pruned. It reports whether it finalized. The run
// dir is left as it is: on a real node the reboot empties /run, and Reboot
// (the simulated one) wipes it after this.
func FinalizeStaged(sysroot, run string) (bool, error) {
	l := layout{sysroot: sysroot, run: run}
	f, ok, err := lockSysroot(l)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("finalize-staged: %w", ErrTransactionInProgress)
	}
	defer unlockFile(f)
	return finalizeStaged(l)
}

// finalizeStaged does FinalizeStaged's work; the caller holds the lock.
func finalizeStaged(l layout) (bool, error) {
	st, err := loadState(l)
	if err != nil {
		return false, err
	}
	if st.staged == nil || st.locked() || st.staged.ID() == st.booted().ID() {
		return false, nil
	}
	// ostree_sysroot_simple_write_deployment (ostree-sysroot.c, v2025.7)
	// as _ostree_sysroot_finalize_staged_inner calls it (flags NO_CLEAN
	// only): the staged deployment first, then of the others those pinned,
	// of another osname, booted, or the staged one's merge deployment.
	next := []Deployment{*st.staged}
	bootedID := st.booted().ID()
	for _, d := range st.boot.Deployments {
		if d.ID() == st.staged.ID() {
			continue
		}
		isMerge := st.stagedMerge != nil && d.ID() == st.stagedMerge.ID()
		if d.Pinned || d.OSName != st.staged.OSName || d.ID() == bootedID || isMerge {
			next = append(next, d)
		}
	}
	if err := saveBootList(l, bootList{Deployments: next}); err != nil {
		return false, err
	}
	rp, err := openRepo(l.repoDir())
	if err != nil {
		return false, err
	}
	if _, err := rp.prune(keepCommits(next, nil)); err != nil {
		return false, err
	}
	return true, nil
}
