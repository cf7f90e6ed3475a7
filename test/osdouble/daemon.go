package osdouble

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The transaction daemon: the double's rpmostreed. As upstream, the CLI is
// only a client: `rpm-ostree start-daemon` runs every mutating command (and
// so every write of a stage) in its own process, one transaction at a time.
// A client that dies (SIGTERM, SIGKILL) leaves its transaction running; only
// a cancel (the client's SIGINT handler, or `rpm-ostree cancel`) stops it
// (src/app/rpmostree-clientlib.cxx: on_sigint cancels, then waits for the
// transaction to finish; src/daemon/rpmostreed-transaction.cxx: a peer that
// vanishes is only disconnected from progress). A client with the same
// command line joins the running transaction
// (rpmostreed_transaction_is_compatible); any other gets "Transaction in
// progress" (rpmostreed-sysroot.cxx rpmostreed_sysroot_prep_for_txn).
//
// The IPC is JSON lines over an abstract unix socket named after the node's
// run dir (DaemonSocket) instead of D-Bus: no path length limit, and it goes
// away with the process. The daemon's pid is in DaemonPIDFile.

// request is what a client sends.
type request struct {
	Op       string   `json:"op"` // "run", "cancel" (of the joined transaction), "cancel-active"
	Args     []string `json:"args,omitempty"`
	ClientID string   `json:"clientId,omitempty"`
	PID      int      `json:"pid,omitempty"`
}

// event is what the daemon sends back.
type event struct {
	Out      string  `json:"out,omitempty"`      // transaction output
	Attached string  `json:"attached,omitempty"` // joined a running transaction (its title)
	Title    string  `json:"title,omitempty"`    // cancel-active: the transaction being cancelled
	None     bool    `json:"none,omitempty"`     // cancel-active: nothing runs
	End      *txnEnd `json:"end,omitempty"`
}

// txnEnd is a transaction's result.
type txnEnd struct {
	Exit   int    `json:"exit"`
	Stderr string `json:"stderr,omitempty"`
}

// Daemon serves one node's transactions.
type Daemon struct {
	n    *node
	ln   net.Listener
	base context.Context

	mu     sync.Mutex
	active *transaction
	// rebooting is set once finalize-deployment asked for the reboot
	// (rpmostreed_daemon_reboot); it lasts as long as this process.
	rebooting bool
	wg        sync.WaitGroup
}

// transaction is the running transaction and the clients following it.
type transaction struct {
	rec    transactionRecord
	cancel context.CancelFunc
	done   chan struct{}
	end    txnEnd

	mu    sync.Mutex
	peers map[*peer]struct{}
}

// peer is one connected client; its events go out through a buffer so a
// stuck client never holds up the transaction.
type peer struct {
	ch chan event
}

// Write broadcasts transaction output to the peers.
func (t *transaction) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pr := range t.peers {
		select {
		case pr.ch <- event{Out: string(p)}:
		default: // the client does not read: its progress is lost, not ours
		}
	}
	return len(p), nil
}

func (t *transaction) join(pr *peer) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.done:
		return false
	default:
	}
	t.peers[pr] = struct{}{}
	return true
}

func (t *transaction) leave(pr *peer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.peers, pr)
}

// ListenDaemon makes the daemon of the node whose environment getenv gives,
// listening on its socket, and writes its pid file. Serve runs it.
func ListenDaemon(ctx context.Context, getenv func(string) string) (*Daemon, error) {
	n, err := nodeFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", n.l.socketFile())
	if err != nil {
		return nil, fmt.Errorf("Couldn't start daemon: %w", err)
	}
	if err := writeFileAtomic(n.l.pidFile(), []byte(strconv.Itoa(os.Getpid())+"\n"), false); err != nil {
		ln.Close()
		return nil, err
	}
	return &Daemon{n: n, ln: ln, base: ctx}, nil
}

// Serve accepts clients until ctx ends, then cancels the running
// transaction, waits for it and removes the pid file and the socket.
func (d *Daemon) Serve(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		d.ln.Close()
	}()
	for {
		c, err := d.ln.Accept()
		if err != nil {
			break
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.handle(c)
		}()
	}
	d.mu.Lock()
	if t := d.active; t != nil {
		t.cancel()
	}
	d.mu.Unlock()
	d.wg.Wait()
	_ = removeIfExists(d.n.l.pidFile())
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("daemon socket closed")
}

