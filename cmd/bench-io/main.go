// Command bench-io measures how OS staging disturbs etcd on the same disk,
// with the knobs the daemon sets in production (the disk's writeback
// levers, the writer's cgroup, the repo option). It starts a real etcd
// (embedded) with its data dir on the staging sysroot's filesystem, writes
// to it steadily (default 200 puts/s of 1 KiB), and reads
// etcd_disk_wal_fsync_duration_seconds from etcd's /metrics: idle before,
// then --trials rounds in which every arm stages a synthesized OS image once
// (the order rotates each round, so the trials interleave), then idle
// after. An arm is a policy (--policies: by default none and writeback, the
// ends of the curve, and the default policy with its default target) or the
// governed policy at one target of the frontier (--targets, multiples of
// the idle p99 measured before the trials, or latencies). A run whose idle
// p99 drifted more than --max-idle-drift times between the two idle phases
// is refused (exit 3): the machine's load changed under it. Per arm it
// prints the median over trials and the spread (min-max):
//
//	bench-io: frontier target_ms=T trials=N p99_ratio=M (LO-HI) max_ratio=M (LO-HI) stage_ratio=M (LO-HI) held=K/N ...
//	bench-io: frontier policy=NAME trials=N p99_ratio=M (LO-HI) max_ratio=M (LO-HI) stage_ratio=M (LO-HI) ...
//
// p99_ratio and max_ratio are etcd's WAL fsync p99 and max against idle (the
// mean of both idle phases), stage_ratio is the staging time against "none"
// in the same round, held counts the trials whose p99 stayed under the
// target. It then names the knee (the lowest target whose median stage is
// at most 2x none's), judges the default against the goal and writes the
// curve as an SVG (--svg). Run as root on the machine's real disk (make
// bench-io); see docs/benchmarks.md.
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
	"slices"
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
	targets        []targetSpec
	governed       string
	svgPath        string
	trials         int
	rate           int
	valueSize      int
	idle           time.Duration
	settle         time.Duration
	maxIdleDrift   float64
	jsonPath       string
	writeLimit     uint64
	minWriteLimit  uint64
	startLimit     uint64
	dirtyLimit     uint64
	wbt            time.Duration
	requestSizeKB  uint64
	steer          string
	targetP99      time.Duration
	sampleInterval time.Duration
	keep           bool
	seriesInterval time.Duration
	seriesDir      string
}

// exitRefused is the exit code of a run refused for idle drift.
const exitRefused = 3

