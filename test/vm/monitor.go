package vm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"
)

// A QEMU monitor and the QEMU guest agent speak the same JSON framing on a
// unix socket: {"execute": cmd, "arguments": {...}} in, {"return": ...} or
// {"error": {...}} out (QMP adds asynchronous {"event": ...} lines). Both
// protocols are a handful of lines; a library (digitalocean/go-qemu) would
// bring libvirt's RPC along and still lacks the guest agent's resync.

type wireReply struct {
	Return json.RawMessage `json:"return"`
	Error  *struct {
		Class string `json:"class"`
		Desc  string `json:"desc"`
	} `json:"error"`
	Event     string          `json:"event"`
	Data      json.RawMessage `json:"data"`
	Timestamp struct {
		Seconds int64 `json:"seconds"`
	} `json:"timestamp"`
}

// Event is a QMP event ("RESET", "SHUTDOWN", ...).
type Event struct {
	Name string
	Data json.RawMessage
	At   time.Time
}

// qmp is a QEMU Machine Protocol client: one command at a time, events kept.
type qmp struct {
	conn    net.Conn
	mu      sync.Mutex // one command in flight
	replies chan wireReply
	evMu    sync.Mutex
	events  []Event
	done    chan struct{}
}

func dialQMP(ctx context.Context, path string) (*qmp, error) {
	conn, err := dialRetry(ctx, path)
	if err != nil {
		return nil, err
	}
	q := &qmp{conn: conn, replies: make(chan wireReply, 1), done: make(chan struct{})}
	r := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := r.ReadBytes('\n'); err != nil { // the greeting
		conn.Close()
		return nil, fmt.Errorf("QMP greeting on %s: %w", path, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	go q.read(r)
	if _, err := q.Execute(ctx, "qmp_capabilities", nil); err != nil {
		conn.Close()
		return nil, err
	}
	return q, nil
}

func (q *qmp) read(r *bufio.Reader) {
	defer close(q.done)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var m wireReply
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Event != "" {
			q.evMu.Lock()
			q.events = append(q.events, Event{Name: m.Event, Data: m.Data, At: time.Unix(m.Timestamp.Seconds, 0)})
			q.evMu.Unlock()
			continue
		}
		select {
		case q.replies <- m:
		default: // nobody waits (a timed-out command): drop it
		}
	}
}

// Execute runs one QMP command.
func (q *qmp) Execute(ctx context.Context, cmd string, args any) (json.RawMessage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.replies) > 0 {
		<-q.replies
	}
	if err := writeCommand(q.conn, cmd, args); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case m := <-q.replies:
		if m.Error != nil {
			return nil, fmt.Errorf("QMP %s: %s: %s", cmd, m.Error.Class, m.Error.Desc)
		}
		return m.Return, nil
	case <-q.done:
		return nil, fmt.Errorf("QMP %s: monitor closed", cmd)
	case <-ctx.Done():
		return nil, fmt.Errorf("QMP %s: %w", cmd, ctx.Err())
	}
}

// Events returns the events seen so far.
func (q *qmp) Events() []Event {
	q.evMu.Lock()
	defer q.evMu.Unlock()
	return append([]Event(nil), q.events...)
}

func (q *qmp) Close() error { return q.conn.Close() }

// agent is a QEMU guest agent client. The agent restarts with every boot of
// the guest while the host side of its socket stays open, so every call
// first resynchronises (guest-sync-delimited) to skip stale output.
type agent struct {
	path string
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
	id   int64
}

func newAgent(path string) *agent { return &agent{path: path, id: time.Now().UnixNano() % 1e9} }

// call runs one agent command, within timeout.
func (a *agent) call(ctx context.Context, timeout time.Duration, cmd string, args, out any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if a.conn == nil {
		conn, err := dialRetry(ctx, a.path)
		if err != nil {
			return err
		}
		a.conn, a.r = conn, bufio.NewReader(conn)
	}
	deadline, _ := ctx.Deadline()
	_ = a.conn.SetDeadline(deadline)
	defer func() { _ = a.conn.SetDeadline(time.Time{}) }()
	a.id++
	if err := a.sync(a.id); err != nil {
		return fmt.Errorf("guest agent not answering (%s): %w", cmd, err)
	}
	if err := writeCommand(a.conn, cmd, args); err != nil {
		return err
	}
	for {
		line, err := a.r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("guest agent %s: %w", cmd, err)
		}
		var m wireReply
		if json.Unmarshal(bytes.TrimLeft(line, "\xff"), &m) != nil {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("guest agent %s: %s: %s", cmd, m.Error.Class, m.Error.Desc)
		}
		if out != nil && len(m.Return) > 0 {
			return json.Unmarshal(m.Return, out)
		}
		return nil
	}
}

// sync sends 0xFF and guest-sync-delimited, then discards everything up to
// the 0xFF that precedes the matching answer.
func (a *agent) sync(id int64) error {
	if _, err := a.conn.Write([]byte{0xff}); err != nil {
		return err
	}
	if err := writeCommand(a.conn, "guest-sync-delimited", map[string]int64{"id": id}); err != nil {
		return err
	}
	for {
		if _, err := a.r.ReadBytes(0xff); err != nil {
			return err
		}
		line, err := a.r.ReadBytes('\n')
		if err != nil {
			return err
		}
		var m struct {
			Return int64 `json:"return"`
		}
		if json.Unmarshal(line, &m) == nil && m.Return == id {
			return nil
		}
	}
}

func (a *agent) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != nil {
		a.conn.Close()
		a.conn = nil
	}
}

func writeCommand(conn net.Conn, cmd string, args any) error {
	msg := map[string]any{"execute": cmd}
	if args != nil {
		msg["arguments"] = args
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = conn.Write(append(b, '\n'))
	return err
}

// dialRetry connects to a unix socket QEMU is about to create.
func dialRetry(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connecting to %s: %w (last: %v)", path, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
