package governor

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/procfs/blockdevice"
)

// DiskLatency returns the mean completion latency of the write and flush
// requests a device finished between two /proc/diskstats readings. It is the
// governor's signal where no etcd runs locally: a mean, not a p99, so the
// target should be set lower than for etcd's histogram. ok is false when no
// write or flush completed in between.
func DiskLatency(prev, cur blockdevice.IOStats) (lat time.Duration, ok bool) {
	ios := sub(cur.WriteIOs, prev.WriteIOs) + sub(cur.FlushRequestsCompleted, prev.FlushRequestsCompleted)
	if ios == 0 {
		return 0, false
	}
	ms := sub(cur.WriteTicks, prev.WriteTicks) + sub(cur.TimeSpentFlushing, prev.TimeSpentFlushing)
	return time.Duration(float64(ms) / float64(ios) * float64(time.Millisecond)), true
}

func sub(a, b uint64) uint64 {
	if a < b { // counter wrapped or device re-added
		return 0
	}
	return a - b
}

// FindDiskstats returns the line of /proc/diskstats for a device.
func FindDiskstats(fs blockdevice.FS, major, minor uint32) (blockdevice.IOStats, error) {
	all, err := fs.ProcDiskstats()
	if err != nil {
		return blockdevice.IOStats{}, fmt.Errorf("read diskstats: %w", err)
	}
	for _, d := range all {
		if d.MajorNumber == major && d.MinorNumber == minor {
			return d.IOStats, nil
		}
	}
	return blockdevice.IOStats{}, fmt.Errorf("device %d:%d not in diskstats", major, minor)
}

// DiskSampler samples a block device's mean write+flush latency.
type DiskSampler struct {
	FS           blockdevice.FS
	Major, Minor uint32
	last         *blockdevice.IOStats
}

// NewDiskSampler reads the host's /proc/diskstats for device major:minor.
func NewDiskSampler(major, minor uint32) (*DiskSampler, error) {
	fs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("open procfs: %w", err)
	}
	return &DiskSampler{FS: fs, Major: major, Minor: minor}, nil
}

// Sample returns the latency since the previous call; the first call primes.
func (d *DiskSampler) Sample(_ context.Context) (Sample, error) {
	cur, err := FindDiskstats(d.FS, d.Major, d.Minor)
	if err != nil {
		return Sample{}, err
	}
	prev := d.last
	d.last = &cur
	if prev == nil {
		return Sample{}, nil
	}
	lat, ok := DiskLatency(*prev, cur)
	return Sample{P99: lat, Valid: ok}, nil
}