func parseFlags() (config, error) {
	var c config
	var policies, targets, size string
	var writeMiB, minMiB, startMiB, dirtyMiB uint64
	flag.StringVar(&c.dir, "dir", "/var/tmp/tandem-bench-io", "work dir on the disk under test: etcd's data, the sysroot, the registry")
	flag.StringVar(&c.rpmOstree, "rpm-ostree", "", "the rpm-ostree double binary (go build ./test/osdouble/cmd/rpm-ostree); empty: build it into --dir")
	flag.StringVar(&size, "size", "1GiB", "size of the synthesized OS update (at least 1GiB for a meaningful run)")
	flag.StringVar(&policies, "policies", strings.Join([]string{iso.PolicyNone, iso.PolicyWriteback, iso.DefaultPolicyName()}, ","),
		fmt.Sprintf("policies to stage under, each with its own settings (none must be among them for stage_ratio; the default policy %s runs with its default target); any of %s",
			iso.DefaultPolicyName(), strings.Join(iso.PolicyNames(), ",")))
	flag.StringVar(&targets, "targets", "1.5x,2x,3x,5x,10x", "the frontier: targets of the governed policy, as multiples of the idle p99 measured before the trials (2x) or latencies (3ms); empty: none")
	flag.StringVar(&c.governed, "governed", iso.DefaultPolicyName(), "the governed policy whose target --targets sweeps")
	flag.StringVar(&c.svgPath, "svg", "/var/tmp/tandem-bench-io-frontier.svg", "where to write the frontier's plot (empty: nowhere)")
	flag.IntVar(&c.trials, "trials", 3, "rounds; each stages once under every arm, in a rotated order (at least 3 for the report)")
	flag.IntVar(&c.rate, "rate", 200, "etcd puts per second")
	flag.IntVar(&c.valueSize, "value-size", 1024, "bytes per put")
	flag.DurationVar(&c.idle, "idle", 30*time.Second, "length of each idle phase (before and after the trials)")
	flag.DurationVar(&c.settle, "settle", 10*time.Second, "quiet time before each phase (after removing the previous sysroot)")
	flag.Float64Var(&c.maxIdleDrift, "max-idle-drift", 2, "refuse the run when idle fsync or put p99 differs by more than this factor between the idle phases")
	flag.StringVar(&c.jsonPath, "json", "/var/tmp/tandem-bench-io.json", "where to write the JSON figures")
	flag.Uint64Var(&writeMiB, "write-limit-mib", iso.DefaultWriteLimit>>20, "cgroup-throttle's limit and the write-limit governor's ceiling, MiB/s")
	flag.Uint64Var(&minMiB, "min-write-limit-mib", iso.DefaultMinWriteLimit>>20, "the write-limit governor's floor, MiB/s")
	flag.Uint64Var(&startMiB, "start-write-limit-mib", 0, "the write-limit governor's first limit, MiB/s (0: pkg/iso's default)")
	flag.Uint64Var(&dirtyMiB, "dirty-limit-mib", iso.DefaultDirtyLimit>>20, "per-BDI dirty limit of the writeback policies (and the dirty-limit governor's start), MiB")
	flag.DurationVar(&c.wbt, "wbt", iso.DefaultWBTLatency, "wbt_lat_usec target of the writeback policies")
	flag.Uint64Var(&c.requestSizeKB, "request-size-kb", iso.DefaultRequestSizeKB, "max_sectors_kb of the writeback policies")
	flag.StringVar(&c.steer, "steer", "", fmt.Sprintf("lever the adaptive policies' governor moves (%s; empty: each policy's own)", strings.Join(iso.SteerableLevers(), ", ")))
	flag.DurationVar(&c.targetP99, "target-p99", 0, "the target WAL fsync p99 of governed policies named in --policies (0: the default rule, a multiple of the idle p99 measured at the stage's start)")
	flag.DurationVar(&c.sampleInterval, "interval", iso.DefaultSampleInterval, "the governor's sample interval")
	flag.BoolVar(&c.keep, "keep", false, "keep the work dir")
	flag.DurationVar(&c.seriesInterval, "series-interval", time.Second, "how often each trial's etcd fsync histogram is recorded (the JSON's series)")
	flag.StringVar(&c.seriesDir, "series-dir", "", "also write each trial's series as a file here (the governor's testdata format)")
	klog.InitFlags(nil)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage of bench-io (as root, on the disk under test):\n\n"+
			"A default run (1 GiB; none, writeback, the default and 5 targets; 3 rounds) takes about %d minutes at most\n"+
			"(every governed stage at its floor); estimate other runs with the same flags plus --estimate.\n\n", estimateMinutes(defaultEstimate()))
		flag.PrintDefaults()
	}
	estimate := flag.Bool("estimate", false, "print the run's estimated duration and exit")
	plotJSON := flag.String("plot-json", "", "write --svg from an earlier run's --json and exit (nothing is measured)")
	flag.Parse()
	var err error
	if c.sizeBytes, err = parseSize(size); err != nil {
		return c, err
	}
	if c.trials < 1 {
		return c, fmt.Errorf("--trials %d: want at least 1", c.trials)
	}
	if c.maxIdleDrift < 1 {
		return c, fmt.Errorf("--max-idle-drift %g: want at least 1", c.maxIdleDrift)
	}
	if c.policies = strings.Split(policies, ","); policies == "" {
		c.policies = nil
	}
	if c.targets, err = parseTargets(targets); err != nil {
		return c, err
	}
	if len(c.policies)+len(c.targets) == 0 {
		return c, errors.New("nothing to stage under: --policies and --targets are both empty")
	}
	c.writeLimit, c.minWriteLimit, c.startLimit, c.dirtyLimit = writeMiB<<20, minMiB<<20, startMiB<<20, dirtyMiB<<20
	for i, p := range c.policies {
		if slices.Contains(c.policies[:i], p) {
			return c, fmt.Errorf("policy %s listed twice", p)
		}
		if _, err := iso.ParsePolicy(p, c.policyOptions("/", nil)); err != nil {
			return c, err
		}
	}
	if len(c.targets) > 0 {
		p, err := iso.ParsePolicy(c.governed, c.policyOptions("/", nil))
		if err != nil {
			return c, fmt.Errorf("--governed: %w", err)
		}
		if !p.Knobs().Governed {
			return c, fmt.Errorf("--governed %s: the policy has no governor (want %s or %s)", c.governed, iso.PolicyAdaptive, iso.PolicyAdaptiveWB)
		}
	}
	if *plotJSON != "" {
		if err := replot(*plotJSON, c.svgPath); err != nil {
			return c, err
		}
		fmt.Printf("bench-io: svg=%s\n", c.svgPath)
		os.Exit(0)
	}
	if *estimate {
		fmt.Printf("bench-io: estimated duration at most about %d min\n", estimateMinutes(c))
		os.Exit(0)
	}
	return c, nil
}

