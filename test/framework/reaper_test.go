package framework

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestReapSetSparesTheReaper: the reaper finds itself among its parent's
// descendants; reaping must kill what it tracks and never the reaper (here
// the test process plays the reaper: were it tracked, reap would kill it).
func TestReapSetSparesTheReaper(t *testing.T) {
	child := exec.Command("sleep", "60")
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	t.Cleanup(func() { _ = child.Process.Kill() })

	s := newReapSet(os.Getpid())
	s.add(os.Getpid())
	s.add(child.Process.Pid)
	if _, ok := s.started[os.Getpid()]; ok {
		t.Fatalf("the reaper tracks itself: %v", s.started)
	}
	if _, ok := s.started[child.Process.Pid]; !ok {
		t.Fatalf("the child %d is not tracked: %v", child.Process.Pid, s.started)
	}
	s.reap()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("the tracked child %d still runs a minute after reap", child.Process.Pid)
	}
}
