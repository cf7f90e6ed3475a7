package ostree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// Defaults of Options.
const (
	DefaultBinary      = "rpm-ostree"
	DefaultClientID    = "tandem-machine-config-daemon"
	DefaultCancelGrace = 30 * time.Second
	DefaultHostRun     = "/run"
	envClientID        = "RPMOSTREE_CLIENT_ID"
)

// Options configure a Client.
type Options struct {
	// Binary is the rpm-ostree program; default "rpm-ostree" (looked up in PATH).
	Binary string
	// Env is added to the process environment of every invocation.
	Env []string
	// ClientID is passed as RPMOSTREE_CLIENT_ID; default DefaultClientID.
	ClientID string
	// StartHook, if set, is called with each command before it starts (it
	// may set SysProcAttr, e.g. for I/O priority), and the function it
	// returns, if any, with the pid right after the start (e.g. to move the
	// process into a cgroup). An error from either fails the invocation; a
	// started process is then killed.
	StartHook func(cmd *exec.Cmd) (afterStart func(pid int) error, err error)
	// OnProgress, if set, receives Stage's progress as rpm-ostree reports it.
	OnProgress func(StageProgress)
	// CancelGrace bounds each step of a cancellation: the client's wait for
	// its cancelled transaction to end after SIGINT, then `rpm-ostree
	// cancel`; default DefaultCancelGrace.
	CancelGrace time.Duration
	// HostRun is the host's /run as this process sees it (where ostree
	// keeps the staged deployment); default DefaultHostRun.
	HostRun string
	// Root is the host's root as this process sees it. When set, every
	// call that pulls (rebase, deploy, upgrade) is preceded by linking
	// rpm-ostree's auth file to the cluster's pull secret (pullsecret.go).
	Root string
}

// Client runs rpm-ostree.
type Client struct {
	opts Options
	rel  *releaseCache
}

// NewClient returns a Client with o's defaults filled in.
func NewClient(o Options) *Client {
	if o.Binary == "" {
		o.Binary = DefaultBinary
	}
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.CancelGrace <= 0 {
		o.CancelGrace = DefaultCancelGrace
	}
	if o.HostRun == "" {
		o.HostRun = DefaultHostRun
	}
	return &Client{opts: o, rel: &releaseCache{}}
}

// With returns a client with other hooks that shares c's knowledge of the
// rpm-ostree release.
func (c *Client) With(hook func(cmd *exec.Cmd) (func(pid int) error, error), progress func(StageProgress)) *Client {
	o := c.opts
	o.StartHook, o.OnProgress = hook, progress
	return &Client{opts: o, rel: c.rel}
}

// mutating are the verbs that run a transaction in rpm-ostreed.
var mutating = map[string]bool{"rebase": true, "deploy": true, "finalize-deployment": true, "cleanup": true, "kargs": true,
	"install": true, "uninstall": true, "override": true}

// run invokes rpm-ostree with args and returns its stdout. onLine, if set,
// gets each stdout line as it is printed. A failure is a *CommandError;
// after ctx ends it also matches ctx.Err() with errors.Is.
func (c *Client) run(ctx context.Context, onLine func(string), args ...string) ([]byte, error) {
	logger := klog.FromContext(ctx)
	if len(args) > 0 && pulls[args[0]] {
		// /run is emptied at each boot and the secret may be new: every time.
		if err := c.linkPullSecret(ctx); err != nil {
			return nil, fmt.Errorf("rpm-ostree %s: %w", strings.Join(args, " "), err)
		}
	}
	logger.V(2).Info("Running rpm-ostree", "args", args)
	cmd := exec.CommandContext(ctx, c.opts.Binary, args...)
	cmd.Env = append(append(os.Environ(), envClientID+"="+c.opts.ClientID), c.opts.Env...)
	// SIGINT is the one signal on which rpm-ostree's client cancels its
	// transaction (and waits for it to end); SIGTERM would only kill the
	// client and leave the transaction running in rpm-ostreed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = c.opts.CancelGrace
	var stdout, stderr bytes.Buffer
	cmd.Stderr = &stderr
	var lines *io.PipeWriter
	var linesDone chan struct{}
	if onLine != nil {
		pr, pw := io.Pipe()
		lines, linesDone = pw, make(chan struct{})
		cmd.Stdout = io.MultiWriter(&stdout, pw)
		go func() {
			defer close(linesDone)
			sc := bufio.NewScanner(pr)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				onLine(sc.Text())
			}
			_, _ = io.Copy(io.Discard, pr)
		}()
	} else {
		cmd.Stdout = &stdout
	}
	finishLines := func() {
		if lines != nil {
			_ = lines.Close()
			<-linesDone
		}
	}

	var afterStart func(int) error
	if c.opts.StartHook != nil {
		var err error
		if afterStart, err = c.opts.StartHook(cmd); err != nil {
			finishLines()
			return nil, fmt.Errorf("rpm-ostree %s: start hook: %w", strings.Join(args, " "), err)
		}
	}
	if err := cmd.Start(); err != nil {
		finishLines()
		return nil, fmt.Errorf("rpm-ostree %s: %w", strings.Join(args, " "), err)
	}
	if afterStart != nil {
		if err := afterStart(cmd.Process.Pid); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			finishLines()
			return nil, fmt.Errorf("rpm-ostree %s: after start hook: %w", strings.Join(args, " "), err)
		}
	}
	err := cmd.Wait()
	finishLines()
	if err == nil {
		return stdout.Bytes(), nil
	}
	cmdErr := &CommandError{Args: args, ExitCode: -1, Stderr: stderr.String()}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		cmdErr.ExitCode = exitErr.ExitCode()
	} else if cmdErr.Stderr == "" {
		cmdErr.Stderr = err.Error()
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err := fmt.Errorf("%w: %w", ctxErr, cmdErr)
		if len(args) > 0 && mutating[args[0]] {
			err = errors.Join(err, c.settleCancelled(ctx))
		}
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), cmdErr
}

// settleCancelled makes sure a transaction the caller gave up on has ended:
// the client normally waits for that after SIGINT, but one killed at the end
// of CancelGrace may not have; then `rpm-ostree cancel` cancels it and waits.
func (c *Client) settleCancelled(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("checking that the cancelled transaction ended: %w", err)
	}
	if st.Transaction == nil {
		return nil
	}
	klog.FromContext(ctx).Info("Cancelling the rpm-ostree transaction left running", "transaction", *st.Transaction)
	cctx, cancel := context.WithTimeout(ctx, c.opts.CancelGrace)
	defer cancel()
	if _, err := c.run(cctx, nil, "cancel"); err != nil {
		return fmt.Errorf("rpm-ostree cancel: %w", err)
	}
	if st, err = c.Status(ctx); err == nil && st.Transaction != nil {
		err = fmt.Errorf("transaction %v still running after rpm-ostree cancel", *st.Transaction)
	}
	return err
}