// policyOptions binds a policy to the bench's host the way the daemon binds
// it to a node (cmd/machine-config-daemon), plus the bench's flags.
func (c config) policyOptions(sysroot string, dev *iso.BlockDevice) iso.Options {
	return iso.Options{
		Sysroot:         sysroot,
		Device:          dev,
		StateDir:        filepath.Join(c.dir, "iso-state"),
		CgroupParent:    "tandem-bench-io",
		WriteLimit:      c.writeLimit,
		MinWriteLimit:   c.minWriteLimit,
		StartWriteLimit: c.startLimit,
		DirtyLimit:      c.dirtyLimit,
		WBTLatency:      c.wbt,
		RequestSizeKB:   c.requestSizeKB,
		Steer:           c.steer,
		TargetP99:       c.targetP99,
		SampleInterval:  c.sampleInterval,
	}
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

// errRefused marks a run refused for idle drift.
var errRefused = errors.New("refused")

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
		if errors.Is(err, errRefused) {
			os.Exit(exitRefused)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (err error) {
	if os.Geteuid() != 0 {
		return errors.New("must run as root (sysfs levers, I/O classes, cgroups, the disk scheduler)")
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	dev, err := iso.DeviceOf(c.dir)
	if err != nil {
		return err
	}
	// A bench killed by SIGKILL left its knobs set: the daemon's own restore
	// puts them back before anything is measured.
	if restored, err := iso.RestoreInterrupted(ctx, c.policyOptions("", nil)); err != nil {
		return fmt.Errorf("restore the knobs an earlier run left: %w", err)
	} else if len(restored) > 0 {
		fmt.Fprintf(os.Stderr, "bench-io: restored %d knobs an interrupted earlier run left\n", len(restored))
	}
	if !c.keep {
		defer os.RemoveAll(c.dir)
	}
	fmt.Printf("bench-io: %d arms x %d rounds of %s; estimated at most about %d min\n", len(c.arms()), c.trials, formatSize(c.sizeBytes), estimateMinutes(c))
	b, err := newBench(ctx, c, dev)
	if err != nil {
		return err
	}
	defer b.close()
	r, err := b.measure(ctx)
	if r != nil {
		summarize(r, c.maxIdleDrift)
		printReport(r)
		if werr := writeJSON(c.jsonPath, r); werr != nil {
			err = errors.Join(err, werr)
		} else {
			fmt.Printf("bench-io: json=%s\n", c.jsonPath)
		}
		if c.svgPath != "" {
			if werr := writeSVG(c.svgPath, r); werr != nil {
				err = errors.Join(err, werr)
			} else {
				fmt.Printf("bench-io: svg=%s\n", c.svgPath)
			}
		}
		if err == nil && r.Refused != "" {
			err = fmt.Errorf("%w: %s", errRefused, r.Refused)
		}
	}
	return err
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

func formatSize(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%gGiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%gMiB", float64(n)/(1<<20))
}

// replot redraws the frontier's SVG from a run's JSON report.
func replot(jsonPath, svgPath string) error {
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return err
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %w", jsonPath, err)
	}
	if svgPath == "" {
		return errors.New("--plot-json needs --svg")
	}
	return writeSVG(svgPath, &r)
}