func (d *Daemon) handle(c net.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	var req request
	if err := readLine(rd, &req); err != nil {
		return
	}
	pr := &peer{ch: make(chan event, 4096)}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		enc := json.NewEncoder(c)
		failed := false
		for ev := range pr.ch {
			// After a write error keep draining, so no sender ever waits.
			failed = failed || enc.Encode(ev) != nil
		}
	}()
	defer func() {
		close(pr.ch)
		<-writerDone
	}()
	switch req.Op {
	case "run":
		d.run(rd, pr, req)
	case "cancel-active":
		d.cancelActive(pr)
	default:
		pr.ch <- event{End: &txnEnd{Exit: 1, Stderr: errMsg(fmt.Errorf("unknown request %q", req.Op))}}
	}
}

// run starts the transaction or joins the compatible running one, then
// follows it: output, cancel requests, its end. A client that goes away
// leaves the transaction running.
func (d *Daemon) run(rd *bufio.Reader, pr *peer, req request) {
	t, joined, err := d.begin(req, pr)
	if err != nil {
		pr.ch <- event{End: &txnEnd{Exit: 1, Stderr: errMsg(err)}}
		return
	}
	if joined {
		pr.ch <- event{Attached: t.rec.Title}
		if !t.join(pr) {
			pr.ch <- event{End: &t.end}
			return
		}
	}
	defer t.leave(pr)
	requests := make(chan request)
	go func() {
		defer close(requests)
		for {
			var r request
			if readLine(rd, &r) != nil {
				return
			}
			requests <- r
		}
	}()
	for {
		select {
		case <-t.done:
			pr.ch <- event{End: &t.end}
			return
		case r, ok := <-requests:
			if !ok {
				// The client vanished: "Process ... disconnected from
				// transaction progress"; the transaction carries on.
				requests = nil
				continue
			}
			if r.Op == "cancel" {
				t.cancel()
			}
		}
	}
}

// begin starts a transaction for req, followed by pr from its first line
// of output, or returns the compatible running one.
func (d *Daemon) begin(req request, pr *peer) (*transaction, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if req.PID == 0 || len(req.Args) == 0 {
		return nil, false, errors.New("invalid transaction request")
	}
	if t := d.active; t != nil {
		if slices.Equal(t.rec.Args, req.Args) {
			return t, true, nil
		}
		return nil, false, fmt.Errorf("%w: %s\n You can cancel the current transaction with `rpm-ostree cancel`", ErrTransactionInProgress, t.rec.Title)
	}
	if d.rebooting {
		return nil, false, errors.New("Reboot initiated, cannot start new transaction")
	}
	cmd, _, _, err := lookupCommand(req.Args)
	if err != nil || !cmd.mutating {
		return nil, false, fmt.Errorf("%q is not a transaction", req.Args[0])
	}
	call, err := newCall(d.n, req.Args)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithCancel(d.base)
	t := &transaction{
		rec:    transactionRecord{Title: transactionTitle(req.Args), Args: req.Args, PID: os.Getpid(), ClientID: req.ClientID, ClientPID: req.PID},
		cancel: cancel, done: make(chan struct{}), peers: map[*peer]struct{}{pr: {}},
	}
	call.stdout, call.clientID = t, req.ClientID
	d.active = t
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer cancel()
		code, msg := runLocked(ctx, d.n.l, t.rec, func(ctx context.Context) (int, string) { return execute(ctx, cmd, call) })
		logCommand(d.n.l, CommandRecord{Args: req.Args, ClientID: req.ClientID, PID: req.PID, Exit: code})
		d.mu.Lock()
		d.active = nil
		d.rebooting = d.rebooting || (req.Args[0] == "finalize-deployment" && code == 0)
		t.mu.Lock()
		t.end = txnEnd{Exit: code, Stderr: msg}
		close(t.done)
		t.mu.Unlock()
		d.mu.Unlock()
	}()
	return t, false, nil
}

// execute runs a transaction's command and maps a cancellation to
// rpm-ostree's message.
func execute(ctx context.Context, cmd command, call *cliCall) (int, string) {
	if err := cmd.run(ctx, call); err != nil {
		if ctx.Err() != nil {
			err = errors.New("Operation was cancelled")
		}
		return 1, errMsg(err)
	}
	return call.exit, ""
}

