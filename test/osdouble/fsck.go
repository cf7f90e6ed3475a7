package osdouble

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// Fsck checks that every deployment of the node (booted, rollback, staged)
// is complete: its commit exists and every object it names exists with the
// right size and checksum. Crash tests call it after kill -9 to prove no
// deployment is half-written. It reads every object: keep it for small images.
func Fsck(sysroot, run string) error {
	l := layout{sysroot: sysroot, run: run}
	st, err := loadState(l)
	if err != nil {
		return err
	}
	rp, err := openRepo(l.repoDir())
	if err != nil {
		return err
	}
	ds := append([]Deployment{}, st.boot.Deployments...)
	if st.staged != nil {
		ds = append(ds, *st.staged)
	}
	checked := map[string]bool{}
	for _, d := range ds {
		if checked[d.Checksum] {
			continue
		}
		checked[d.Checksum] = true
		c, err := rp.loadCommit(d.Checksum)
		if errors.Is(err, os.ErrNotExist) && !d.IsContainer() {
			continue // a base deployment made by Init has no content
		}
		if err != nil {
			return fmt.Errorf("deployment %s: commit: %w", d.ID(), err)
		}
		for _, f := range c.Files {
			if f.Type != "file" {
				continue
			}
			if err := rp.checkObject(f); err != nil {
				return fmt.Errorf("deployment %s: %s: %w", d.ID(), f.Path, err)
			}
		}
	}
	return nil
}

func (r *repo) checkObject(f commitFile) error {
	fh, err := os.Open(r.objectPath(f.Object, kindFile))
	if err != nil {
		return err
	}
	defer fh.Close()
	h := contentHash(f.Mode)
	n, err := io.Copy(h, fh)
	if err != nil {
		return err
	}
	if n != f.Size {
		return fmt.Errorf("object %s: %d bytes, want %d", f.Object, n, f.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.Object {
		return fmt.Errorf("object %s: content checksum %s", f.Object, got)
	}
	return nil
}
