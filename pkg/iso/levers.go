package iso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opencontainers/cgroups"
	"k8s.io/klog/v2"
)

// Lever names: the host knobs that act on the staging's writeback (see
// docs/benchmarks.md for what each one changes in the kernel).
const (
	// LeverDirtyLimit is the disk's per-BDI dirty limit
	// (/sys/class/bdi/<bdi>/max_bytes with strict_limit): a writer that
	// dirties more than its share is paused in its own context.
	LeverDirtyLimit = "dirty-limit"
	// LeverWBT is the block layer's writeback throttling target
	// (/sys/block/<disk>/queue/wbt_lat_usec).
	LeverWBT = "wbt"
	// LeverRequestSize is the largest request the block layer builds
	// (/sys/block/<disk>/queue/max_sectors_kb).
	LeverRequestSize = "request-size"
	// LeverIOCost is io.cost's QoS (cgroup v2 /sys/fs/cgroup/io.cost.qos).
	LeverIOCost = "io-cost"
	// LeverWriteLimit is the writer's cgroup write limit: io.max or
	// blkio.throttle.write_bps_device on a cgroup made directly, or
	// IOWriteBandwidthMax= of a systemd unit over D-Bus.
	LeverWriteLimit = "write-limit"
)

// SteerableLevers are the levers the governor can move.
func SteerableLevers() []string {
	return []string{LeverWriteLimit, LeverDirtyLimit, LeverWBT, LeverRequestSize}
}

// lever is a host knob the session sets for the stage. apply records the
// originals in the journal, then sets value; when the host lacks the knob
// it reports why and changes nothing. Set moves an applied lever.
type lever interface {
	name() string
	apply(ctx context.Context, j *journal, value uint64) (skipped string, err error)
	Set(ctx context.Context, value uint64) error
}

// sysfsRoot is /sys, or a fake tree in tests.
type sysfsRoot string

func (s sysfsRoot) path(parts ...string) string {
	return filepath.Join(append([]string{string(s)}, parts...)...)
}

// bdiDir is the BDI directory of the device's filesystem: its whole disk's
// for a partition, the device's own for a whole disk or a dm device.
func (s sysfsRoot) bdiDir(d BlockDevice) string {
	link := s.path("dev", "block", d.LimitKey(), "bdi")
	if real, err := filepath.EvalSymlinks(link); err == nil {
		return real
	}
	return s.path("class", "bdi", d.LimitKey())
}

func (s sysfsRoot) queueFile(disk, name string) string {
	return s.path("block", disk, "queue", name)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// dirtyLimit is LeverDirtyLimit. max_bytes is converted by the kernel into
// a ratio of the dirty threshold in force when it is written
// (mm/page-writeback.c bdi_set_max_bytes), so the original is recorded as
// max_ratio_fine (parts per million), the value the kernel keeps.
type dirtyLimit struct {
	dir string
}

func (l *dirtyLimit) name() string { return LeverDirtyLimit }

func (l *dirtyLimit) apply(ctx context.Context, j *journal, value uint64) (string, error) {
	maxBytes, strict := filepath.Join(l.dir, "max_bytes"), filepath.Join(l.dir, "strict_limit")
	if !exists(maxBytes) || !exists(strict) {
		return fmt.Sprintf("%s has no max_bytes/strict_limit (Linux 6.2 or later)", l.dir), nil
	}
	ratio := filepath.Join(l.dir, "max_ratio_fine")
	if !exists(ratio) {
		ratio = filepath.Join(l.dir, "max_ratio")
	}
	if _, err := j.noteFile(l.name(), ratio); err != nil {
		return "", err
	}
	if _, err := j.noteFile(l.name(), strict); err != nil {
		return "", err
	}
	if err := writeKnob(strict, "1"); err != nil {
		return "", err
	}
	return "", l.Set(ctx, value)
}

func (l *dirtyLimit) Set(_ context.Context, value uint64) error {
	return writeKnob(filepath.Join(l.dir, "max_bytes"), strconv.FormatUint(value, 10))
}

// queueLever is a per-disk queue attribute (wbt_lat_usec, max_sectors_kb)
// set on every disk that carries the filesystem's I/O.
type queueLever struct {
	lever string
	sys   sysfsRoot
	file  string
	disks []string // candidates
	set   []string // the disks it was applied to
	// clamp bounds a value for a disk (max_sectors_kb <= max_hw_sectors_kb).
	clamp func(disk string, v uint64) uint64
	// usable reports why a disk's current value means "leave it alone".
	usable func(current string) string
}

func (l *queueLever) name() string { return l.lever }

func (l *queueLever) apply(ctx context.Context, j *journal, value uint64) (string, error) {
	var skipped []string
	for _, disk := range l.disks {
		p := l.sys.queueFile(disk, l.file)
		b, err := os.ReadFile(p)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", disk, err))
			continue
		}
		if why := l.usable(strings.TrimSpace(string(b))); why != "" {
			skipped = append(skipped, disk+": "+why)
			continue
		}
		if _, err := j.noteFile(l.lever, p); err != nil {
			return "", err
		}
		l.set = append(l.set, disk)
	}
	if len(l.set) == 0 {
		return strings.Join(skipped, "; "), nil
	}
	if len(skipped) > 0 {
		klog.FromContext(ctx).Info("I/O lever skipped on some disks", "lever", l.lever, "why", strings.Join(skipped, "; "))
	}
	return "", l.Set(ctx, value)
}

