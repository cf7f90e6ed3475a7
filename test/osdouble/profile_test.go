package osdouble

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// upstream is what each rpm-ostree release does, written down from its
// source (test/osdouble/README.md cites file and tag), independently of the
// Profile table the double runs on.
var upstream = []struct {
	version string
	// lockInStatus: status --json shows finalization-locked for a
	// `--lock-finalization` stage (only the legacy lock file makes it).
	lockInStatus bool
	// legacyLockFile: the lock is /run/ostree/staged-deployment-locked;
	// otherwise it is the "locked" key of /run/ostree/staged-deployment.
	legacyLockFile bool
	// finalizeByDigest: a container deployment is finalized by its digest.
	finalizeByDigest bool
	// deployDigest: `deploy <digest>` on a container origin works.
	deployDigest bool
	// modules: status carries the module lists.
	modules bool
	// restageKeepsLock: `kargs --lock-finalization` over a locked staged
	// deployment leaves it locked.
	restageKeepsLock bool
}{
	{version: "2023.12", lockInStatus: true, legacyLockFile: true, modules: true},
	{version: "2024.6", modules: true, restageKeepsLock: true},
	{version: "2025.7", finalizeByDigest: true, deployDigest: true, restageKeepsLock: true},
	{version: "2026.2", finalizeByDigest: true, deployDigest: true, restageKeepsLock: true},
}

func TestEveryProfileIsPinned(t *testing.T) {
	var got []string
	for _, u := range upstream {
		got = append(got, u.version)
	}
	if !slices.Equal(got, Profiles()) {
		t.Fatalf("profiles %v, upstream facts for %v", Profiles(), got)
	}
	if Profiles()[len(Profiles())-1] != DefaultProfile {
		t.Errorf("default profile %s is not the newest", DefaultProfile)
	}
}

// containerFields are the keys rpm-ostree emits for a container deployment
// (zincati tests/fixtures/rpm-ostree-status.json at a142c986, FCOS 43 with
// rpm-ostree 2025.11), plus the module lists before 2024.7 and the staged
// deployment's own keys.
var containerFields = []string{
	"base-commit-meta", "base-local-replacements", "base-remote-replacements", "base-removals", "booted",
	"checksum", "container-image-reference", "container-image-reference-digest", "id", "osname", "packages",
	"pinned", "regenerate-initramfs", "requested-base-local-replacements", "requested-base-removals",
	"requested-local-fileoverride-packages", "requested-local-packages", "requested-packages", "serial",
	"staged", "timestamp", "unlocked", "version",
}

var moduleFields = []string{"modules", "requested-modules", "requested-modules-enabled"}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestProfiles(t *testing.T) {
	for _, u := range upstream {
		t.Run(u.version, func(t *testing.T) {
			n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: u.version})
			var v struct {
				Root struct {
					Version  string   `yaml:"Version"`
					Features []string `yaml:"Features"`
				} `yaml:"rpm-ostree"`
			}
			if err := yaml.Unmarshal([]byte(n.mustRun("--version").stdout), &v); err != nil || v.Root.Version != u.version || !slices.Contains(v.Root.Features, "container") {
				t.Errorf("--version: %+v %v", v, err)
			}

			n.mustRun("rebase", "--lock-finalization", refspec(img2))
			staged, locked, err := n.Staged()
			if err != nil || staged == nil || !locked {
				t.Fatalf("staged %v locked %v %v", staged, locked, err)
			}
			raw := n.rawStatus()
			if _, ok := raw[0]["finalization-locked"]; ok != u.lockInStatus {
				t.Errorf("finalization-locked in status: %v, want %v", ok, u.lockInStatus)
			}
			want := slices.Clone(containerFields)
			if u.modules {
				want = append(want, moduleFields...)
			}
			if u.lockInStatus {
				want = append(want, "finalization-locked")
			}
			sort.Strings(want)
			for i, d := range raw {
				w := want
				if i > 0 { // booted: never finalization-locked
					w = slices.DeleteFunc(slices.Clone(want), func(k string) bool { return k == "finalization-locked" })
				}
				if got := keys(d); !slices.Equal(got, w) {
					t.Errorf("deployment %d fields\n%v\nwant\n%v", i, got, w)
				}
			}
			legacy, _ := exists(filepath.Join(n.Run, "ostree", "staged-deployment-locked"))
			variant, _ := os.ReadFile(filepath.Join(n.Run, "ostree", "staged-deployment"))
			hasKey := bytes.Contains(variant, []byte("locked\x00"))
			if legacy != u.legacyLockFile || hasKey == u.legacyLockFile {
				t.Errorf("legacy lock file %v, locked key %v; want the legacy file: %v", legacy, hasKey, u.legacyLockFile)
			}

			// kargs re-stages over the locked deployment.
			n.mustRun("kargs", "--lock-finalization", "--append=tandem.x=1")
			if _, locked, _ := n.Staged(); locked != u.restageKeepsLock {
				t.Errorf("locked after a locked re-stage: %v, want %v", locked, u.restageKeepsLock)
			}
			if !u.restageKeepsLock {
				n.mustRun("cleanup", "-p")
				n.mustRun("rebase", "--lock-finalization", refspec(img2))
			}

			staged, _, _ = n.Staged()
			good, wrong, found := staged.Checksum, staged.ImageDigest, staged.Checksum
			if u.finalizeByDigest {
				good, wrong, found = staged.ImageDigest, staged.Checksum, staged.ImageDigest
			}
			if r := n.rpmOstree("finalize-deployment", wrong); r.code != 1 ||
				r.stderr != "error: Expected staged base checksum "+wrong+", but found "+found+"\n" {
				t.Errorf("finalize with the wrong kind of argument: %+v", r)
			}
			if r := n.rpmOstree("finalize-deployment", good); r.code != 0 {
				t.Fatalf("finalize: %+v", r)
			}
			if err := n.Reboot(); err != nil {
				t.Fatal(err)
			}
			if b := n.booted(); b.ImageDigest != img2.Digest {
				t.Errorf("booted %s after finalize and reboot, want img2", b.ImageDigest)
			}

			r := n.rpmOstree("deploy", "--lock-finalization", img1.Digest)
			if u.deployDigest != (r.code == 0) {
				t.Errorf("deploy of a digest: %+v, want success %v", r, u.deployDigest)
			}
			if !u.deployDigest && !strings.Contains(r.stderr, "Cannot look up version while tracking a container image reference") {
				t.Errorf("deploy of a digest: %q", r.stderr)
			}
		})
	}
}