// cancelActive is `rpm-ostree cancel`: cancel the running transaction and
// wait for it to go away.
func (d *Daemon) cancelActive(pr *peer) {
	d.mu.Lock()
	t := d.active
	d.mu.Unlock()
	if t == nil {
		pr.ch <- event{None: true}
		return
	}
	pr.ch <- event{Title: t.rec.Title}
	t.cancel()
	<-t.done
	pr.ch <- event{End: &txnEnd{}}
}

func readLine(rd *bufio.Reader, v any) error {
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}

// transactionTitle is the initiating command line, as libmain.cxx
// rebuild_command_line makes it (each argument, maybe quoted, then a space).
func transactionTitle(args []string) string {
	var b strings.Builder
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(a)
		b.WriteByte(' ')
	}
	return b.String()
}

// ReadDaemonPID returns the pid of the node's transaction daemon.
func ReadDaemonPID(run string) (int, error) {
	b, err := os.ReadFile(DaemonPIDFile(run))
	if err != nil {
		return 0, fmt.Errorf("transaction daemon pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("transaction daemon pid file %s: %w", DaemonPIDFile(run), err)
	}
	return pid, nil
}

// runClient is the CLI's side of a transaction: send it, print its output,
// and on ctx's end (SIGINT) ask the daemon to cancel it and wait for its
// end, as rpm-ostree's client does. It returns the exit code and stderr.
func runClient(ctx context.Context, l layout, args []string, clientID string, stdout, stderr io.Writer) (int, string) {
	var dialer net.Dialer
	c, err := dialer.DialContext(context.WithoutCancel(ctx), "unix", l.socketFile())
	if err != nil {
		return 1, errMsg(fmt.Errorf("Couldn't start daemon: connecting to rpm-ostreed at %s: %w", l.socketFile(), err))
	}
	defer c.Close()
	enc := json.NewEncoder(c)
	if err := enc.Encode(request{Op: "run", Args: args, ClientID: clientID, PID: os.Getpid()}); err != nil {
		return 1, errMsg(err)
	}
	events := make(chan event)
	go func() {
		defer close(events)
		rd := bufio.NewReader(c)
		for {
			var ev event
			if readLine(rd, &ev) != nil {
				return
			}
			events <- ev
		}
	}()
	sigint := ctx.Done()
	for {
		select {
		case <-sigint:
			sigint = nil
			fmt.Fprintln(stderr, "Caught SIGINT, cancelling transaction")
			_ = enc.Encode(request{Op: "cancel"})
		case ev, ok := <-events:
			switch {
			case !ok:
				// rpmostree-clientlib.cxx on_owner_changed.
				return 1, errMsg(errors.New("Bus owner changed, aborting. This likely means the daemon crashed; check logs with `journalctl -xe`."))
			case ev.Attached != "":
				fmt.Fprintf(stdout, "Attaching to existing transaction: %s\n", ev.Attached)
			case ev.Out != "":
				fmt.Fprint(stdout, ev.Out)
			case ev.End != nil:
				return ev.End.Exit, ev.End.Stderr
			}
		}
	}
}

// cancelClient is `rpm-ostree cancel` (src/app/rpmostree-builtin-cancel.cxx).
func cancelClient(l layout, stdout io.Writer) error {
	c, err := net.Dial("unix", l.socketFile())
	if err != nil {
		return fmt.Errorf("Couldn't start daemon: connecting to rpm-ostreed at %s: %w", l.socketFile(), err)
	}
	defer c.Close()
	if err := json.NewEncoder(c).Encode(request{Op: "cancel-active"}); err != nil {
		return err
	}
	rd := bufio.NewReader(c)
	for {
		var ev event
		if err := readLine(rd, &ev); err != nil {
			return fmt.Errorf("rpm-ostreed went away: %w", err)
		}
		switch {
		case ev.None:
			fmt.Fprintln(stdout, "No active transaction.")
			return nil
		case ev.Title != "":
			fmt.Fprintf(stdout, "Cancelling transaction: %s\n", ev.Title)
		case ev.End != nil:
			fmt.Fprintln(stdout, "Cancelled.")
			return nil
		}
	}
}
