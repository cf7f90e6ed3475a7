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
	"github.com/opencontainers/cgroups/fs"
	"github.com/opencontainers/cgroups/fs2"
	"k8s.io/klog/v2"
)

// CgroupSpec describes the cgroup the staging processes run in.
type CgroupSpec struct {
	// Parent and Name place the cgroup: <hierarchy>/<Parent>/<Name>.
	Parent, Name string
	// Device is the disk the limits apply to.
	Device BlockDevice
	// WriteBps limits writes to Device in bytes per second; 0: no limit.
	WriteBps uint64
	// Weight is the proportional share, 10..1000 (bfq on v1; io.weight or
	// io.bfq.weight on v2); 0 leaves the default.
	Weight uint16
}

// StagingCgroup is a cgroup made directly (github.com/opencontainers/cgroups)
// for hosts without systemd and for tests. On cgroup v1 it lives in the blkio
// hierarchy only: the processes moved into it keep their other cgroups, the
// memory one in particular.
type StagingCgroup struct {
	spec       CgroupSpec
	v2         bool
	root       string // the hierarchy's mount point
	path       string
	parent     string // the Parent directory, removed on Destroy if we made it
	madeParent bool
	mgr        cgroups.Manager
	// weightMissing says why the spec's weight was not set ("" when it
	// was, or none was asked for).
	weightMissing string
}

// CgroupPaths returns where CreateStagingCgroup puts the cgroup: the
// hierarchy's mount point, the Parent directory and the cgroup itself, and
// whether the parent would be made (so must be removed with it).
func CgroupPaths(spec CgroupSpec) (root, parent, path string, makesParent bool, err error) {
	if spec.Name == "" || strings.Contains(spec.Name, "/") {
		return "", "", "", false, fmt.Errorf("cgroup name %q must be one path element", spec.Name)
	}
	root = "/sys/fs/cgroup"
	if !cgroups.IsCgroup2UnifiedMode() {
		mnt, err := cgroups.FindCgroupMountpoint("", "blkio")
		if err != nil {
			return "", "", "", false, fmt.Errorf("cgroup v1 without a blkio hierarchy: %w", err)
		}
		root = mnt
	}
	parent = filepath.Join(root, filepath.Clean("/"+spec.Parent))
	path = filepath.Join(parent, spec.Name)
	_, serr := os.Stat(parent)
	return root, parent, path, errors.Is(serr, os.ErrNotExist), nil
}

// CreateStagingCgroup creates the cgroup and applies its limits.
func CreateStagingCgroup(ctx context.Context, spec CgroupSpec) (*StagingCgroup, error) {
	if spec.Weight != 0 && (spec.Weight < 10 || spec.Weight > 1000) {
		return nil, fmt.Errorf("cgroup weight %d out of 10..1000", spec.Weight)
	}
	root, parent, path, makesParent, err := CgroupPaths(spec)
	if err != nil {
		return nil, err
	}
	c := &StagingCgroup{spec: spec, v2: cgroups.IsCgroup2UnifiedMode(), root: root, parent: parent, path: path, madeParent: makesParent}
	cg := &cgroups.Cgroup{Resources: &cgroups.Resources{}}
	if c.v2 {
		c.mgr, err = fs2.NewManager(cg, c.path)
	} else {
		c.mgr, err = fs.NewManager(cg, map[string]string{"blkio": c.path})
	}
	if err != nil {
		return nil, fmt.Errorf("cgroup manager for %s: %w", c.path, err)
	}
	if err := c.mgr.Apply(-1); err != nil { // -1: create, attach nothing
		return nil, fmt.Errorf("create cgroup %s: %w", c.path, err)
	}
	// The throttle is what the cgroup is for; without it the cgroup
	// would only move the writer, so it is not made.
	if cgroupHas(c.path, throttleFile(c.v2)) == "" {
		return nil, errors.Join(noWriteLimitError(c.path, c.v2), c.Destroy(ctx))
	}
	weight := spec.Weight
	if weight != 0 && cgroupHas(c.path, weightFiles(c.v2)...) == "" {
		// The weight is optional: without bfq (v1) or io.cost/bfq (v2)
		// the kernel has no file for it, and the limit still applies.
		c.weightMissing = missingWeightReason(c.v2, spec.Device.Disks)
		weight = 0
	}
	if err := c.set(spec.WriteBps, weight); err != nil {
		return nil, errors.Join(err, c.Destroy(ctx))
	}
	klog.FromContext(ctx).Info("Staging cgroup created", "path", c.path, "device", spec.Device.LimitKey(), "writeBps", spec.WriteBps, "weight", weight, "weightMissing", c.weightMissing)
	return c, nil
}

