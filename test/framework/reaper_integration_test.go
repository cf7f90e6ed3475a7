//go:build integration

package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envReaperHelper makes TestReaperHelper start a control plane and wait to
// be killed; its value is the file to write the started pids to.
const envReaperHelper = "TANDEM_TEST_REAPER_HELPER"

// TestReaperKillsWhatAKilledTestStarted runs a test binary (this one, in
// helper mode) that starts a kube-apiserver with its etcd (envtest: no
// Pdeathsig) and kwok, then kills it with SIGKILL: everything it started
// must be gone soon after.
func TestReaperKillsWhatAKilledTestStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReaperHelper$", "-test.v")
	cmd.Env = append(os.Environ(), envReaperHelper+"="+pidFile)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	helperDone := make(chan struct{})
	go func() { _ = cmd.Wait(); close(helperDone) }()
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()

	var pids []int
	deadline := time.Now().Add(3 * time.Minute)
	for len(pids) == 0 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			for _, f := range strings.Fields(string(b)) {
				p, _ := strconv.Atoi(f)
				pids = append(pids, p)
			}
		}
		select {
		case <-helperDone:
			t.Fatalf("the helper exited before starting its processes:\n%s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the helper wrote no pids in 3 minutes; its output:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("helper %d started %v", cmd.Process.Pid, pids)
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil { // the test binary only, not its group
		t.Fatal(err)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		var alive []string
		for _, p := range pids {
			if st, ok := statFields(p); ok && st[0] != "Z" {
				alive = append(alive, fmt.Sprintf("%d(%s)", p, cmdline(p)))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after kill -9 of the test process, its processes still run: %v", alive)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReaperHelper is TestReaperKillsWhatAKilledTestStarted's victim.
func TestReaperHelper(t *testing.T) {
	pidFile := os.Getenv(envReaperHelper)
	if pidFile == "" {
		t.Skip("helper of TestReaperKillsWhatAKilledTestStarted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := StartControlPlane(ctx, ControlPlaneOptions{Name: "victim", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartKwok(ctx, cp); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range descendants(os.Getpid()) {
		if cmdline(p) != "" && !strings.Contains(cmdline(p), os.Args[0]) { // not the reaper
			fmt.Fprintf(&b, "%d ", p)
		}
	}
	b.WriteString("\n")
	if err := os.WriteFile(pidFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done() // killed long before
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
}

// envMountHelper makes TestReaperMountHelper mount a pagecachefs at the
// directory it names and wait to be killed.
const envMountHelper = "TANDEM_TEST_REAPER_MOUNT_HELPER"

// TestReaperUnmountsWhatAKilledTestMounted: a test binary that mounted a
// page-cache file system (SimNodeOptions.PageCache) and is killed with
// SIGKILL leaves no mount behind: its FUSE server died with it, and the
// reaper unmounts the dead mount (which would otherwise answer ENOTCONN to
// everyone, and make the temp dir unremovable).
func TestReaperUnmountsWhatAKilledTestMounted(t *testing.T) {
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReaperMountHelper$", "-test.v")
	cmd.Env = append(os.Environ(), envMountHelper+"="+mnt)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	waitMounted(t, mnt, true, out)
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil { // the test binary only
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitMounted(t, mnt, false, out)
}

// waitMounted waits (20 s at most) until mnt is (or is no longer) a mount point.
func waitMounted(t *testing.T, mnt string, want bool, out fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), " "+mnt+" ") == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s mounted=%v after 20 s, want %v; helper output:\n%s", mnt, !want, want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReaperMountHelper is TestReaperUnmountsWhatAKilledTestMounted's victim.
func TestReaperMountHelper(t *testing.T) {
	mnt := os.Getenv(envMountHelper)
	if mnt == "" {
		t.Skip("helper of TestReaperUnmountsWhatAKilledTestMounted")
	}
	if _, err := mountPageCache(mnt); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Minute) // killed long before
}
