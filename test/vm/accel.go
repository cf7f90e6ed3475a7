package vm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Accelerators.
const (
	AccelKVM = "kvm"
	AccelTCG = "tcg"
)

// probeMarker is what the probe's kernel prints once user space ran: the
// probe's init (rdinit=/sbin/modprobe, which prints its usage and exits 1)
// ended, so the kernel booted, executed a dynamically linked program and
// saw it exit. A kernel that stops early on a broken nested KVM (the Debian
// kernel on kvm_pvm stops on cmpxchg16b, xrstor or int3) never gets there.
const probeMarker = "Attempted to kill init"

// probeBound is how long a probe boot may take: a working KVM needs a few
// seconds; a broken one hangs or panics early.
const probeBound = 60 * time.Second

// DetectAccel tells which accelerator boots the image: KVM when /dev/kvm
// is usable and a probe boot of the image's own kernel under KVM reaches
// user space, TCG otherwise. $TANDEM_VM_ACCEL (kvm or tcg) skips the probe.
// The probe only opens /dev/kvm through QEMU, as any VM would: no host KVM
// setting is read or changed. Its verdict is cached per host kernel, QEMU
// and image kernel; why it chose is written to log.
func DetectAccel(ctx context.Context, img *Image, log io.Writer) (string, error) {
	switch a := os.Getenv("TANDEM_VM_ACCEL"); a {
	case AccelKVM, AccelTCG:
		fmt.Fprintf(log, "vm-accel: %s (from TANDEM_VM_ACCEL)\n", a)
		return a, nil
	case "":
	default:
		return "", fmt.Errorf("TANDEM_VM_ACCEL=%q: want kvm or tcg", a)
	}
	if err := unix.Access("/dev/kvm", unix.R_OK|unix.W_OK); err != nil {
		fmt.Fprintf(log, "vm-accel: tcg (/dev/kvm not usable: %v)\n", err)
		return AccelTCG, nil
	}
	cacheFile, err := accelCacheFile(ctx, img)
	if err != nil {
		return "", err
	}
	if b, err := os.ReadFile(cacheFile); err == nil {
		v := strings.Fields(string(b))
		if len(v) > 0 && (v[0] == AccelKVM || v[0] == AccelTCG) {
			fmt.Fprintf(log, "vm-accel: %s (cached probe %s: %s)\n", v[0], cacheFile, strings.Join(v[1:], " "))
			return v[0], nil
		}
	}
	ok, why, err := probeKVM(ctx, img)
	if err != nil {
		return "", err
	}
	verdict := AccelTCG
	if ok {
		verdict = AccelKVM
	}
	fmt.Fprintf(log, "vm-accel: %s (probe boot under KVM: %s)\n", verdict, why)
	_ = os.WriteFile(cacheFile, []byte(verdict+" "+why+"\n"), 0o644)
	return verdict, nil
}

func accelCacheFile(ctx context.Context, img *Image) (string, error) {
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		return "", err
	}
	qv, err := exec.CommandContext(ctx, "qemu-system-x86_64", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("qemu-system-x86_64 --version (Debian package qemu-system-x86): %w", err)
	}
	cpu, _ := os.ReadFile("/proc/cpuinfo")
	first, _, _ := strings.Cut(string(cpu), "\n\n")
	root, err := CacheDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	key := keyOf(uts.Release[:], uts.Version[:], qv, []byte(first), []byte(filepath.Base(img.Dir)))
	return filepath.Join(root, "accel-"+key), nil
}

// probeKVM boots the image's kernel and initrd under KVM with the probe's
// init, bounded, and reports whether user space ran.
func probeKVM(ctx context.Context, img *Image) (bool, string, error) {
	dir, err := os.MkdirTemp("", "tandem-vm-probe-")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(dir)
	serial := filepath.Join(dir, "serial.log")
	ctx, cancel := context.WithTimeout(ctx, probeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64",
		"-accel", "kvm", "-cpu", "host", "-m", "512", "-smp", "1",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-kernel", img.Kernel, "-initrd", img.Initrd,
		"-append", "console=ttyS0 panic=-1 rdinit=/sbin/modprobe",
		"-chardev", "file,id=ser0,path="+serial, "-serial", "chardev:ser0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, runErr := cmd.CombinedOutput()
	log, _ := os.ReadFile(serial)
	if strings.Contains(string(log), probeMarker) {
		return true, "user space ran", nil
	}
	why := "no user space within " + probeBound.String()
	if runErr != nil && ctx.Err() == nil {
		why = fmt.Sprintf("qemu failed: %v %s", runErr, strings.TrimSpace(string(out)))
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if n := len(lines); n > 0 && lines[n-1] != "" {
		why += "; last console line: " + strings.TrimSpace(lines[n-1])
	}
	return false, why, nil
}