func (l *queueLever) Set(_ context.Context, value uint64) error {
	var errs []error
	for _, disk := range l.set {
		v := value
		if l.clamp != nil {
			v = l.clamp(disk, v)
		}
		errs = append(errs, writeKnob(l.sys.queueFile(disk, l.file), strconv.FormatUint(v, 10)))
	}
	return errors.Join(errs...)
}

// newWBT is LeverWBT, in microseconds. A disk whose wbt reads 0 is left
// alone: wbt is off there on purpose (by an admin, or because bfq or
// io.cost turned it off), and writing a target would turn it back on.
func newWBT(sys sysfsRoot, disks []string) *queueLever {
	return &queueLever{lever: LeverWBT, sys: sys, file: "wbt_lat_usec", disks: disks,
		usable: func(cur string) string {
			if cur == "0" {
				return "writeback throttling is off"
			}
			return ""
		}}
}

// newRequestSize is LeverRequestSize, in KiB, clamped to what the
// hardware takes and to at least one 4 KiB page.
func newRequestSize(sys sysfsRoot, disks []string) *queueLever {
	return &queueLever{lever: LeverRequestSize, sys: sys, file: "max_sectors_kb", disks: disks,
		usable: func(string) string { return "" },
		clamp: func(disk string, v uint64) uint64 {
			if b, err := os.ReadFile(sys.queueFile(disk, "max_hw_sectors_kb")); err == nil {
				if hw, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && hw > 0 {
					v = min(v, hw)
				}
			}
			return max(v, 4)
		}}
}

// ioCost is LeverIOCost: io.cost's QoS for the disk, with the write latency
// target the lever's value (microseconds) and the read target the same.
// It exists on cgroup v2 hosts whose kernel has io.cost.
type ioCost struct {
	file string
	dev  string // MAJ:MIN of the whole disk
}

func newIOCost(dev BlockDevice) *ioCost {
	return &ioCost{file: "/sys/fs/cgroup/io.cost.qos", dev: dev.LimitKey()}
}

func (l *ioCost) name() string { return LeverIOCost }

func (l *ioCost) apply(ctx context.Context, j *journal, value uint64) (string, error) {
	if !cgroups.IsCgroup2UnifiedMode() || !exists(l.file) {
		return "no io.cost on this host (cgroup v2 with CONFIG_BLK_CGROUP_IOCOST)", nil
	}
	b, err := os.ReadFile(l.file)
	if err != nil {
		return "", err
	}
	if err := j.note(Entry{Kind: kindFile, Lever: l.name(), Path: l.file, Original: IOCostRestoreLine(string(b), l.dev), Volatile: true}); err != nil {
		return "", err
	}
	return "", l.Set(ctx, value)
}

func (l *ioCost) Set(_ context.Context, value uint64) error {
	return writeKnob(l.file, IOCostQoSLine(l.dev, value))
}

// IOCostQoSLine is the io.cost.qos line that enables io.cost on dev with
// user-set QoS: when the 95th percentile of read or write completion
// latency passes latUsec, io.cost lowers the device's virtual rate (down
// to 50 %), which throttles each cgroup by its io.weight.
func IOCostQoSLine(dev string, latUsec uint64) string {
	return fmt.Sprintf("%s enable=1 ctrl=user rpct=95.00 rlat=%d wpct=95.00 wlat=%d min=50.00 max=100.00", dev, latUsec, latUsec)
}

// IOCostRestoreLine returns the line that puts dev's io.cost QoS back as
// content (the file as read) shows it: the same parameters when they were
// set by a user, "ctrl=auto" (the kernel's own) otherwise, disabled when
// dev has no line.
func IOCostRestoreLine(content, dev string) string {
	for _, line := range strings.Split(content, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != dev {
			continue
		}
		enable := "enable=0"
		auto := true
		for _, kv := range f[1:] {
			switch {
			case strings.HasPrefix(kv, "enable="):
				enable = kv
			case kv == "ctrl=user":
				auto = false
			}
		}
		if auto {
			return dev + " " + enable + " ctrl=auto"
		}
		return strings.Join(f, " ")
	}
	return dev + " enable=0"
}
