package world

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/test/framework"
)

// managedProcess is a long-running child (a controller) that dies with us.
// Like a Deployment's pod, it is started again when it exits on its own
// (after a crash, or kill -9), after a short backoff.
type managedProcess struct {
	name    string
	bin     string
	args    []string
	env     []string
	logPath string

	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{} // closed when the current run exits
	stopped  bool
	restarts int
}

// restartBackoff is how long a crashed controller stays down before it is
// started again (kubelet's first CrashLoopBackOff step is 10 s; a
// Deployment's replacement pod takes a few seconds).
const restartBackoff = 2 * time.Second

func startProcess(name, logPath string, env []string, bin string, args ...string) (*managedProcess, error) {
	p := &managedProcess{name: name, bin: bin, args: args, env: env, logPath: logPath}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p, nil
}

// run starts the process once and supervises it.
func (p *managedProcess) run() error {
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("log of %s: %w", p.name, err)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), p.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	framework.Track(cmd.Process.Pid)
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		_ = log.Close()
		framework.Untrack(cmd.Process.Pid)
		close(done)
		p.mu.Lock()
		stopped := p.stopped
		p.mu.Unlock()
		if stopped {
			return
		}
		klog.InfoS("controller exited; starting it again, as its Deployment would", "name", p.name, "err", err, "backoff", restartBackoff)
		time.Sleep(restartBackoff)
		p.mu.Lock()
		if p.stopped {
			p.mu.Unlock()
			return
		}
		p.restarts++
		p.mu.Unlock()
		if err := p.run(); err != nil {
			klog.ErrorS(err, "restarting controller", "name", p.name)
		}
	}()
	return nil
}

// kill9 kills the running process with SIGKILL; the supervisor starts it
// again. It returns once the killed run has exited.
func (p *managedProcess) kill9() error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s is not running", p.name)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit 30 s after SIGKILL", p.name, cmd.Process.Pid)
	}
}

// pid is the running process's pid (0 if none).
func (p *managedProcess) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// stop ends supervision and the process: SIGTERM, then SIGKILL after grace.
func (p *managedProcess) stop(grace time.Duration) {
	p.mu.Lock()
	p.stopped = true
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			klog.ErrorS(nil, "controller did not exit after SIGKILL", "name", p.name, "pid", cmd.Process.Pid)
		}
	}
}

func (p *managedProcess) exited() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		return true
	default:
		return false
	}
}
