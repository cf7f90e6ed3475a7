package osdouble

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// The staged deployment, as ostree keeps it in /run:
//
//	<run>/ostree/staged-deployment         GVariant a{sv} (ostree-sysroot-deploy.c,
//	                                       ostree_sysroot_stage_tree_with_options):
//	                                       target, locked (only when true at staging),
//	                                       merge-deployment, kargs
//	<run>/ostree/staged-deployment-locked  the legacy lock file (rpm-ostree < 2024.6)
//
// ostree keeps the rest of a deployment (origin, commit) in the sysroot; the
// double keeps it beside, in a JSON sidecar it alone reads. The GVariant file
// is the one that says whether a deployment is staged: it is written last
// when staging and removed first when unstaging. The sidecar's Locked
// mirrors the GVariant's "locked" key, so the double never parses GVariant
// (pkg/ostree does, independently).

// stagedRecord is the sidecar.
type stagedRecord struct {
	Deployment
	// Locked is the "locked" key of the GVariant file.
	Locked bool `json:"locked"`
	// Merge is the deployment it was staged from (its merge-deployment).
	Merge Deployment `json:"merge"`
}

func (l layout) stagedSidecar() string { return l.stagedFile() + ".osdouble.json" }

// readStaged returns the staged deployment, nil if there is none.
func readStaged(l layout) (*stagedRecord, error) {
	if ok, err := exists(l.stagedFile()); err != nil || !ok {
		return nil, err
	}
	var rec stagedRecord
	found, err := readJSON(l.stagedSidecar(), &rec)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s without the double's record of it", l.stagedFile())
	}
	return &rec, nil
}

// stageTree stages d (from merge) as rpm-ostree of profile p and the ostree
// under it do: with lock and without LockInStagedFile, rpm-ostree touches
// the legacy lock file first ("touch file *before* we stage to avoid
// races"); ostree writes the staged file ("locked" only when asked); then,
// if another deployment was staged, ostree removes it and the legacy lock
// file with it (ostree >= 2023.7, commit ac69c707 "deploy: Remove lock when
// re-staging"): on rpm-ostree < 2024.6 a locked re-stage over a staged
// deployment therefore comes out unlocked.
func stageTree(l layout, p Profile, d, merge *Deployment, lock, hadStaged bool) error {
	if lock && !p.LockInStagedFile {
		if err := writeFileAtomic(l.lockedFile(), nil, false); err != nil {
			return fmt.Errorf("touch(%s): %w", l.lockedFile(), err)
		}
	}
	rec := stagedRecord{Deployment: *d, Locked: lock && p.LockInStagedFile, Merge: *merge}
	if err := writeStagedFiles(l, &rec, rec.Locked); err != nil {
		return err
	}
	if hadStaged {
		return removeIfExists(l.lockedFile())
	}
	return nil
}

// writeStagedFiles writes the sidecar, then the GVariant file. withKey puts
// a "locked" entry in it even when false (ostree_sysroot_change_finalization
// writes the key either way; staging writes it only when true).
func writeStagedFiles(l layout, rec *stagedRecord, withKey bool) error {
	if err := writeJSONAtomic(l.stagedSidecar(), rec, false); err != nil {
		return err
	}
	return writeFileAtomic(l.stagedFile(), stagedVariant(rec, withKey).serialise(), false)
}

// unlockStaged is ostree_sysroot_change_finalization on a locked
// deployment: the key becomes false and the legacy lock file goes.
func unlockStaged(l layout, rec *stagedRecord) error {
	rec.Locked = false
	if err := writeStagedFiles(l, rec, true); err != nil {
		return err
	}
	return removeIfExists(l.lockedFile())
}

// removeStaged drops the staged deployment as ostree does when it writes
// the deployment list without it: the staged file first, then the lock.
func removeStaged(l layout) error {
	for _, p := range []string{l.stagedFile(), l.stagedSidecar(), l.lockedFile()} {
		if err := removeIfExists(p); err != nil {
			return err
		}
	}
	return nil
}

// stagedVariant is the a{sv} ostree serialises.
func stagedVariant(rec *stagedRecord, withKey bool) gvDict {
	v := gvDict{{"target", deploymentVariant(&rec.Deployment)}}
	if withKey {
		v = append(v, gvEntry{"locked", gvBool(rec.Locked)})
	}
	return append(v,
		gvEntry{"merge-deployment", deploymentVariant(&rec.Merge)},
		gvEntry{"kargs", gvStrings(rec.Kargs)})
}

// deploymentVariant is serialize_deployment_to_variant: name, osname, bootcsum.
func deploymentVariant(d *Deployment) gvDict {
	return gvDict{
		{"name", gvString(fmt.Sprintf("%s.%d", d.Checksum, d.Serial))},
		{"osname", gvString(d.OSName)},
		{"bootcsum", gvString(bootChecksum(d))},
	}
}

// bootChecksum stands in for the checksum of the kernel and initramfs,
// which the double does not have.
func bootChecksum(d *Deployment) string {
	sum := sha256.Sum256([]byte("boot " + d.Checksum))
	return hex.EncodeToString(sum[:])
}
