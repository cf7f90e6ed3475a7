package osdouble

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Harness helpers that run a node's transaction daemon: in this process
// (unit tests driving Main) or as a child process (`rpm-ostree
// start-daemon`, for tests of real processes). On a machine with systemd
// the daemon is rpm-ostreed.service instead.

// daemonReadyTimeout bounds the wait for a new daemon to accept clients.
const daemonReadyTimeout = 30 * time.Second

// LocalDaemon is a transaction daemon running in this process.
type LocalDaemon struct {
	cancel context.CancelFunc
	done   chan error
}

// StartLocalDaemon runs the node's transaction daemon in this process until
// Stop (or ctx's end).
func (n Node) StartLocalDaemon(ctx context.Context) (*LocalDaemon, error) {
	env := map[string]string{}
	for _, kv := range n.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	ctx, cancel := context.WithCancel(ctx)
	d, err := ListenDaemon(ctx, func(k string) string { return env[k] })
	if err != nil {
		cancel()
		return nil, err
	}
	ld := &LocalDaemon{cancel: cancel, done: make(chan error, 1)}
	go func() { ld.done <- d.Serve(ctx) }()
	return ld, nil
}

// Stop cancels the running transaction, if any, and stops the daemon.
func (d *LocalDaemon) Stop() error {
	d.cancel()
	return <-d.done
}

// DaemonProcess is `rpm-ostree start-daemon` running as a child process. It
// is killed when the thread that started it exits (Pdeathsig), so a test
// that dies leaves no daemon behind.
type DaemonProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// StartDaemonProcess starts the node's transaction daemon from bin (the
// double, see BuildCLI), logging to logPath, and waits until it accepts
// clients.
func (n Node) StartDaemonProcess(ctx context.Context, bin, logPath string) (*DaemonProcess, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	_ = os.Remove(DaemonPIDFile(n.Run)) // a dead daemon's
	cmd := exec.Command(bin, "start-daemon")
	cmd.Env = append(os.Environ(), n.Env()...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s start-daemon: %w", bin, err)
	}
	p := &DaemonProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, n.Run); err != nil {
		_ = p.Kill()
		b, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("rpm-ostree start-daemon for %s: %w\n%s", n.Run, err, b)
	}
	return p, nil
}

// waitReady waits until the daemon wrote its pid file and accepts clients.
func (p *DaemonProcess) waitReady(ctx context.Context, run string) error {
	ctx, cancel := context.WithTimeout(ctx, daemonReadyTimeout)
	defer cancel()
	var last error
	for {
		if pid, err := ReadDaemonPID(run); err == nil && pid == p.cmd.Process.Pid {
			c, err := net.Dial("unix", DaemonSocket(run))
			if err == nil {
				c.Close()
				return nil
			}
			last = err
		} else {
			last = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %v", daemonReadyTimeout, last)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Pid is the daemon's process id.
func (p *DaemonProcess) Pid() int { return p.cmd.Process.Pid }

// Kill kills the daemon with SIGKILL (the machine goes down) and waits.
func (p *DaemonProcess) Kill() error {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	return nil
}

// Stop asks the daemon to exit (SIGTERM: it cancels its transaction), and
// kills it if it has not after grace.
func (p *DaemonProcess) Stop(grace time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		return errors.Join(fmt.Errorf("rpm-ostree start-daemon (pid %d) ignored SIGTERM for %s", p.Pid(), grace), p.Kill())
	}
	var exitErr *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exitErr) {
		return p.err
	}
	return nil
}

// Exited tells whether the daemon has exited.
func (p *DaemonProcess) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
