package iso

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Optional levers a host may lack. A missing one is never a stage failure:
// the session runs with what the host has and says what it went without
// (Session.Describe).
const (
	// LeverWeight is the staging cgroup's proportional I/O share.
	LeverWeight = "weight"
	// LeverScheduler is the disk scheduler a policy asks for (idle-bfq).
	LeverScheduler = "scheduler"
	// LeverGovernor is the feedback loop that steers a lever.
	LeverGovernor = "governor"
)

// ErrNoWriteLimit: the staging cgroup has no throttle file, so the write
// limit (and a governor steering it) is not available on this host.
var ErrNoWriteLimit = errors.New("no cgroup write limit on this host")

// weightFiles are the files a weight can be written to, in the order
// github.com/opencontainers/cgroups picks them (fs/blkio.go
// detectWeightFilenames on v1, fs2/io.go setIo on v2). On v1 only bfq
// provides a weight since Linux 5.0 removed CFQ; on v2 io.weight needs
// io.cost (or bfq's io.bfq.weight).
func weightFiles(v2 bool) []string {
	if v2 {
		return []string{"io.bfq.weight", "io.weight"}
	}
	return []string{"blkio.weight", "blkio.bfq.weight"}
}

// throttleFile is the file a write limit is written to.
func throttleFile(v2 bool) string {
	if v2 {
		return "io.max"
	}
	return "blkio.throttle.write_bps_device"
}

// cgroupHas returns the first of files present in dir, "" when none is.
func cgroupHas(dir string, files ...string) string {
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return f
		}
	}
	return ""
}

// missingWeightReason says why a weight cannot be set, naming the files
// looked for and the schedulers the disks offer (bfq provides the weight).
func missingWeightReason(v2 bool, disks []string) string {
	why := "no " + strings.Join(weightFiles(v2), " or ")
	var offered []string
	for _, d := range disks {
		if _, avail, err := ReadScheduler(d); err == nil {
			s := strings.Join(avail, " ")
			if !contains(offered, s) {
				offered = append(offered, s)
			}
		}
	}
	if len(offered) > 0 {
		why += "; schedulers: " + strings.Join(offered, ", ")
	}
	return why
}

// noWriteLimitError names the throttle file the host lacks.
func noWriteLimitError(dir string, v2 bool) error {
	return fmt.Errorf("%w: %s has no %s", ErrNoWriteLimit, dir, throttleFile(v2))
}
