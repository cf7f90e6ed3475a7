package osdouble

// LabelBootFails on an OS image makes the double's node fail to boot it: a
// fault for tests of bad updates. It models greenboot on rpm-ostree
// (fedora-iot/greenboot: health checks fail on the new deployment, grub's
// boot counter runs out, the bootloader falls back and
// greenboot-rpm-ostree-grub2-check-fallback runs `rpm-ostree rollback`):
// after the reboot that should apply the staged deployment, the old one is
// booted and stays the default, and the new one is the rollback
// deployment. The label is copied into the commit metadata at pull, where
// the reboot finds it.
const LabelBootFails = "io.tandem.test.boot-fails"

// bootFails tells whether d carries the fault.
func bootFails(d *Deployment) bool {
	v, ok := d.CommitMeta[LabelBootFails]
	return ok && v != "" && v != false
}
