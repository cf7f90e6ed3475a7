package osdouble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// transactionRecord describes the running transaction, in <run>/rpm-ostree,
// for status and for Reboot's check.
type transactionRecord struct {
	Title     string   `json:"title"`
	Args      []string `json:"args"`
	PID       int      `json:"pid"` // the transaction daemon
	ClientID  string   `json:"clientId,omitempty"`
	ClientPID int      `json:"clientPid,omitempty"`
}

// ErrTransactionInProgress is returned when another, different transaction
// holds the sysroot.
var ErrTransactionInProgress = errors.New("Transaction in progress")

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

func unlockFile(f *os.File) {
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	f.Close()
}

// runningTransaction returns the running transaction, if its daemon lives.
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

// runLocked runs f holding the sysroot lock, with the transaction recorded
// for status; it fails at once if the lock is held (by another daemon, or
// by a harness rebooting the node).
func runLocked(ctx context.Context, l layout, rec transactionRecord, f func(context.Context) (int, string)) (int, string) {
	lock, ok, err := lockSysroot(l)
	if err != nil {
		return 1, errMsg(err)
	}
	if !ok {
		return 1, errMsg(fmt.Errorf("%w: the sysroot is locked by another process", ErrTransactionInProgress))
	}
	defer unlockFile(lock)
	if err := writeJSONAtomic(l.txnFile(), rec, false); err != nil {
		return 1, errMsg(err)
	}
	defer func() { _ = removeIfExists(l.txnFile()) }()
	return f(ctx)
}

func errMsg(err error) string { return fmt.Sprintf("error: %s\n", err) }
