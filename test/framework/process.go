package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// process is one child the framework started. Its output goes to a log file
// (named in errors so a failing test points at it) and it dies with the
// test binary (Pdeathsig), so a crashed test leaves no strays.
type process struct {
	name    string
	path    string
	args    []string
	env     []string // extra environment, appended to the framework's own
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func newProcess(name, path, logPath string, args ...string) *process {
	return &process{name: name, path: path, args: args, logPath: logPath}
}

func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s already running", p.name)
	}
	if err := os.MkdirAll(filepath.Dir(p.logPath), 0o755); err != nil {
		return fmt.Errorf("creating log dir for %s: %w", p.name, err)
	}
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening log of %s: %w", p.name, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("starting %s (%s): %w", p.name, p.path, err)
	}
	Track(cmd.Process.Pid)
	klog.V(2).InfoS("started process", "name", p.name, "pid", cmd.Process.Pid, "log", p.logPath)
	p.cmd, p.done, p.err = cmd, make(chan struct{}), nil
	go func(cmd *exec.Cmd, done chan struct{}) {
		err := cmd.Wait()
		_ = logFile.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}(cmd, p.done)
	return nil
}

// stop sends SIGTERM to the process group, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) error { return p.signal(syscall.SIGTERM, grace) }

// signal sends sig to the process group, then SIGKILL after grace, and
// waits for the process to end.
func (p *process) signal(sig syscall.Signal, grace time.Duration) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
	var err error
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(killWait):
			err = fmt.Errorf("%s (pid %d) did not exit %s after SIGKILL (state %s)", p.name, cmd.Process.Pid, killWait, procState(cmd.Process.Pid))
		}
	}
	Untrack(cmd.Process.Pid)
	p.mu.Lock()
	p.cmd = nil
	p.mu.Unlock()
	return err
}

// killWait bounds the wait for a process to go after SIGKILL (one stuck in
// uninterruptible sleep never does).
const killWait = 30 * time.Second

// procState is a process's state letter and name from /proc, for errors.
func procState(pid int) string {
	f, ok := statFields(pid)
	if !ok || len(f) == 0 {
		return "gone"
	}
	return f[0]
}

// exited reports whether the process died on its own, with its error.
func (p *process) exited() (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		return false, nil
	}
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// logTail returns the last bytes of the process log, for error messages.
func (p *process) logTail() string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	const n = 2048
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// freePorts reserves n distinct loopback ports. The ports are released before
// use, so a collision is possible but rare; callers retry starts on failure.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("reserving a loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// poll calls f every interval until it returns true, an error, or ctx ends.
func poll(ctx context.Context, interval time.Duration, f func() (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), errors.New("condition not met"))
		case <-t.C:
		}
	}
}
