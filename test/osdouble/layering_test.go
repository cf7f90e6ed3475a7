package osdouble

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-mco/tandem/test/osimage"
)

// What the MCO runs for kernelType realtime (openshift/machine-config-operator
// pkg/daemon/update.go switchKernel and getKernelPackagesForRelease,
// release-4.20 at afed09939d80), written out here as the oracle.
var (
	defaultKernel  = []string{"kernel", "kernel-core", "kernel-modules", "kernel-modules-core", "kernel-modules-extra"}
	realtimeKernel = []string{"kernel-rt-core", "kernel-rt-modules", "kernel-rt-modules-extra", "kernel-rt-kvm"}
)

func switchToRealtimeArgs() []string {
	args := append([]string{"override", "remove"}, defaultKernel...)
	for _, p := range realtimeKernel {
		args = append(args, "--install", p)
	}
	return append(args, "--lock-finalization")
}

// withRepo gives the node the extensions repository the way the MCO does:
// extracted under /run, named by /etc/yum.repos.d/coreos-extensions.repo
// (pkg/daemon/update.go addExtensionsRepo: enabled, gpgcheck=0,
// skip_if_unavailable=False).
func (n *testNode) withRepo(version int) {
	n.t.Helper()
	if n.Root == "" {
		n.Root = filepath.Join(filepath.Dir(n.Run), "root")
		n.stopDaemon()
		n.startDaemon() // its environment names the root now
	}
	rel := fmt.Sprintf("machine-os-extensions/os-extensions-content-%d/%s", version, osimage.ExtensionsRepoDir)
	if err := osimage.WriteExtensionsRepo(filepath.Join(n.Run, rel), osimage.ExtensionsOptions{Version: version}); err != nil {
		n.t.Fatal(err)
	}
	repo := "[coreos-extensions]\nenabled=1\nmetadata_expire=1m\nbaseurl=/run/" + rel + "/\ngpgcheck=0\nskip_if_unavailable=False\n"
	p := filepath.Join(n.Root, "etc", "yum.repos.d", "coreos-extensions.repo")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		n.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(repo), 0o644); err != nil {
		n.t.Fatal(err)
	}
}

func (n *testNode) withoutRepo() {
	n.t.Helper()
	if err := os.Remove(filepath.Join(n.Root, "etc", "yum.repos.d", "coreos-extensions.repo")); err != nil {
		n.t.Fatal(err)
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// rpmdb returns the names in the package database of commit csum.
func (n *testNode) rpmdb(csum string) []string {
	n.t.Helper()
	rp, err := openRepo(layout{sysroot: n.Sysroot}.repoDir())
	if err != nil {
		n.t.Fatal(err)
	}
	pkgs, err := rp.commitPackages(csum)
	if err != nil {
		n.t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		names = append(names, p.Name)
	}
	return names
}

// TestLayeringLikeTheMCO: on every profile, the MCO's commands for
// kernelType realtime and an extension, run on a locked staged deployment,
// give a layered deployment with upstream's status fields, keep or lose the
// lock as upstream does, and boot after finalize-deployment.
func TestLayeringLikeTheMCO(t *testing.T) {
	for _, u := range upstream {
		t.Run(u.version, func(t *testing.T) {
			n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: u.version})
			n.withRepo(2)
			n.mustRun("rebase", "--lock-finalization", refspec(img2))
			base := n.rawStatus()[0]["checksum"].(string)

			n.mustRun(switchToRealtimeArgs()...)
			_, locked, _ := n.Staged()
			if locked != u.restageKeepsLock {
				t.Errorf("locked after override remove --lock-finalization over a locked staged deployment: %v, want %v", locked, u.restageKeepsLock)
			}
			n.mustRun("install", "--idempotent", "--lock-finalization", "usbguard")
			// Idempotent again: nothing changes.
			if r := n.mustRun("install", "--idempotent", "--lock-finalization", "usbguard"); !strings.Contains(r.stdout, "No change.") {
				t.Errorf("second idempotent install: %q", r.stdout)
			}

			d := n.rawStatus()[0]
			if d["staged"] != true || d["base-checksum"] != base || d["checksum"] == base {
				t.Fatalf("staged after layering: checksum %v base-checksum %v (base %s)", d["checksum"], d["base-checksum"], base)
			}
			if got, want := strs(d["requested-base-removals"]), sorted(defaultKernel...); !slices.Equal(got, want) {
				t.Errorf("requested-base-removals %v, want %v", got, want)
			}
			wantPkgs := sorted(append(slices.Clone(realtimeKernel), "usbguard")...)
			if got := strs(d["requested-packages"]); !slices.Equal(got, wantPkgs) {
				t.Errorf("requested-packages %v, want %v", got, wantPkgs)
			}
			if got := strs(d["packages"]); !slices.Equal(got, wantPkgs) {
				t.Errorf("packages %v, want %v", got, wantPkgs)
			}
			removals := d["base-removals"].([]any)
			if len(removals) != len(defaultKernel) {
				t.Fatalf("base-removals %v", removals)
			}
			first := removals[0].([]any)
			if len(first) != 6 || !strings.HasPrefix(first[0].(string), first[1].(string)+"-"+osimage.KernelVersion(2)) {
				t.Errorf("base-removals entry %v, want [nevra, name, epoch, version, release, arch]", first)
			}
			if d["container-image-reference-digest"] != img2.Digest {
				t.Errorf("container-image-reference-digest %v, want the base image's %s", d["container-image-reference-digest"], img2.Digest)
			}
			for _, k := range []string{"base-timestamp", "layered-commit-meta"} {
				if _, ok := d[k]; !ok {
					t.Errorf("no %s in a layered deployment", k)
				}
			}
			if meta := d["layered-commit-meta"].(map[string]any); meta["rpmostree.clientlayer"] != true || meta["rpmostree.packages"] != nil {
				t.Errorf("layered-commit-meta %v", meta)
			}

			expected := base
			if u.finalizeByDigest {
				expected = img2.Digest
			}
			n.mustRun("finalize-deployment", "--allow-unlocked", expected)
			if err := n.Reboot(); err != nil {
				t.Fatal(err)
			}
			b := n.booted()
			if b.BaseChecksum != base || !slices.Equal(b.RequestedPackages, wantPkgs) {
				t.Fatalf("booted %+v", b)
			}
			db := n.rpmdb(b.Checksum)
			for _, p := range defaultKernel {
				if slices.Contains(db, p) {
					t.Errorf("booted package database still has %s: %v", p, db)
				}
			}
			for _, p := range wantPkgs {
				if !slices.Contains(db, p) {
					t.Errorf("booted package database lacks %s: %v", p, db)
				}
			}
		})
	}
}

// TestLayeringErrors: upstream's refusals, each leaving the node as it was.
func TestLayeringErrors(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: "2025.7"})
	n.withRepo(1)
	n.mustRun("install", "usbguard")
	n.mustRun("override", "remove", "kernel-core")
	before := n.mustRun("status", "--json").stdout
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "usbguard"}, "error: Package/capability 'usbguard' is already requested"},
		{[]string{"install", "no-such-package"}, "error: Packages not found: no-such-package"},
		{[]string{"install", "bash"}, `error: "bash" is already provided by: bash-5.2.26-1.tandem.x86_64. Use --allow-inactive to explicitly require it.`},
		{[]string{"install"}, "error: At least one PACKAGE must be specified"},
		{[]string{"install", "--enablerepo=x", "sysstat"}, "error: --enablerepo currently only works in a container build"},
		{[]string{"uninstall", "sysstat"}, "error: Package/capability 'sysstat' is not currently requested"},
		{[]string{"uninstall"}, "error: At least one PACKAGE must be specified"},
		{[]string{"override", "remove", "no-such-package"}, `error: Package "no-such-package" not found`},
		{[]string{"override", "remove", "kernel-core"}, "error: Override already exists for package 'kernel-core'"},
		{[]string{"override", "reset", "kernel"}, "error: No overrides for package 'kernel'"},
		{[]string{"override", "reset", "--all", "kernel"}, "error: Cannot specify PACKAGEs with --all"},
		{[]string{"override", "replace", "kernel-rt-core"}, "error: Non-local replacement overrides not implemented yet"},
		{[]string{"override"}, `error: No "override" subcommand specified`},
		{[]string{"override", "frobnicate", "x"}, `error: Unknown "override" subcommand "frobnicate"`},
		{[]string{"install", "--apply-live", "sysstat"}, "error: --apply-live is not supported by this rpm-ostree test double"},
	} {
		r := n.rpmOstree(tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if after := n.mustRun("status", "--json").stdout; after != before {
		t.Errorf("a refused command changed the node:\n%s\nwas\n%s", after, before)
	}
	// The 2026.1 change: a container host installs a base package as an
	// inactive request instead of refusing it.
	m := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: "2026.2"})
	m.withRepo(1)
	m.mustRun("install", "bash")
	d := m.rawStatus()[0]
	if got := strs(d["requested-packages"]); !slices.Equal(got, []string{"bash"}) || len(d["packages"].([]any)) != 0 {
		t.Errorf("install of a base package on 2026.2: requested %v packages %v, want an inactive request", got, d["packages"])
	}
}

// TestLayeredRequestsFollowARebase: a rebase layers the origin's requests
// again on the new base, which needs the repository (the MCO's reason to
// set it up for every OS update, OCPBUGS-2269); a cache-only uninstall does
// not.
func TestLayeredRequestsFollowARebase(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.withRepo(1)
	n.mustRun("install", "usbguard", "sysstat")
	n.mustRun("finalize-deployment", "--allow-unlocked", img1.Digest)
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	n.withoutRepo()
	if r := n.rpmOstree("rebase", "--lock-finalization", refspec(img2)); r.code != 1 || !strings.Contains(r.stderr, "Packages not found: sysstat, usbguard") {
		t.Fatalf("rebase of a layered deployment without the repository: exit %d %q", r.code, r.stderr)
	}
	if st, _, _ := n.Staged(); st != nil {
		t.Fatalf("a failed rebase staged %+v", st)
	}
	// Offline: what is layered comes from the packages the node has.
	n.mustRun("uninstall", "--lock-finalization", "sysstat")
	if st, _, _ := n.Staged(); st == nil || !slices.Equal(st.LayeredPackages, []string{"usbguard"}) {
		t.Fatalf("after a cache-only uninstall: %+v", st)
	}
	n.mustRun("cleanup", "-p")
	n.withRepo(2)
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	st, _, _ := n.Staged()
	if st == nil || st.ImageDigest != img2.Digest || !slices.Equal(st.LayeredPackages, []string{"sysstat", "usbguard"}) {
		t.Fatalf("staged after the rebase: %+v", st)
	}
	for _, p := range []string{"sysstat", "usbguard"} {
		want := p + "-1.2-2.tandem.x86_64"
		if !slices.Contains(n.rpmdbNEVRAs(st.Checksum), want) {
			t.Errorf("the rebase did not layer %s from the new repository: %v", want, n.rpmdbNEVRAs(st.Checksum))
		}
	}
	raw, _ := json.Marshal(n.rawStatus()[0]["layered-commit-meta"])
	if !strings.Contains(string(raw), `"id":"coreos-extensions"`) {
		t.Errorf("layered-commit-meta %s names no rpm-md repo", raw)
	}
}

func (n *testNode) rpmdbNEVRAs(csum string) []string {
	n.t.Helper()
	rp, err := openRepo(layout{sysroot: n.Sysroot}.repoDir())
	if err != nil {
		n.t.Fatal(err)
	}
	pkgs, err := rp.commitPackages(csum)
	if err != nil {
		n.t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		out = append(out, p.String())
	}
	return out
}

func TestNEVRAAndVersionOrder(t *testing.T) {
	for _, s := range []string{"kernel-rt-core-6.0.2-tandem.rt.x86_64", "NetworkManager-libreswan-1:1.2.14-1.el9.x86_64", "a-b-1-2.noarch"} {
		p, err := ParseNEVRA(s)
		if err != nil || p.String() != s {
			t.Errorf("ParseNEVRA(%q) = %+v %v", s, p, err)
		}
	}
	if p, _ := ParseNEVRA("NetworkManager-libreswan-1:1.2.14-1.el9.x86_64"); p.Name != "NetworkManager-libreswan" || p.Epoch != 1 || p.Version != "1.2.14" {
		t.Errorf("%+v", p)
	}
	for _, bad := range []string{"kernel", "kernel-1.x86_64", "-1-2.x"} {
		if _, err := ParseNEVRA(bad); err == nil {
			t.Errorf("ParseNEVRA(%q) succeeded", bad)
		}
	}
	// rpmvercmp cases from rpm's tests (tests/rpmvercmp.at).
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.0", "1.0", 0}, {"1.0", "2.0", -1}, {"2.0.1", "2.0", 1}, {"5.5p1", "5.5p10", -1}, {"10xyz", "10.1xyz", -1},
		{"xyz10", "xyz10.1", -1}, {"1.0~rc1", "1.0", -1}, {"1.0a", "1.0", 1}, {"10", "9", 1}, {"1.010", "1.9", 1}} {
		if got := rpmvercmp(c.a, c.b); got != c.want {
			t.Errorf("rpmvercmp(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if osimage.RPMDBPath != strings.TrimPrefix(RPMDBPath, "/") {
		t.Errorf("the synthesizer writes %s, the double reads %s", osimage.RPMDBPath, RPMDBPath)
	}
}
