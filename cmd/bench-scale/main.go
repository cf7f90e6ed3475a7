// Command bench-scale measures tandem at cluster scale, in two parts.
//
// The planner: node.Plan on one pool mid-rollout (test/scale/planfixture)
// at 500, 5,000 and 20,000 nodes, interleaved trials, the median per size
// and the ratios between sizes (the slope):
//
//	bench-scale: planner nodes=N plan_ms=M spread_ms=A..B trials=T
//	bench-scale: planner slope exponent=K ...
//
// The rollout: one real kube-apiserver and etcd with --nodes kwok Nodes in
// the tenant worker pool, the machine-config-controller binary as in
// production, one simulated daemon per node (the real daemon loop and API
// client in process, simulated OS and reboots), and for --dpus of the
// workers a DPU in an infra cluster with its own controller. A new OS image
// and file roll out with maxUnavailable --max-unavailable:
//
//	bench-scale: nodes= rollout_s= plan_p99_ms= writes_per_node= watch_events= controller_rss_mib= controller_cpu_s=
//
// followed by detail lines and, with --json, everything as JSON. See
// docs/benchmarks.md for what each figure counts. Everything listens on
// loopback, and every process it starts dies with it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/tandem-mco/tandem/test/scale"
)

type config struct {
	world         scale.Options
	dir           string
	keep          bool
	jsonPath      string
	timeout       time.Duration
	plannerSizes  []int
	plannerTrials int
	plannerMin    time.Duration
	skipPlanner   bool
	skipRollout   bool
}

func parseFlags() (config, error) {
	var c config
	var sizes string
	flag.IntVar(&c.world.Workers, "nodes", 1000, "tenant worker nodes")
	flag.IntVar(&c.world.DPUs, "dpus", -1, "workers with a DPU (every other one), each a node of an infra cluster; -1: half the workers, 0: no infra cluster")
	flag.StringVar(&c.world.MaxUnavailable, "max-unavailable", "10%", "maxUnavailable of the pools (int or percent)")
	flag.DurationVar(&c.world.Sim.StageTime, "stage-time", 30*time.Second, "simulated time to stage an OS")
	flag.DurationVar(&c.world.Sim.RebootTime, "reboot-time", 20*time.Second, "simulated time a node is down for a reboot")
	flag.DurationVar(&c.world.Sim.Resync, "daemon-resync", time.Minute, "the daemons' --resync (production default)")
	flag.BoolVar(&c.world.InfraUpdate, "infra-update", false, "also roll a new config out to the DPU pool at the same time")
	flag.StringVar(&c.dir, "dir", defaultDir(), "work directory (control planes, audit logs, node roots), removed at the end unless --keep; tmpfs keeps etcd's fsyncs out of the figures")
	flag.BoolVar(&c.keep, "keep", false, "keep --dir after the run")
	flag.StringVar(&c.world.AuditLevel, "audit-level", "Metadata", "audit level of writes: Metadata, or Request to keep their bodies in <dir>/<cluster>/audit.log (with --keep)")
	flag.StringVar(&c.world.ControllerProfile, "controller-profile", "", "write the tenant controller's CPU profile of the rollout's first --profile-seconds here (go tool pprof FILE)")
	flag.Func("controller-arg", "a flag added to both machine-config-controllers (repeat it), e.g. --controller-arg=--kube-api-qps=200", func(v string) error {
		if !strings.HasPrefix(v, "--") {
			return fmt.Errorf("want a flag such as --kube-api-qps=200, got %q", v)
		}
		c.world.ControllerArgs = append(c.world.ControllerArgs, v)
		return nil
	})
	flag.IntVar(&c.world.ProfileSeconds, "profile-seconds", 60, "length of --controller-profile")
	flag.StringVar(&c.jsonPath, "json", "", "also write the figures as JSON to this file")
	flag.DurationVar(&c.timeout, "timeout", 60*time.Minute, "bound of the rollout")
	flag.StringVar(&sizes, "planner-sizes", "500,5000,20000", "pool sizes of the planner benchmark")
	flag.IntVar(&c.plannerTrials, "planner-trials", 7, "interleaved trials per planner size")
	flag.DurationVar(&c.plannerMin, "planner-min-time", 500*time.Millisecond, "least planning time per size and trial")
	flag.BoolVar(&c.skipPlanner, "skip-planner", false, "skip the planner benchmark")
	flag.BoolVar(&c.skipRollout, "skip-rollout", false, "skip the rollout (planner only)")
	klog.InitFlags(nil)
	_ = flag.Set("logtostderr", "false")
	_ = flag.Set("stderrthreshold", "ERROR")
	flag.Parse()
	// The daemons and the framework log through klog and controller-runtime:
	// keep their errors on stderr, drop the rest.
	klog.SetOutput(io.Discard)
	ctrllog.SetLogger(klog.NewKlogr())
	if c.world.DPUs < 0 {
		c.world.DPUs = c.world.Workers / 2
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("--planner-sizes: %q is not a positive number", s)
		}
		c.plannerSizes = append(c.plannerSizes, n)
	}
	switch {
	case c.world.Workers < 1:
		return c, fmt.Errorf("--nodes must be at least 1, got %d", c.world.Workers)
	case c.world.DPUs > (c.world.Workers+1)/2:
		return c, fmt.Errorf("--dpus must be at most half the nodes (%d), got %d", (c.world.Workers+1)/2, c.world.DPUs)
	case c.plannerTrials < 1:
		return c, fmt.Errorf("--planner-trials must be at least 1")
	case c.dir == "":
		return c, errors.New("--dir must not be empty")
	}
	return c, nil
}