// TestLockedStageIsDiscardedOnEveryProfile: a locked stage never boots
// without finalize-deployment, whatever records the lock.
func TestLockedStageIsDiscardedOnEveryProfile(t *testing.T) {
	for _, p := range Profiles() {
		t.Run(p, func(t *testing.T) {
			n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: p})
			n.mustRun("rebase", "--lock-finalization", refspec(img2))
			if err := n.Reboot(); err != nil {
				t.Fatal(err)
			}
			if b := n.booted(); b.ImageDigest != img1.Digest {
				t.Errorf("a locked stage booted: %s", b.ImageDigest)
			}
		})
	}
}

// TestNoImageDigest: when rpm-ostree cannot query the image (issue #4185),
// status lacks the digest and version, and a >= 2025.7 finalize expects the
// base checksum.
func TestNoImageDigest(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	if err := n.SetNoImageDigest(true); err != nil {
		t.Fatal(err)
	}
	for i, d := range n.rawStatus() {
		for _, k := range []string{"container-image-reference-digest", "version"} {
			if _, ok := d[k]; ok {
				t.Errorf("deployment %d has %s", i, k)
			}
		}
	}
	staged, _, _ := n.Staged()
	if r := n.rpmOstree("finalize-deployment", staged.ImageDigest); r.code != 1 || !strings.Contains(r.stderr, "but found "+staged.Checksum) {
		t.Errorf("finalize by digest: %+v", r)
	}
	n.mustRun("finalize-deployment", staged.Checksum)
}

func TestStagedDeploymentIsGLibsSerialisation(t *testing.T) {
	// The content hack/fixtures/gen-staged-deployment.py gave GLib.
	csum := "6d2d8e2b6a4a5d1c0f7b3e9a8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d"
	booted := "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"
	bootcsum := "a3c1f0e9d8b7a6958473625140f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d"
	dep := func(c string) gvDict {
		return gvDict{{"name", gvString(c + ".0")}, {"osname", gvString("rhcos")}, {"bootcsum", gvString(bootcsum)}}
	}
	kargs := gvStrings{"rw", "root=LABEL=root", "console=ttyS0,115200n8"}
	for name, v := range map[string]gvDict{
		"staged-deployment-locked":   {{"target", dep(csum)}, {"locked", gvBool(true)}, {"merge-deployment", dep(booted)}, {"kargs", kargs}},
		"staged-deployment-unlocked": {{"target", dep(csum)}, {"merge-deployment", dep(booted)}, {"kargs", kargs}},
	} {
		want, err := os.ReadFile(filepath.Join("..", "fixtures", "ostree", name+".gvariant"))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.serialise(); !bytes.Equal(got, want) {
			t.Errorf("%s: the double writes\n%x\nGLib wrote\n%x", name, got, want)
		}
	}
	// And what the double writes for a real stage has the same shape.
	rec := &stagedRecord{Deployment: Deployment{OSName: "rhcos", Checksum: csum, Kargs: []string(kargs)}, Locked: true,
		Merge: Deployment{OSName: "rhcos", Checksum: booted}}
	if got := stagedVariant(rec, true).serialise(); !bytes.Contains(got, []byte("locked\x00\x00\x01\x00b")) {
		t.Errorf("staged variant lacks locked=true: %x", got)
	}
}
