package iso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
)

// SchedulerPath is the sysfs file selecting a disk's I/O scheduler.
func SchedulerPath(disk string) string {
	return filepath.Join("/sys/block", disk, "queue", "scheduler")
}

// ParseScheduler reads the content of queue/scheduler: "none [mq-deadline]
// kyber bfq" -> current "mq-deadline" and the available list.
func ParseScheduler(content string) (current string, available []string) {
	for _, f := range strings.Fields(content) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			f = strings.Trim(f, "[]")
			current = f
		}
		available = append(available, f)
	}
	return current, available
}

// ReadScheduler returns a disk's current and available schedulers.
func ReadScheduler(disk string) (current string, available []string, err error) {
	b, err := os.ReadFile(SchedulerPath(disk))
	if err != nil {
		return "", nil, fmt.Errorf("read scheduler of %s: %w", disk, err)
	}
	current, available = ParseScheduler(string(b))
	return current, available, nil
}

// SchedulerChange records the schedulers it replaced, to restore them.
type SchedulerChange struct {
	previous map[string]string
}

// SetScheduler selects sched on every disk and returns what to restore.
// On a partial failure it restores the disks it had already changed.
func SetScheduler(ctx context.Context, disks []string, sched string) (*SchedulerChange, error) {
	c := &SchedulerChange{previous: map[string]string{}}
	for _, disk := range disks {
		cur, avail, err := ReadScheduler(disk)
		if err != nil {
			return nil, errors.Join(err, c.Restore(ctx))
		}
		if cur == sched {
			continue
		}
		if !contains(avail, sched) {
			return nil, errors.Join(fmt.Errorf("scheduler %s not available on %s (have %v)", sched, disk, avail), c.Restore(ctx))
		}
		if err := os.WriteFile(SchedulerPath(disk), []byte(sched), 0); err != nil {
			return nil, errors.Join(fmt.Errorf("set scheduler %s on %s: %w", sched, disk, err), c.Restore(ctx))
		}
		c.previous[disk] = cur
		klog.FromContext(ctx).Info("I/O scheduler set", "disk", disk, "scheduler", sched, "was", cur)
	}
	return c, nil
}

// Restore puts back the schedulers SetScheduler replaced. It is idempotent.
func (c *SchedulerChange) Restore(ctx context.Context) error {
	if c == nil {
		return nil
	}
	var errs []error
	for disk, prev := range c.previous {
		if err := os.WriteFile(SchedulerPath(disk), []byte(prev), 0); err != nil {
			errs = append(errs, fmt.Errorf("restore scheduler %s on %s: %w", prev, disk, err))
			continue
		}
		delete(c.previous, disk)
		klog.FromContext(ctx).Info("I/O scheduler restored", "disk", disk, "scheduler", prev)
	}
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
