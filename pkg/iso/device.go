package iso

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// BlockDevice is the block device under a filesystem.
type BlockDevice struct {
	// Major and Minor of the device the filesystem reports (a partition,
	// a device-mapper device or a whole disk). cgroup limits use these.
	Major, Minor uint32
	// Name is its kernel name, e.g. "vda", "sda2", "dm-0".
	Name string
	// LimitMajor and LimitMinor are the device cgroup I/O limits must
	// name: the kernel refuses partitions there (blkio throttle, io.max),
	// so for a partition they are its whole disk's.
	LimitMajor, LimitMinor uint32
	// Disks are the whole disks whose queues carry its I/O: the
	// partition's parent, or the disks under a device-mapper stack. The
	// I/O scheduler is a property of these.
	Disks []string
}

// String returns the device's "major:minor".
func (d BlockDevice) String() string { return fmt.Sprintf("%d:%d", d.Major, d.Minor) }

// LimitKey returns the "major:minor" cgroup limit files take for it.
func (d BlockDevice) LimitKey() string { return fmt.Sprintf("%d:%d", d.LimitMajor, d.LimitMinor) }

// DevPath is the device node of the whole disk (or dm device) limits
// apply to, as systemd's IO*BandwidthMax= takes it.
func (d BlockDevice) DevPath() string {
	if d.LimitMajor == d.Major && d.LimitMinor == d.Minor {
		return "/dev/" + d.Name
	}
	if len(d.Disks) > 0 {
		return "/dev/" + d.Disks[0]
	}
	return "/dev/" + d.Name
}

// DeviceOf resolves the block device holding path's filesystem: stat(2)
// gives the device number, /sys/dev/block/MAJ:MIN gives its name and place.
func DeviceOf(path string) (BlockDevice, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return BlockDevice{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return DeviceByNumber(unix.Major(st.Dev), unix.Minor(st.Dev))
}

// DeviceByNumber resolves a block device from its numbers through sysfs.
func DeviceByNumber(major, minor uint32) (BlockDevice, error) {
	return deviceByNumber("/sys", major, minor)
}

func deviceByNumber(sys string, major, minor uint32) (BlockDevice, error) {
	link := filepath.Join(sys, "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return BlockDevice{}, fmt.Errorf("device %d:%d is not a block device (%s): %w", major, minor, link, err)
	}
	d := BlockDevice{Major: major, Minor: minor, Name: filepath.Base(real), LimitMajor: major, LimitMinor: minor}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "dev"))
		if err != nil {
			return BlockDevice{}, fmt.Errorf("whole disk of %s: %w", d.Name, err)
		}
		if d.LimitMajor, d.LimitMinor, err = ParseMajorMinor(string(b)); err != nil {
			return BlockDevice{}, err
		}
	}
	d.Disks, err = disksUnder(real, map[string]bool{})
	if err != nil {
		return BlockDevice{}, err
	}
	if len(d.Disks) == 0 {
		return BlockDevice{}, fmt.Errorf("no disk with an I/O queue under %s", d.Name)
	}
	return d, nil
}

// disksUnder walks from a sysfs block directory to the whole disks with a
// request queue: a partition's parent, a dm/md device's slaves.
func disksUnder(dir string, seen map[string]bool) ([]string, error) {
	if seen[dir] {
		return nil, nil
	}
	seen[dir] = true
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		return disksUnder(filepath.Dir(dir), seen)
	}
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	if len(slaves) > 0 {
		var out []string
		for _, s := range slaves {
			real, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", s.Name()))
			if err != nil {
				return nil, fmt.Errorf("resolve %s: %w", s.Name(), err)
			}
			more, err := disksUnder(real, seen)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "queue", "scheduler")); err != nil {
		return nil, nil
	}
	return []string{filepath.Base(dir)}, nil
}

// ParseMajorMinor parses "MAJ:MIN".
func ParseMajorMinor(s string) (major, minor uint32, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, 0, fmt.Errorf("device %q is not MAJ:MIN", s)
	}
	ma, err1 := strconv.ParseUint(a, 10, 32)
	mi, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("device %q is not MAJ:MIN", s)
	}
	return uint32(ma), uint32(mi), nil
}