// WeightMissing says why the asked-for weight was not set on this host,
// "" when it was set or none was asked for.
func (c *StagingCgroup) WeightMissing() string { return c.weightMissing }

// Path is the cgroup's directory.
func (c *StagingCgroup) Path() string { return c.path }

// V2 tells whether the host runs the unified hierarchy.
func (c *StagingCgroup) V2() bool { return c.v2 }

// Attach moves a process (its whole thread group) into the cgroup.
func (c *StagingCgroup) Attach(pid int) error {
	if err := c.mgr.AddPid("", pid); err != nil {
		return fmt.Errorf("attach %d to %s: %w", pid, c.path, err)
	}
	return nil
}

// SetWriteLimit changes the write limit; 0 removes it. It is the
// governor's Limiter.
func (c *StagingCgroup) SetWriteLimit(_ context.Context, bps uint64) error {
	return c.set(bps, 0)
}

func (c *StagingCgroup) set(bps uint64, weight uint16) error {
	dev := c.spec.Device
	r := &cgroups.Resources{BlkioWeight: weight}
	if c.v2 {
		if bps == 0 {
			// io.max takes "max" to lift a limit; a 0 rate would not.
			if err := cgroups.WriteFile(c.path, "io.max", dev.LimitKey()+" wbps=max"); err != nil {
				return fmt.Errorf("lift io.max in %s: %w", c.path, err)
			}
		} else {
			r.BlkioThrottleWriteBpsDevice = []*cgroups.ThrottleDevice{cgroups.NewThrottleDevice(int64(dev.LimitMajor), int64(dev.LimitMinor), bps)}
		}
		if err := c.mgr.Set(r); err != nil {
			return fmt.Errorf("set io limits in %s: %w", c.path, err)
		}
		return nil
	}
	// v1: writing rate 0 deletes the device's rule.
	r.BlkioThrottleWriteBpsDevice = []*cgroups.ThrottleDevice{cgroups.NewThrottleDevice(int64(dev.LimitMajor), int64(dev.LimitMinor), bps)}
	// Only the blkio controller's Set, not the manager's: the manager
	// walks every v1 controller, and this cgroup is in blkio alone.
	if err := (&fs.BlkioGroup{}).Set(c.path, r); err != nil {
		return fmt.Errorf("set blkio limits in %s: %w", c.path, err)
	}
	return nil
}

// WriteLimit reads back the write limit in force; 0 when there is none.
func (c *StagingCgroup) WriteLimit() (uint64, error) {
	file, key := "blkio.throttle.write_bps_device", ""
	if c.v2 {
		file, key = "io.max", "wbps="
	}
	b, err := cgroups.ReadFile(c.path, file)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", file, err)
	}
	return parseWriteLimit(b, c.spec.Device.LimitKey(), key)
}

// parseWriteLimit finds dev's write rate in blkio.throttle.write_bps_device
// ("8:0 1048576") or io.max ("8:0 rbps=max wbps=1048576 ...").
func parseWriteLimit(content, dev, key string) (uint64, error) {
	for _, line := range strings.Split(content, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != dev {
			continue
		}
		for _, v := range f[1:] {
			if !strings.HasPrefix(v, key) {
				continue
			}
			v = strings.TrimPrefix(v, key)
			if v == "max" {
				return 0, nil
			}
			return strconv.ParseUint(v, 10, 64)
		}
	}
	return 0, nil
}

// Procs lists the processes in the cgroup.
func (c *StagingCgroup) Procs() ([]int, error) { return cgroups.GetPids(c.path) }

// Destroy moves any process still inside back to our own cgroup of that
// hierarchy, removes the cgroup, and removes Parent if it made it and it is
// empty. It is idempotent.
func (c *StagingCgroup) Destroy(ctx context.Context) error {
	parent := ""
	if c.madeParent {
		parent = c.parent
	}
	return removeCgroup(ctx, c.path, parent)
}

// dirOf is the directory, in this cgroup's hierarchy, of the cgroup a
// /proc/<pid>/cgroup file names.
func (c *StagingCgroup) dirOf(procFile string) (string, error) {
	own, err := cgroups.ParseCgroupFile(procFile)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", procFile, err)
	}
	if c.v2 {
		return filepath.Join(c.root, own[""]), nil
	}
	return filepath.Join(c.root, own["blkio"]), nil
}

// moveTo moves a process (its thread group) into the cgroup at dir.
func (c *StagingCgroup) moveTo(dir string, pid int) error {
	if err := cgroups.WriteCgroupProc(dir, pid); err != nil {
		return fmt.Errorf("move %d back to %s: %w", pid, dir, err)
	}
	return nil
}
