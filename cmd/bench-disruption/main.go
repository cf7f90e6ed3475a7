// Command bench-disruption measures what pre-staging buys: the disruption
// window of a node (cordon to uncordon) for the same OS update in two
// orders of the machine-config-daemon:
//
//   - staged (tandem): the OS is pulled and staged, finalization-locked,
//     before the drain; the window holds the drain, the file writes and the
//     reboot.
//   - stock (a stock MCO's order, --update-order=stock): drain first, then
//     pull and stage, write the files and reboot.
//
// Each order runs in a fresh test/world (tenant control plane, kwok, one
// daemon per node on the rpm-ostree double, the controllers and a workload)
// with OS images of --size and no DPUs. Only the tenant worker pool is
// updated (world.RolloutOptions.Pools), one worker at a time, so a worker's
// window is its own update and nothing else: the run fails if any node of
// another pool was cordoned or rebooted during it. A reboot keeps the node
// down --reboot-s (RHCOS takes about 60 s), in both orders alike. The figure
// of an order is the median, over the workers, of world.Summary.Windows. It
// prints
//
//	bench-disruption: size_gib=G staged_window_s=A stock_window_s=B ratio=R other_disruptions=0 saving_s=S reboot_s=T workers=N
//
// with R = A/B and S = B-A (what pre-staging takes out of each node's
// window), and writes the details as JSON (--json).
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
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

type config struct {
	size     int64
	masters  int
	workers  int
	reboot   time.Duration
	dir      string
	jsonPath string
	keep     bool
	timeout  time.Duration
	orders   []daemon.UpdateOrder
}

func parseFlags() (config, error) {
	var c config
	var size, orders string
	flag.StringVar(&size, "size", "1GiB", "size of each synthesized OS image (the update rewrites all of it); at least 1GiB for the report")
	flag.IntVar(&c.masters, "masters", 1, "tenant masters (odd)")
	flag.IntVar(&c.workers, "workers", 3, "tenant workers, all measured (at least 3 for the report)")
	var rebootS float64
	flag.Float64Var(&rebootS, "reboot-s", 0, "seconds a rebooting node stays down before its daemon starts again (60 on RHCOS; 0: the simulated reboot's own ~0.1 s)")
	flag.StringVar(&c.dir, "dir", "/var/tmp/tandem-bench-disruption", "work directory (one world per order under it), removed at the end unless --keep")
	flag.StringVar(&c.jsonPath, "json", "", "also write the figures as JSON to this file")
	flag.BoolVar(&c.keep, "keep", false, "keep --dir (logs, node roots) after the run")
	flag.DurationVar(&c.timeout, "timeout", 60*time.Minute, "rollout timeout of each order")
	flag.StringVar(&orders, "orders", "staged,stock", "orders to run, in this order")
	klog.InitFlags(nil)
	_ = flag.Set("logtostderr", "false")
	_ = flag.Set("stderrthreshold", "ERROR")
	flag.Parse()
	// The world's libraries log through klog and controller-runtime: keep
	// their errors on stderr, drop the rest (and klog's log files).
	klog.SetOutput(io.Discard)
	ctrllog.SetLogger(klog.NewKlogr())
	var err error
	if c.size, err = parseSize(size); err != nil {
		return c, err
	}
	if rebootS < 0 {
		return c, fmt.Errorf("--reboot-s %g must not be negative", rebootS)
	}
	c.reboot = time.Duration(rebootS * float64(time.Second))
	for _, s := range strings.Split(orders, ",") {
		o, err := daemon.ParseUpdateOrder(strings.TrimSpace(s))
		if err != nil {
			return c, fmt.Errorf("--orders: %w", err)
		}
		c.orders = append(c.orders, o)
	}
	if c.workers < 1 {
		return c, fmt.Errorf("--workers must be at least 1, got %d", c.workers)
	}
	if c.dir == "" {
		return c, errors.New("--dir must not be empty")
	}
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
			if n <= 0 {
				return 0, fmt.Errorf("size %q must be positive", s)
			}
			return int64(n * float64(u.mult)), nil
		}
	}
	return 0, fmt.Errorf("size %q", s)
}

func main() {
	c, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-disruption:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = run(ctx, c)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-disruption:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (retErr error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if !c.keep {
		defer func() {
			if err := os.RemoveAll(c.dir); err != nil && retErr == nil {
				retErr = fmt.Errorf("removing %s: %w", c.dir, err)
			}
		}()
	}
	progress("size %d bytes (%.2f GiB), %d master(s), %d worker(s), reboot %s, orders %v, work dir %s",
		c.size, gib(c.size), c.masters, c.workers, c.reboot, c.orders, c.dir)
	res := result{SizeBytes: c.size, SizeGiB: gib(c.size), Masters: c.masters, Workers: c.workers, RebootS: c.reboot.Seconds(),
		Started: time.Now().UTC(), Command: strings.Join(append([]string{"bench-disruption"}, os.Args[1:]...), " ")}
	for _, o := range c.orders {
		dir := filepath.Join(c.dir, string(o))
		r, err := runOrder(ctx, c, o, dir)
		if r != nil {
			res.Orders = append(res.Orders, *r)
		}
		if err != nil {
			return fmt.Errorf("order %s: %w (logs in %s)", o, err, dir)
		}
		progress("[%s] median window %.2fs over %v; other pools disrupted: %v", o, r.MedianWindowS, r.WindowsS, r.OtherDisruptions)
		if !c.keep {
			// The next world needs the disk and the page cache more than we
			// need this one's logs.
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("removing %s: %w", dir, err)
			}
		}
	}
	res.finish()
	if line := res.Line(); line != "" {
		fmt.Println(line)
	}
	defer func() {
		if retErr == nil && res.OtherDisruptions > 0 {
			retErr = fmt.Errorf("%d disruptions of other pools inside the measured windows: %v", res.OtherDisruptions, res.otherDetail())
		}
	}()
	if c.jsonPath != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(c.jsonPath, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", c.jsonPath, err)
		}
		progress("figures written to %s", c.jsonPath)
	}
	return nil
}

// progress prints a timestamped progress line on stderr, so that stdout
// carries only the result line.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench-disruption: "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }
