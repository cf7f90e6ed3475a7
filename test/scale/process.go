package scale

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// child is a process the bench started (the machine-config-controllers). It
// dies with the bench, also after kill -9 of the bench (Pdeathsig), and its
// process group is killed on stop.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
	err  error
}

func startChild(name, logPath, bin string, args ...string) (*child, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log of %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{}), log: log}
	go func() { c.err = cmd.Wait(); close(c.done) }()
	return c, nil
}

func (c *child) stop() {
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
	_ = c.log.Close()
}

// exited reports whether the child died on its own, and how.
func (c *child) exited() (bool, error) {
	select {
	case <-c.done:
		return true, c.err
	default:
		return false, nil
	}
}

// usage is a process's resource use at one moment.
type usage struct {
	CPUSeconds float64 // user + system since the start
	RSSBytes   uint64
	PeakRSS    uint64 // VmHWM: the largest RSS so far
}

func usageOf(pid int) (usage, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return usage{}, fmt.Errorf("process %d: %w", pid, err)
	}
	st, err := p.Stat()
	if err != nil {
		return usage{}, fmt.Errorf("process %d: %w", pid, err)
	}
	status, err := p.NewStatus()
	if err != nil {
		return usage{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return usage{CPUSeconds: st.CPUTime(), RSSBytes: uint64(st.ResidentMemory()), PeakRSS: status.VmHWM}, nil
}

func (c *child) usage() (usage, error) { return usageOf(c.cmd.Process.Pid) }
