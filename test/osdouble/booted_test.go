package osdouble

import (
	"slices"
	"strings"
	"testing"
)

// The oracle, from upstream (README.md "The booted deployment"): ostree
// knows the booted deployment from the boot (ostree-sysroot.c
// parse_deployment: the dev/ino ostree-prepare-root recorded), not from its
// place in the bootloader's list. rpm-ostree takes the kernel arguments
// `kargs` edits and a new deployment's origin from the first deployment of
// the booted osname, the staged one included
// (rpmostree_syscore_get_origin_merge_deployment); cleanup -p removes the
// booted osname's unpinned deployments before the booted one, -r those
// after it (rpmostree_syscore_filter_deployments); finalizing keeps, of the
// others, the pinned, other osnames', the booted and the merge deployment
// (ostree_sysroot_simple_write_deployment).

// withBootList replaces the node's bootloader list, the booted deployment
// staying the one recorded at boot (a state rpm-ostree reaches with
// `ostree admin deploy --stage`-less deploys or another stateroot's
// installer; the double's own commands do not make it).
func (n testNode) withBootList(list []Deployment) {
	n.t.Helper()
	if err := saveBootList(layout{sysroot: n.Sysroot}, bootList{Deployments: list}); err != nil {
		n.t.Fatal(err)
	}
}

func TestBootedIsWhatBootedNotTheFirstEntry(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Kargs: []string{"rw", "booted=1"}})
	booted := n.booted()
	// Another stateroot's deployment is put first, as an installer of a
	// second OS would.
	other := booted.clone()
	other.OSName, other.Origin, other.Kargs = "fedora", "fedora:base", []string{"rw", "other=1"}
	n.withBootList([]Deployment{*other, *booted})

	s := n.status()
	if len(s.Deployments) != 2 || s.Deployments[0].Booted || !s.Deployments[1].Booted || s.Deployments[1].OSName != DefaultOSName {
		t.Fatalf("status deployments %+v: want fedora first and not booted, rhcos booted", s.Deployments)
	}
	if r := n.mustRun("kargs"); strings.TrimSpace(r.stdout) != "rw booted=1" {
		t.Errorf("kargs %q: want the booted osname's first deployment's", r.stdout)
	}
	n.mustRun("rebase", refspec(img2)) // unlocked: the reboot finalizes it
	staged, _, err := n.Staged()
	if err != nil || staged == nil || staged.OSName != DefaultOSName || !slices.Equal(staged.Kargs, []string{"rw", "booted=1"}) {
		t.Fatalf("staged %+v %v: want rhcos with the booted deployment's kernel arguments", staged, err)
	}
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	list, err := Deployments(n.Sysroot)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ImageDigest != img2.Digest || list[1].OSName != "fedora" || list[2].ID() != booted.ID() {
		t.Fatalf("after finalizing: %+v, want the new one, fedora (another osname) and the old booted one", list)
	}
	if b := n.booted(); b.ImageDigest != img2.Digest {
		t.Fatalf("booted %+v after the reboot, want the first entry", b)
	}
	n.mustRun("cleanup", "-r")
	if list, _ := Deployments(n.Sysroot); len(list) != 2 || list[1].OSName != "fedora" {
		t.Fatalf("cleanup -r: %+v, want fedora kept", list)
	}
}

func TestPendingBeforeTheBootedDeployment(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Kargs: []string{"rw", "booted=1"}})
	booted := n.booted()
	pending := booted.clone()
	pending.Serial, pending.Kargs = booted.Serial+1, []string{"rw", "pending=1"}
	n.withBootList([]Deployment{*pending, *booted})

	if got := n.booted(); got.ID() != booted.ID() {
		t.Fatalf("booted %s, want %s (the boot record)", got.ID(), booted.ID())
	}
	if r := n.mustRun("kargs"); strings.TrimSpace(r.stdout) != "rw pending=1" {
		t.Errorf("kargs %q: want the pending deployment's (the first of the osname)", r.stdout)
	}
	r := n.mustRun("status", "--json", "--booted")
	if !strings.Contains(r.stdout, booted.ID()) || strings.Contains(r.stdout, pending.ID()) {
		t.Errorf("status --booted shows %s", r.stdout)
	}
	n.mustRun("cleanup", "-p")
	if list, _ := Deployments(n.Sysroot); len(list) != 1 || list[0].ID() != booted.ID() {
		t.Fatalf("cleanup -p: %+v, want only the booted deployment", list)
	}
}
