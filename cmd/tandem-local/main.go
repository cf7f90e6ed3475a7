// Command tandem-local is the main job of `make run`. On one machine it
// starts a tenant cluster whose kube-apiserver is backed by a real 3-member
// etcd (one member per master), tenant workers some of which carry a DPU, an
// infra cluster with one dpu-worker node per DPU, kwok kubelets, one
// machine-config-daemon per node on the rpm-ostree double, both clusters'
// machine-config-controllers and a Deployment with a PDB; then it publishes
// a new synthesized OS image plus a MachineConfig file change to both
// clusters and rolls it out, showing a live table and a summary. A rollout
// that cannot finish (every node of a pool failing for --failed-timeout, or
// no node's annotations changing for --stall-timeout) stops with the
// distinct reasons the nodes fail for and a non-zero exit.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/test/world"
)

func main() {
	var o world.Options
	var keepRunning bool
	var timeout, tableEvery time.Duration
	var ro world.RolloutOptions
	var imageMiB int64
	flag.StringVar(&o.Dir, "dir", "", "directory for logs, node roots and kubeconfigs (default: a new temp dir)")
	flag.IntVar(&o.Masters, "masters", 3, "tenant masters, each with an etcd member")
	flag.IntVar(&o.Workers, "workers", 6, "tenant workers")
	flag.IntVar(&o.DPUs, "dpus", 3, "workers that carry a DPU (one infra dpu-worker node each)")
	flag.Int64Var(&imageMiB, "image-mib", 64, "size of each synthesized OS image in MiB")
	flag.StringVar(&o.IOPolicy, "io-policy", iso.DefaultPolicyName(), "staging I/O policy of the daemons, with its governor's target if wanted (adaptive@3x); the daemon's default unless set (none: no cgroup, no host lock, every node staging at once)")
	flag.IntVar(&o.WorkerMaxUnavailable, "worker-max-unavailable", 2, "maxUnavailable of the tenant worker pool")
	flag.BoolVar(&keepRunning, "keep-running", false, "keep both clusters up after the rollout, for kubectl, until Ctrl-C")
	flag.DurationVar(&timeout, "timeout", 20*time.Minute, "give up on the rollout after this long")
	flag.DurationVar(&tableEvery, "table-every", 3*time.Second, "how often to print the live table")
	flag.DurationVar(&ro.FailedTimeout, "failed-timeout", 2*time.Minute, "stop, saying why, once every node of a pool has been failing (Degraded, Unreconcilable or its stage failing) this long; 0: never")
	flag.DurationVar(&ro.StallTimeout, "stall-timeout", 10*time.Minute, "stop, saying why, once no node's annotations changed for this long; 0: never")
	klog.InitFlags(nil)
	_ = flag.Set("logtostderr", "false")
	_ = flag.Set("stderrthreshold", "ERROR")
	flag.Parse()
	o.ImageBytes = imageMiB << 20
	o.Logf = func(f string, a ...any) {
		fmt.Printf("%s "+f+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After Ctrl-C the world stops in parallel, each part with a short
		// grace. Should that take more than stopBound, or on a second Ctrl-C,
		// exit at once: the framework's reaper kills what is left.
		<-ctx.Done()
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		select {
		case <-again:
			fmt.Fprintln(os.Stderr, "tandem-local: interrupted again; exiting, leftovers are killed")
		case <-time.After(stopBound):
			fmt.Fprintf(os.Stderr, "tandem-local: stopping took more than %s; exiting, leftovers are killed\n", stopBound)
		}
		os.Exit(130)
	}()
	ro.Table, ro.TableEvery, ro.Timeout = os.Stdout, tableEvery, timeout
	if err := run(ctx, o, ro, keepRunning); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Println("tandem-local: interrupted; everything it started is stopped")
			return
		}
		fmt.Fprintf(os.Stderr, "tandem-local: %v\n", err)
		os.Exit(1)
	}
}

// stopBound bounds the teardown after Ctrl-C (the README promises 15 s).
const stopBound = 12 * time.Second

func run(ctx context.Context, o world.Options, ro world.RolloutOptions, keepRunning bool) error {
	start := time.Now()
	w, err := world.Start(ctx, o)
	if err != nil {
		return err
	}
	defer w.Stop()
	fmt.Printf("tandem-local: %d nodes up in %.0fs (logs and node roots in %s)\n", len(w.Order), time.Since(start).Seconds(), w.Opts.Dir)
	for name, path := range w.KubeconfigPaths() {
		fmt.Printf("  %s: kubectl --kubeconfig %s get nodes,machineconfigpools\n", name, path)
	}
	sum, err := w.Rollout(ctx, ro)
	if sum != nil {
		sum.Print(os.Stdout)
	}
	if stuck, ok := errors.AsType[*world.Stuck](err); ok {
		printStuck(os.Stdout, stuck)
	}
	if err != nil {
		return err
	}
	if v := sum.Violations(); v > 0 {
		return fmt.Errorf("%d invariants violated", v)
	}
	if keepRunning {
		fmt.Println("tandem-local: rollout done; clusters keep running for kubectl. Ctrl-C stops everything.")
		<-ctx.Done()
	}
	return nil
}

// printStuck says once why a stuck rollout's nodes fail: each distinct
// reason with the nodes it affects.
func printStuck(out io.Writer, s *world.Stuck) {
	fmt.Fprintf(out, "\ntandem-local: stopping: %s\n", s.Why)
	if len(s.Reasons) == 0 {
		fmt.Fprintln(out, "why: no node reports a failure (no Degraded state, no stage failure)")
	}
	for _, r := range s.Reasons {
		fmt.Fprintln(out, "why:", r.Line(0))
	}
}
