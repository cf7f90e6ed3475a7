package ostree

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

func TestPlanLayering(t *testing.T) {
	dep := func(pkgs, removals []string) *Deployment {
		var d Deployment
		d.RequestedPackages, d.RequestedBaseRemovals = pkgs, removals
		return &d
	}
	kernel := []string{"kernel", "kernel-core"}
	rt := []string{"kernel-rt-core", "kernel-rt-kvm"}
	tests := []struct {
		name string
		d    *Deployment
		ch   PackageChange
		want []string // commands joined by " "
	}{
		{"nothing asked", dep(nil, nil), PackageChange{}, nil},
		{"the MCO's switch to realtime: one transaction", dep(nil, nil), PackageChange{Install: rt, Remove: kernel},
			[]string{"override remove --lock-finalization kernel kernel-core --install kernel-rt-core --install kernel-rt-kvm"}},
		{"an extension", dep(nil, nil), PackageChange{Install: []string{"usbguard"}},
			[]string{"install --idempotent --lock-finalization usbguard"}},
		{"back to the default kernel: reset with the uninstalls", dep(rt, kernel), PackageChange{Uninstall: rt, Reset: kernel},
			[]string{"override reset --lock-finalization kernel kernel-core --uninstall kernel-rt-core --uninstall kernel-rt-kvm"}},
		{"an extension goes, one comes", dep([]string{"sysstat"}, nil), PackageChange{Install: []string{"usbguard"}, Uninstall: []string{"sysstat"}},
			[]string{"install --idempotent --lock-finalization usbguard --uninstall sysstat"}},
		{"only an uninstall", dep([]string{"sysstat"}, nil), PackageChange{Uninstall: []string{"sysstat"}},
			[]string{"uninstall --idempotent --lock-finalization sysstat"}},
		{"already done (after a crash)", dep(append(slices.Clone(rt), "usbguard"), kernel), PackageChange{Install: append(slices.Clone(rt), "usbguard"), Remove: kernel}, nil},
		{"half done: the kernel switched, the extension not yet", dep(rt, kernel), PackageChange{Install: append(slices.Clone(rt), "usbguard"), Remove: kernel},
			[]string{"install --idempotent --lock-finalization usbguard"}},
		{"reset, then remove", dep(nil, []string{"other"}), PackageChange{Reset: []string{"other"}, Remove: kernel, Install: rt},
			[]string{"override reset --lock-finalization other", "override remove --lock-finalization kernel kernel-core --install kernel-rt-core --install kernel-rt-kvm"}},
		{"nothing to undo", dep(nil, nil), PackageChange{Uninstall: rt, Reset: kernel}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range planLayering(tt.d, tt.ch) {
				got = append(got, strings.Join(c, " "))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestRemovedPackagesOfARealStatus(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures, "rpmostree-client-go-fcos-with-overrides-status.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Deployments[0]
	if len(d.BaseRemovals) != 1 || d.BaseRemovals[0].Name != "moby-engine" || d.BaseRemovals[0].NEVRA != "moby-engine-20.10.22-1.fc37.x86_64" ||
		!slices.Equal(d.Packages, []string{"strace"}) || !slices.Equal(d.RequestedBaseRemovals, []string{"moby-engine"}) {
		t.Errorf("parsed %+v %+v", d.BaseRemovals, d.Packages)
	}
}

// layeringNode is a node whose rpm-ostree sees the extensions repository of
// OS version 2 the way the MCO lays it out.
func layeringNode(t *testing.T, profile string) *node {
	t.Helper()
	n := newProfileNode(t, Options{}, profile)
	n.Root = filepath.Join(filepath.Dir(n.Run), "root")
	rel := "machine-os-extensions/os-extensions-content-test/" + osimage.ExtensionsRepoDir
	if err := osimage.WriteExtensionsRepo(filepath.Join(n.Run, rel), osimage.ExtensionsOptions{Version: 2}); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(n.Root, "etc", "yum.repos.d", "coreos-extensions.repo")
	if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(repo, []byte("[coreos-extensions]\nenabled=1\nbaseurl=/run/"+rel+"/\ngpgcheck=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = n.daemon.Kill()
	n.startDaemon() // with the root in its environment
	return n
}

// TestLayerKeepsTheLockOnEveryProfile: the MCO's kernel switch and an
// extension layered onto the locked staged deployment leave it locked on
// every rpm-ostree (2023.12 loses the lock on every re-stage, see Layer),
// a second call changes nothing, and finalize boots it.
func TestLayerKeepsTheLockOnEveryProfile(t *testing.T) {
	rt := []string{"kernel-rt-core", "kernel-rt-modules", "kernel-rt-modules-extra", "kernel-rt-kvm"}
	kernel := []string{"kernel", "kernel-core", "kernel-modules", "kernel-modules-core", "kernel-modules-extra"}
	for _, p := range osdouble.Profiles() {
		t.Run(p, func(t *testing.T) {
			n := layeringNode(t, p)
			ctx := context.Background()
			if _, err := n.client.Stage(ctx, img2.Ref); err != nil {
				t.Fatal(err)
			}
			if err := n.client.SetKernelArgs(ctx, []string{"nosmt"}, nil); err != nil {
				t.Fatal(err)
			}
			if st, locked, _ := n.Staged(); st == nil || !locked {
				t.Fatalf("after kargs: staged %v, locked %v", st, locked)
			}
			ch := PackageChange{Install: append(slices.Clone(rt), "usbguard"), Remove: kernel}
			if err := n.client.Layer(ctx, ch); err != nil {
				t.Fatal(err)
			}
			// The oracle is ostree's own rule (would shutdown finalize it?).
			st, locked, err := n.Staged()
			if err != nil || st == nil || !locked {
				t.Fatalf("after Layer: staged %v, locked %v, %v", st, locked, err)
			}
			ran := len(n.commands())
			if err := n.client.Layer(ctx, ch); err != nil {
				t.Fatal(err)
			}
			if got := n.commands(); len(got) != ran {
				t.Errorf("a second Layer ran %q", got[ran:])
			}
			staged := n.status().StagedDeployment()
			if !staged.CarriesImage(img2.Ref) || staged.GetBaseChecksum() == staged.Checksum {
				t.Fatalf("staged %+v", staged)
			}
			// Powered off now, nothing of it boots.
			if err := n.client.Finalize(ctx, img2.Digest); err != nil {
				t.Fatal(err)
			}
			n.reboot()
			b := n.booted()
			if od, err := n.Booted(); err != nil || !b.CarriesImage(img2.Ref) || !slices.Contains(od.Kargs, "nosmt") {
				t.Fatalf("booted %+v (%+v, %v)", b, od, err)
			}
			for _, want := range append(slices.Clone(rt), "usbguard") {
				if !slices.Contains(b.Packages, want) {
					t.Errorf("booted packages %v lack %s", b.Packages, want)
				}
			}
			var removed []string
			for _, r := range b.BaseRemovals {
				removed = append(removed, r.Name)
			}
			if slices.Sort(removed); !slices.Equal(removed, kernel) {
				t.Errorf("booted base removals %v, want %v", removed, kernel)
			}
			// And back: reset and uninstall, on a booted layered deployment.
			if err := n.client.Layer(ctx, PackageChange{Uninstall: append(slices.Clone(rt), "usbguard"), Reset: kernel}); err != nil {
				t.Fatal(err)
			}
			if st, locked, _ := n.Staged(); st == nil || !locked || st.IsLayered() {
				t.Fatalf("after the way back: staged %+v, locked %v", st, locked)
			}
		})
	}
}

func TestLayerFailsCleanlyForAnUnknownPackage(t *testing.T) {
	n := layeringNode(t, "")
	ctx := context.Background()
	if _, err := n.client.Stage(ctx, img2.Ref); err != nil {
		t.Fatal(err)
	}
	before := n.status().StagedDeployment()
	err := n.client.Layer(ctx, PackageChange{Install: []string{"no-such-extension"}})
	if err == nil || !strings.Contains(err.Error(), "Packages not found: no-such-extension") {
		t.Fatalf("Layer of an unknown package: %v", err)
	}
	after := n.status().StagedDeployment()
	if after == nil || after.ID != before.ID || !after.FinalizationLocked {
		t.Errorf("a failed Layer changed the staged deployment: %+v -> %+v", before, after)
	}
}
