package iso

import (
	"context"
	"os"

	"github.com/opencontainers/cgroups"
	"slices"
	"strconv"
	"testing"
)

// TestApplyToProcessIOPrio: the I/O class reaches every thread of a running
// process that does not lead its own group (rpm-ostree's transaction
// daemon), threads made afterwards included, and restore puts the old
// classes back.
func TestApplyToProcessIOPrio(t *testing.T) {
	p, err := ParsePolicy(PolicyIdle, Options{Sysroot: fakeSysroot(t), StateDir: testStateDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := p.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	c := startChild(t, "threads", nil, nil)
	c.expect(t, "ready")
	pid := c.cmd.Process.Pid
	restore, err := s.ApplyToProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	c.say(t, "more")
	c.expect(t, "more")
	classes := func() map[IOClass]int {
		tids, err := Threads(pid)
		if err != nil {
			t.Fatal(err)
		}
		m := map[IOClass]int{}
		for _, tid := range tids {
			if got, err := GetThreadIOPrio(tid); err == nil {
				m[got.Class]++
			}
		}
		return m
	}
	if got := classes(); len(got) != 1 || got[IOClassIdle] < 9 {
		t.Fatalf("thread classes %v, want every thread (at least 9) idle", got)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if got := classes(); got[IOClassIdle] != 0 {
		t.Errorf("thread classes after restore %v, want none idle", got)
	}
}

// TestApplyToProcessCgroup: the process moves into the staging cgroup and
// back out to where it was.
func TestApplyToProcessCgroup(t *testing.T) {
	requireBlkio(t)
	name := "iso-proc-test-" + strconv.Itoa(os.Getpid())
	p, err := ParsePolicy(PolicyCgroupThrottle, Options{Sysroot: fakeSysroot(t), StateDir: testStateDir(t), CgroupParent: "tandem-test", CgroupName: name, WriteLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := p.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	c := startChild(t, "threads", nil, nil)
	c.expect(t, "ready")
	pid := c.cmd.Process.Pid
	sub := "blkio"
	if s.Cgroup().V2() {
		sub = ""
	}
	home := ownCgroup(t, pid, sub)
	restore, err := s.ApplyToProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if procs, _ := s.Cgroup().Procs(); !slices.Contains(procs, pid) {
		t.Fatalf("process %d not in %s (%v)", pid, s.Cgroup().Path(), procs)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if procs, _ := s.Cgroup().Procs(); slices.Contains(procs, pid) {
		t.Errorf("process %d still in %s after restore", pid, s.Cgroup().Path())
	}
	if got := ownCgroup(t, pid, sub); got != home {
		t.Errorf("process in %s after restore, was in %s", got, home)
	}
}

// A stage that gave a running daemon the idle class and its cgroup, killed
// with SIGKILL: the daemon stays idle and in the cgroup until the next
// start's RestoreInterrupted puts both back from the record.
func TestCrashRestoresProcessKnobs(t *testing.T) {
	requireBlkio(t)
	sysroot := fakeSysroot(t)
	state := testStateDir(t)
	target := startChild(t, "threads", nil, nil)
	target.expect(t, "ready")
	pid := target.cmd.Process.Pid
	sub := "blkio"
	if cgroups.IsCgroup2UnifiedMode() {
		sub = ""
	}
	home := ownCgroup(t, pid, sub)
	before, err := GetThreadIOPrio(pid)
	if err != nil {
		t.Fatal(err)
	}
	c := startStageChild(t, PolicyIdle, stageChildOptions{Sysroot: sysroot, StateDir: state, TargetPID: pid})
	if got, _ := GetThreadIOPrio(pid); got.Class != IOClassIdle {
		t.Fatalf("daemon's class %v during the stage, want idle", got)
	}
	kill9(t, c)
	if got, _ := GetThreadIOPrio(pid); got.Class != IOClassIdle {
		t.Fatalf("daemon's class %v after the crash, want still idle", got)
	}
	if _, err := RestoreInterrupted(context.Background(), Options{StateDir: state}); err != nil {
		t.Fatal(err)
	}
	tids, _ := Threads(pid)
	for _, tid := range tids {
		if got, _ := GetThreadIOPrio(tid); got != before {
			t.Errorf("thread %d class %v after the restore, want %v", tid, got, before)
		}
	}
	if got := ownCgroup(t, pid, sub); got != home {
		t.Errorf("daemon in cgroup %s after the restore, was in %s", got, home)
	}

	// The same with the cgroup: cgroup-throttle on the daemon.
	c = startStageChild(t, PolicyCgroupThrottle, stageChildOptions{Sysroot: sysroot, StateDir: state, TargetPID: pid,
		CgroupName: "iso-crash-" + strconv.Itoa(os.Getpid())})
	if got := ownCgroup(t, pid, sub); got == home {
		t.Fatalf("daemon not moved into the staging cgroup (still %s)", got)
	}
	kill9(t, c)
	if _, err := RestoreInterrupted(context.Background(), Options{StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if got := ownCgroup(t, pid, sub); got != home {
		t.Errorf("daemon in cgroup %s after the restore, was in %s", got, home)
	}
}
