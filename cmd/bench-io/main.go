// Command bench-io measures how OS staging disturbs etcd on the same disk,
// under each staging I/O policy of pkg/iso, and prints one line per policy:
//
//	bench-io: policy=NAME fsync_p99_ms=X fsync_max_ms=Y put_p99_ms=Z put_max_ms=W stage_s=S p99_ratio=R1 max_ratio=R2 stage_ratio=R3
//
// It starts a real etcd (embedded) with its data dir on the staging
// sysroot's filesystem, writes to it steadily (default 200 puts/s of 1 KiB),
// and reads etcd_disk_wal_fsync_duration_seconds from etcd's /metrics: first
// idle, then while the rpm-ostree double stages a synthesized OS image under
// each policy. Ratios of p99 and max are against idle; stage_ratio is
// against "none". The figures also go to a JSON file. Run as root on the
// machine's real disk (make bench-io).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso"
	"k8s.io/klog/v2"
)

type config struct {
	dir            string
	rpmOstree      string
	sizeBytes      int64
	policies       []string
	rate           int
	valueSize      int
	idle           time.Duration
	settle         time.Duration
	jsonPath       string
	writeLimit     uint64
	minWriteLimit  uint64
	startLimit     uint64
	targetP99      time.Duration
	sampleInterval time.Duration
	keep           bool
}

func parseFlags() (config, error) {
	var c config
	var policies, size string
	var writeMiB, minMiB, startMiB uint64
	flag.StringVar(&c.dir, "dir", "/var/tmp/tandem-bench-io", "work dir on the disk under test: etcd's data, the sysroot, the registry")
	flag.StringVar(&c.rpmOstree, "rpm-ostree", "", "the rpm-ostree double binary (go build ./test/osdouble/cmd/rpm-ostree); empty: build it into --dir")
	flag.StringVar(&size, "size", "2GiB", "size of the synthesized OS update (at least 2GiB for a meaningful run)")
	flag.StringVar(&policies, "policies", strings.Join(iso.PolicyNames(), ","), "policies to measure, in order (none must be among them for stage_ratio)")
	flag.IntVar(&c.rate, "rate", 200, "etcd puts per second")
	flag.IntVar(&c.valueSize, "value-size", 1024, "bytes per put")
	flag.DurationVar(&c.idle, "idle", 30*time.Second, "length of the idle baseline")
	flag.DurationVar(&c.settle, "settle", 10*time.Second, "quiet time before each phase (after removing the previous sysroot)")
	flag.StringVar(&c.jsonPath, "json", "/var/tmp/tandem-bench-io.json", "where to write the JSON figures")
	flag.Uint64Var(&writeMiB, "write-limit-mib", iso.DefaultWriteLimit>>20, "cgroup-throttle's limit and the governor's ceiling, MiB/s")
	flag.Uint64Var(&minMiB, "min-write-limit-mib", iso.DefaultMinWriteLimit>>20, "the governor's floor, MiB/s")
	flag.Uint64Var(&startMiB, "start-write-limit-mib", 0, "the governor's first limit, MiB/s (0: pkg/iso's default)")
	flag.DurationVar(&c.targetP99, "target-p99", iso.DefaultTargetP99, "the governor's target WAL fsync p99")
	flag.DurationVar(&c.sampleInterval, "interval", iso.DefaultSampleInterval, "the governor's sample interval")
	flag.BoolVar(&c.keep, "keep", false, "keep the work dir")
	klog.InitFlags(nil)
	flag.Parse()
	var err error
	if c.sizeBytes, err = parseSize(size); err != nil {
		return c, err
	}
	c.policies = strings.Split(policies, ",")
	for _, p := range c.policies {
		if _, err := iso.ParsePolicy(p, iso.Options{Sysroot: "/"}); err != nil {
			return c, err
		}
	}
	c.writeLimit, c.minWriteLimit, c.startLimit = writeMiB<<20, minMiB<<20, startMiB<<20
	return c, nil
}

func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"", 1}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			var n float64
			if _, err := fmt.Sscanf(strings.TrimSuffix(s, u.suffix), "%g", &n); err != nil {
				return 0, fmt.Errorf("size %q: %w", s, err)
			}
			return int64(n * float64(u.mult)), nil
		}
	}
	return 0, fmt.Errorf("size %q", s)
}

func main() {
	c, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-io:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-io:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (err error) {
	if os.Geteuid() != 0 {
		return errors.New("must run as root (I/O classes, cgroups, the disk scheduler)")
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	dev, err := iso.DeviceOf(c.dir)
	if err != nil {
		return err
	}
	// Whatever happens below, the disks' schedulers are put back as found.
	restore, err := snapshotSchedulers(dev.Disks)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, restore()) }()
	if !c.keep {
		defer os.RemoveAll(c.dir)
	}
	b, err := newBench(ctx, c, dev)
	if err != nil {
		return err
	}
	defer b.close()
	report, err := b.measure(ctx)
	if report != nil {
		printLines(report)
		if werr := writeJSON(c.jsonPath, report); werr != nil {
			err = errors.Join(err, werr)
		} else {
			fmt.Printf("bench-io: json=%s\n", c.jsonPath)
		}
	}
	return err
}

// snapshotSchedulers records the disks' schedulers and returns a function
// that writes them back.
func snapshotSchedulers(disks []string) (func() error, error) {
	was := map[string]string{}
	for _, d := range disks {
		cur, _, err := iso.ReadScheduler(d)
		if err != nil {
			return nil, err
		}
		was[d] = cur
	}
	return func() error {
		var errs []error
		for d, s := range was {
			if cur, _, _ := iso.ReadScheduler(d); cur != s {
				errs = append(errs, os.WriteFile(iso.SchedulerPath(d), []byte(s), 0))
			}
		}
		return errors.Join(errs...)
	}, nil
}

func printLines(r *report) {
	for _, p := range r.Policies {
		fmt.Printf("bench-io: policy=%s fsync_p99_ms=%.2f fsync_max_ms=%.0f put_p99_ms=%.2f put_max_ms=%.1f stage_s=%.1f p99_ratio=%.2f max_ratio=%.2f stage_ratio=%.2f\n",
			p.Policy, p.FsyncP99Ms, p.FsyncMaxMs, p.PutP99Ms, p.PutMaxMs, p.StageS, p.P99Ratio, p.MaxRatio, p.StageRatio)
	}
}

func writeJSON(path string, r *report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
