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

// bootFallback is the bootloader's fallback at boot: when the default
// deployment carries LabelBootFails (and another one is there to fall back
// to), the previous deployment becomes the default again and the failed one
// the rollback, as greenboot's `rpm-ostree rollback` leaves them.
func bootFallback(l layout) error {
	st, err := loadState(layout{sysroot: l.sysroot})
	if err != nil {
		return err
	}
	d := st.boot.Deployments
	if len(d) < 2 || !bootFails(&d[0]) {
		return nil
	}
	d[0], d[1] = d[1], d[0]
	return saveBootList(l, bootList{Deployments: d})
}