// defaultDir is on tmpfs when there is one: the control planes' etcd and
// the daemons' records fsync, and a shared disk's latency is not what this
// bench measures.
func defaultDir() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm/tandem-bench-scale"
	}
	return os.TempDir() + "/tandem-bench-scale"
}

type output struct {
	Planner *scale.PlannerReport `json:"planner,omitempty"`
	Rollout *scale.Report        `json:"rollout,omitempty"`
}

func main() {
	c, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	out, err := run(ctx, c)
	if c.jsonPath != "" && (out.Planner != nil || out.Rollout != nil) {
		b, jerr := json.MarshalIndent(out, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(c.jsonPath, b, 0o644)
		}
		if jerr != nil {
			fmt.Fprintln(os.Stderr, "bench-scale: writing JSON:", jerr)
			if err == nil {
				err = jerr
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
	if out.Rollout != nil && len(out.Rollout.Violations) > 0 {
		fmt.Fprintln(os.Stderr, "bench-scale: violations:", strings.Join(out.Rollout.Violations, "; "))
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (output, error) {
	var out output
	if !c.skipPlanner {
		logf("bench-scale: planner benchmark at %v nodes, %d interleaved trials", c.plannerSizes, c.plannerTrials)
		r := scale.BenchPlanner(c.plannerSizes, c.plannerTrials, c.plannerMin)
		out.Planner = &r
		for _, l := range r.Lines() {
			fmt.Println(l)
		}
	}
	if c.skipRollout {
		return out, nil
	}
	cleared, err := prepareWorkDir(c.dir)
	if err != nil {
		return out, err
	}
	if cleared {
		logf("bench-scale: cleared %s, which an earlier run left", c.dir)
	}
	// The control planes' certificates and etcd data (envtest) go to TMPDIR.
	tmp := c.dir + "/tmp"
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return out, err
	}
	if !c.keep {
		defer os.RemoveAll(c.dir)
	}
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return out, err
	}
	c.world.Dir = c.dir
	if len(c.world.ControllerArgs) > 0 {
		logf("bench-scale: the controllers run with %s added", strings.Join(c.world.ControllerArgs, " "))
	}
	c.world.Logf = logf
	start := time.Now()
	w, err := scale.Start(ctx, c.world)
	if err != nil {
		return out, err
	}
	defer w.Stop()
	logf("bench-scale: world up in %.0fs (%s)", time.Since(start).Seconds(), c.dir)
	r, err := w.Rollout(ctx, c.timeout)
	if err != nil {
		return out, err
	}
	out.Rollout = &r
	fmt.Println(r.Line())
	for _, l := range r.DetailLines() {
		fmt.Println(l)
	}
	return out, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
