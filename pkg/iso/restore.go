package iso

import (
	"context"
	"errors"

	"k8s.io/klog/v2"
)

// RestoreInterrupted puts back every knob a staging session left changed
// because it never reached Close (the daemon was killed, crashed or lost
// power): those in the record under o.StateDir, and those of the last
// session that held the host lock, if its record is still there. The daemon
// calls it when it starts; Prepare calls it too, so a leftover is never
// recorded as an original. It returns the entries it restored.
func RestoreInterrupted(ctx context.Context, o Options) ([]Entry, error) {
	o = o.withDefaults()
	lock, previous, err := acquireHostLock(ctx, o.HostLock, o.LockWait)
	if err != nil {
		return nil, err
	}
	restored, err := restoreLeftovers(ctx, RecordPath(o.StateDir), previous)
	return restored, errors.Join(err, lock.release())
}

// restoreLeftovers restores the records at the given paths (duplicates and
// empty paths skipped). The host lock must be held.
func restoreLeftovers(ctx context.Context, paths ...string) ([]Entry, error) {
	logger := klog.FromContext(ctx)
	var restored []Entry
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		r, err := loadRecord(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r == nil {
			continue
		}
		logger.Info("Restoring I/O knobs left by an interrupted staging", "record", p, "policy", r.Policy, "pid", r.PID, "started", r.Started, "knobs", len(r.Entries))
		j := &journal{path: p, rec: *r}
		before := j.rec.Entries
		err = j.restore(ctx)
		restored = append(restored, done(before, j.rec.Entries)...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return restored, errors.Join(errs...)
}

// done returns the entries of before that are not in left.
func done(before, left []Entry) []Entry {
	var out []Entry
	for _, e := range before {
		kept := false
		for _, l := range left {
			if l == e {
				kept = true
				break
			}
		}
		if !kept {
			out = append(out, e)
		}
	}
	return out
}
