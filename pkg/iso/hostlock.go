package iso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultHostLock is the lock every session holds while it changes the
// host's knobs. The knobs (a disk's queue, its BDI, cgroups) belong to the
// host, not to one daemon, so two sessions on one host must not stack:
// the second would record the first one's values as the originals.
const DefaultHostLock = "/run/lock/tandem-iso.lock"

// DefaultLockWait bounds how long a session waits for another one on the
// same host to finish.
const DefaultLockWait = 5 * time.Minute

// hostLock is a held flock(2). The kernel drops it when the holder dies,
// even by kill -9; the file then still names the holder's record, which the
// next holder restores before it changes anything.
type hostLock struct {
	f *os.File
}

// lockHolder is the lock file's content.
type lockHolder struct {
	PID    int    `json:"pid"`
	Record string `json:"record"`
}

// acquireHostLock takes the host lock, polling until wait is over. It
// returns the record path the previous holder left in the file ("" if
// none).
func acquireHostLock(ctx context.Context, path string, wait time.Duration) (*hostLock, string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, "", fmt.Errorf("host I/O lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("host I/O lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, "", fmt.Errorf("host I/O lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			h := readHolder(f)
			f.Close()
			return nil, "", fmt.Errorf("another staging session (pid %d, record %s) still holds the host's I/O knobs (%s) after %v", h.PID, h.Record, path, wait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, "", fmt.Errorf("waiting for the host I/O lock %s: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return &hostLock{f: f}, readHolder(f).Record, nil
}

func readHolder(f *os.File) lockHolder {
	var h lockHolder
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	_ = json.Unmarshal(b[:n], &h)
	return h
}

// claim names our record in the lock file, for whoever takes the lock
// after us if we die holding it.
func (l *hostLock) claim(record string) error {
	b, _ := json.Marshal(lockHolder{PID: os.Getpid(), Record: record})
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("host I/O lock: %w", err)
	}
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("host I/O lock: %w", err)
	}
	return l.f.Sync()
}

// release clears the holder and unlocks.
func (l *hostLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Truncate(0)
	err = errors.Join(err, unix.Flock(int(l.f.Fd()), unix.LOCK_UN), l.f.Close())
	l.f = nil
	return err
}
