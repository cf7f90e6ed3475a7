package mcd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// What the MCO's PersistNetworkInterfaces does per host (pkg/daemon/
// daemon.go, release-4.21), and the rpm-ostree options for nmstatectl's
// kernel arguments (rpm-ostree's kargs options: --append, --delete-if-present).
func TestNicModeAndKargs(t *testing.T) {
	for major, want := range map[string]nicMode{"8": nicPersist, "9": nicPersist, "10": nicCleanup, "": nicNothing} {
		if got := nicModeFor(major); got != want {
			t.Errorf("nicModeFor(%q) = %v, want %v", major, got, want)
		}
	}
	out := "ifname=ens3:52:54:00:12:34:56 ifname=ens4:52:54:00:12:34:57\n"
	if got, want := kargsEdit(nicPersist, out), []string{"--append=ifname=ens3:52:54:00:12:34:56", "--append=ifname=ens4:52:54:00:12:34:57"}; !reflect.DeepEqual(got, want) {
		t.Errorf("persist: %q, want %q", got, want)
	}
	if got, want := kargsEdit(nicCleanup, out), []string{"--delete-if-present=ifname=ens3:52:54:00:12:34:56", "--delete-if-present=ifname=ens4:52:54:00:12:34:57"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cleanup: %q, want %q", got, want)
	}
	if got := kargsEdit(nicPersist, "\n"); len(got) != 0 {
		t.Errorf("no kernel arguments: %q", got)
	}
}

// rpmOstreeDouble is a static program for the host root: it records the
// arguments it was run with inside the chroot, in /rpm-ostree.log.
const rpmOstreeDouble = `package main

import (
	"os"
	"strings"
)

func main() {
	f, err := os.OpenFile("/rpm-ostree.log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		os.Exit(1)
	}
	defer f.Close()
	f.WriteString(strings.Join(os.Args[1:], " ") + "\n")
}
`

// The first line of the MCO's machine-config-daemon-firstboot.service
// (`firstboot-complete-machineconfig --persist-nics`, root mounted at
// --root-mount) on an RHCOS 9.6 host: nmstatectl pins the NICs on the
// host's root and rpm-ostree, in that root, appends its kernel arguments.
// Real chroot and processes; nmstatectl and rpm-ostree are doubles.
func TestPersistNicsOnRHCOS9(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for chroot")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	osRelease := "ID=\"rhcos\"\nID_LIKE=\"rhel fedora\"\nVERSION_ID=\"4.21\"\nRHEL_VERSION=\"9.6\"\n"
	if err := os.WriteFile(filepath.Join(root, "etc/os-release"), []byte(osRelease), 0o644); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(rpmOstreeDouble), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(root, "usr/bin/rpm-ostree"), filepath.Join(src, "main.go"))
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the rpm-ostree double: %v\n%s", err, out)
	}
	nm := filepath.Join(t.TempDir(), "nmstatectl")
	build = exec.Command("go", "build", "-o", nm, "github.com/tandem-mco/tandem/test/nmstatedouble/cmd/nmstatectl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the nmstatectl double: %v\n%s", err, out)
	}
	nmLog := filepath.Join(t.TempDir(), "nmstatectl.log")
	cmdline := filepath.Join(t.TempDir(), "cmdline")
	if err := os.WriteFile(cmdline, []byte("rw rd.neednet=1 ip=dhcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NMSTATE_DOUBLE_LOG", nmLog)
	t.Setenv("NMSTATE_DOUBLE_CMDLINE", cmdline)
	t.Setenv("NMSTATE_DOUBLE_NICS", "ens3=52:54:00:12:34:56,ens4=52:54:00:12:34:57")

	cmd := New()
	cmd.SetArgs([]string{"firstboot-complete-machineconfig", "--persist-nics", "--root-mount", root, "--nmstatectl", nm})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("firstboot-complete-machineconfig --persist-nics: %v", err)
	}
	got, err := os.ReadFile(nmLog)
	if err != nil {
		t.Fatalf("nmstatectl did not run: %v", err)
	}
	if !strings.HasPrefix(string(got), "persist-nic-names --root "+root+" --kargs-out ") || strings.Contains(string(got), "--cleanup") {
		t.Errorf("nmstatectl ran with %q", got)
	}
	kargs, err := os.ReadFile(filepath.Join(root, "rpm-ostree.log"))
	if err != nil {
		t.Fatalf("rpm-ostree did not run in the host's root: %v", err)
	}
	if want := "kargs --append=ifname=ens3:52:54:00:12:34:56 --append=ifname=ens4:52:54:00:12:34:57\n"; string(kargs) != want {
		t.Errorf("rpm-ostree ran with %q, want %q", kargs, want)
	}

	link, err := os.ReadFile(filepath.Join(root, "etc/systemd/network/98-nmstate-ens4.link"))
	if err != nil || !strings.Contains(string(link), "MACAddress=52:54:00:12:34:57") || !strings.Contains(string(link), "Name=ens4") {
		t.Errorf("ens4's link file: %q, %v", link, err)
	}

	// A persist-nic-names failure fails the unit with nmstate's message,
	// and rpm-ostree is not run.
	if err := os.Remove(filepath.Join(root, "rpm-ostree.log")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NMSTATE_DOUBLE_FAIL", "Failed to retrieve network state: no netlink")
	cmd = New()
	cmd.SetArgs([]string{"firstboot-complete-machineconfig", "--persist-nics", "--root-mount", root, "--nmstatectl", nm})
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "no netlink") {
		t.Errorf("a failing nmstatectl: %v, want its message", err)
	}
	if _, err := os.Stat(filepath.Join(root, "rpm-ostree.log")); err == nil {
		t.Error("rpm-ostree ran after nmstatectl failed")
	}
	t.Setenv("NMSTATE_DOUBLE_FAIL", "")

	// Without nmstatectl, the host is not left to boot unpinned: a clear error.
	cmd = New()
	cmd.SetArgs([]string{"firstboot-complete-machineconfig", "--persist-nics", "--root-mount", root, "--nmstatectl", filepath.Join(root, "missing")})
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "which this image lacks") {
		t.Errorf("without nmstatectl: %v", err)
	}
}
