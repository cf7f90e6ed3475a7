package osdouble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// transactionRecord describes the running transaction, in <run>/rpm-ostree.
type transactionRecord struct {
	Title    string   `json:"title"`
	Args     []string `json:"args"`
	PID      int      `json:"pid"`
	ClientID string   `json:"clientId,omitempty"`
}

// transactionResult is what a finished transaction leaves for a client that
// attached to it.
type transactionResult struct {
	Args   []string `json:"args"`
	PID    int      `json:"pid"`
	Exit   int      `json:"exit"`
	Stderr string   `json:"stderr,omitempty"`
}

// ErrTransactionInProgress is returned when another, different transaction
// holds the sysroot.
var ErrTransactionInProgress = errors.New("Transaction in progress")

// txn is a held sysroot lock.
type txn struct {
	l    layout
	lock *os.File
	rec  transactionRecord
}

// lockSysroot takes the sysroot's transaction lock without waiting.
func lockSysroot(l layout) (*os.File, bool, error) {
	f, err := os.OpenFile(l.lockFile(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("locking sysroot: %w", err)
	}
	return f, true, nil
}

// waitLock takes the lock, waiting for the holder, unless ctx ends first.
func waitLock(ctx context.Context, l layout) (*os.File, error) {
	f, err := os.OpenFile(l.lockFile(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- unix.Flock(int(f.Fd()), unix.LOCK_EX) }()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	case <-ctx.Done():
		// The process is about to exit; the lock, if it comes, goes with it.
		return nil, ctx.Err()
	}
}

// beginTransaction takes the sysroot for a mutating command. When another
// transaction with the same command line is running, it waits for it and
// returns its result instead (rpm-ostree attaches a compatible client to the
// running transaction); any other running transaction is an error.
func beginTransaction(ctx context.Context, l layout, title string, args []string, clientID string) (*txn, *transactionResult, error) {
	rec := transactionRecord{Title: title, Args: args, PID: os.Getpid(), ClientID: clientID}
	f, ok, err := lockSysroot(l)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		var running transactionRecord
		if _, err := readJSON(l.txnFile(), &running); err != nil {
			return nil, nil, err
		}
		if !slices.Equal(running.Args, args) {
			what := running.Title
			if what == "" {
				what = "unknown"
			}
			return nil, nil, fmt.Errorf("%w: %s\nYou can cancel the current transaction with `rpm-ostree cancel`", ErrTransactionInProgress, what)
		}
		if f, err = waitLock(ctx, l); err != nil {
			return nil, nil, err
		}
		var last transactionResult
		if found, err := readJSON(l.lastTxnFile(), &last); err == nil && found &&
			last.PID == running.PID && slices.Equal(last.Args, args) {
			unlockFile(f)
			return nil, &last, nil
		}
		// The transaction we waited for died without a result: run ours.
	}
	t := &txn{l: l, lock: f, rec: rec}
	if err := writeJSONAtomic(l.txnFile(), rec, false); err != nil {
		t.end(1, err.Error())
		return nil, nil, err
	}
	return t, nil, nil
}

// end records the result for attached clients and releases the sysroot.
func (t *txn) end(exit int, stderr string) {
	_ = writeJSONAtomic(t.l.lastTxnFile(), transactionResult{Args: t.rec.Args, PID: t.rec.PID, Exit: exit, Stderr: stderr}, false)
	_ = removeIfExists(t.l.txnFile())
	unlockFile(t.lock)
}

func unlockFile(f *os.File) {
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	f.Close()
}

// runningTransaction returns the running transaction, if its process lives.
func runningTransaction(l layout) (*transactionRecord, error) {
	var rec transactionRecord
	found, err := readJSON(l.txnFile(), &rec)
	if err != nil || !found {
		return nil, err
	}
	if err := syscall.Kill(rec.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return nil, nil
	}
	return &rec, nil
}
