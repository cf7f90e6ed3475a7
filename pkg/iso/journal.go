package iso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/cgroups"
	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// journal is a session's record of changed knobs, kept on disk. Every
// change goes through note() first, and every undo, at Close or at the next
// daemon start after a crash, goes through restore(): the same code puts a
// knob back in both cases.
type journal struct {
	path string
	rec  Record
}

func newJournal(stateDir, policy string) *journal {
	return &journal{path: RecordPath(stateDir), rec: Record{
		PID: os.Getpid(), Policy: policy, BootID: currentBootID(), Started: time.Now().UTC(),
	}}
}

// note records a knob (with its original value) before it is changed.
func (j *journal) note(e Entry) error {
	j.rec.Entries = append(j.rec.Entries, e)
	if err := saveRecord(j.path, &j.rec); err != nil {
		j.rec.Entries = j.rec.Entries[:len(j.rec.Entries)-1]
		return err
	}
	return nil
}

// noteFile reads a file knob's value and records it; the caller then
// changes the file. The returned value is the original.
func (j *journal) noteFile(lever, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	orig := strings.TrimSpace(string(b))
	return orig, j.note(Entry{Kind: kindFile, Lever: lever, Path: path, Original: orig, Volatile: true})
}

// restore puts every recorded knob back, newest first, tries all of them,
// and keeps on disk only those it could not restore (the next restore
// retries them). With nothing left, the record is removed.
func (j *journal) restore(ctx context.Context) error {
	left, err := restoreEntries(ctx, &j.rec)
	j.rec.Entries = left
	if len(left) > 0 {
		return errors.Join(err, saveRecord(j.path, &j.rec))
	}
	return errors.Join(err, removeRecord(j.path))
}

// restoreEntries restores a record's entries newest first and returns the
// ones that failed. Volatile entries of another boot are dropped: the
// kernel put them back when it booted.
func restoreEntries(ctx context.Context, r *Record) (left []Entry, err error) {
	logger := klog.FromContext(ctx)
	sameBoot := r.BootID == "" || r.BootID == currentBootID()
	var errs []error
	for i := len(r.Entries) - 1; i >= 0; i-- {
		e := r.Entries[i]
		if e.Volatile && !sameBoot {
			logger.Info("I/O knob was reset by a reboot", "lever", e.Lever, "path", e.Path)
			continue
		}
		if rerr := restoreEntry(ctx, e); rerr != nil {
			errs = append(errs, fmt.Errorf("restore %s (%s): %w", e.Path, e.Lever, rerr))
			left = append([]Entry{e}, left...)
			continue
		}
		logger.V(2).Info("I/O knob restored", "lever", e.Lever, "path", e.Path, "value", e.Original)
	}
	return left, errors.Join(errs...)
}

func restoreEntry(ctx context.Context, e Entry) error {
	switch e.Kind {
	case kindFile:
		return writeKnob(e.Path, e.Original)
	case kindRepoOption:
		return restoreRepoOption(ctx, e.Path, e.Section, e.Key, e.Had, e.Original)
	case kindCgroup:
		return removeCgroup(ctx, e.Path, e.Parent)
	case kindUnitIO:
		return restoreUnitIO(ctx, e.Unit, e.Device, e.Weight)
	case kindProcessCgroup:
		return moveProcess(e.PID, e.StartTime, e.Path)
	case kindProcessIOPrio:
		v, err := strconv.Atoi(e.Original)
		if err != nil {
			return fmt.Errorf("recorded I/O class %q: %w", e.Original, err)
		}
		return restoreProcessIOPrio(e.PID, e.StartTime, ioprioFromValue(v))
	}
	return fmt.Errorf("unknown knob kind %q", e.Kind)
}

// writeKnob writes a value to a sysfs file.
func writeKnob(path, value string) error {
	if err := os.WriteFile(path, []byte(value), 0); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	return nil
}

// removeCgroup moves any process still in a cgroup to our own cgroup of the
// hierarchy, removes it, and removes parent too if it was made for it and is
// empty. A missing cgroup is fine.
func removeCgroup(ctx context.Context, path, parent string) error {
	if !cgroups.PathExists(path) {
		return nil
	}
	var errs []error
	if pids, err := cgroups.GetPids(path); err == nil && len(pids) > 0 {
		home, err := ownCgroupOf(path)
		if err != nil {
			errs = append(errs, err)
		}
		for _, pid := range pids {
			if err := cgroups.WriteCgroupProc(home, pid); err != nil {
				errs = append(errs, fmt.Errorf("move %d out of %s: %w", pid, path, err))
			}
		}
	}
	if err := cgroups.RemovePath(path); err != nil {
		errs = append(errs, fmt.Errorf("remove cgroup %s: %w", path, err))
	} else {
		klog.FromContext(ctx).Info("Staging cgroup removed", "path", path)
	}
	if parent != "" {
		// Fails harmlessly (EBUSY) while a sibling still uses the parent.
		if err := os.Remove(parent); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.EBUSY) {
			errs = append(errs, fmt.Errorf("remove cgroup parent %s: %w", parent, err))
		}
	}
	return errors.Join(errs...)
}

// ownCgroupOf returns our own cgroup directory in the hierarchy that holds
// path (cgroup v2, or the v1 hierarchy mounted above it).
func ownCgroupOf(path string) (string, error) {
	own, err := cgroups.ParseCgroupFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("read own cgroup: %w", err)
	}
	if cgroups.IsCgroup2UnifiedMode() {
		return filepath.Join("/sys/fs/cgroup", own[""]), nil
	}
	mnt, err := cgroups.FindCgroupMountpoint("", "blkio")
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(path, mnt+"/") {
		return "", fmt.Errorf("cgroup %s is not under the blkio hierarchy %s", path, mnt)
	}
	return filepath.Join(mnt, own["blkio"]), nil
}
