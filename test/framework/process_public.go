package framework

import (
	"fmt"
	"syscall"
	"time"
)

// Process is a child process of a test: its output in a log file, its
// group killed with the test binary (Pdeathsig) and by the reaper after a
// kill -9 of the test.
type Process struct{ p *process }

// StartProcess starts bin with args; env is added to the test's own.
func StartProcess(name, bin, logPath string, env []string, args ...string) (*Process, error) {
	p := newProcess(name, bin, logPath, args...)
	p.env = env
	if err := p.start(); err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// Stop sends SIGTERM to the group, SIGKILL after grace, and waits.
func (p *Process) Stop(grace time.Duration) error { return p.p.stop(grace) }

// Kill sends SIGKILL to the group and waits.
func (p *Process) Kill() error { return p.p.signal(syscall.SIGKILL, 0) }

// Exited tells whether the process ended on its own, and how.
func (p *Process) Exited() (bool, error) { return p.p.exited() }

// Alive returns an error naming the process, its exit and its log's tail
// when it has exited.
func (p *Process) Alive() error {
	if dead, err := p.p.exited(); dead {
		return fmt.Errorf("%s exited: %v; log %s:\n%s", p.p.name, err, p.p.logPath, p.p.logTail())
	}
	return nil
}

// LogPath is where its output goes.
func (p *Process) LogPath() string { return p.p.logPath }

// LogTail is the end of its log.
func (p *Process) LogTail() string { return p.p.logTail() }
