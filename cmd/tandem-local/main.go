// Command tandem-local is the main job of `make run`: it brings up a local
// cluster on this machine (a kube-apiserver backed by a real 3-member etcd,
// one member per master, kube-controller-manager, kube-scheduler and kwok
// kubelets), registers the master and worker pools and their nodes, prints
// them, and keeps running for inspection with kubectl until Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

type options struct {
	masters     int
	workers     int
	dir         string
	keepRunning bool
}

func main() {
	o := options{}
	flag.IntVar(&o.masters, "masters", 3, "control-plane nodes, each with an etcd member")
	flag.IntVar(&o.workers, "workers", 3, "worker nodes (kwok kubelets)")
	flag.StringVar(&o.dir, "dir", "", "directory for logs, data and kubeconfigs (default: a new temp dir)")
	flag.BoolVar(&o.keepRunning, "keep-running", true, "keep the cluster up after setup until Ctrl-C")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "tandem-local: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.masters < 1 || o.workers < 0 {
		return fmt.Errorf("need at least 1 master and 0 or more workers, got masters=%d workers=%d", o.masters, o.workers)
	}
	if o.dir == "" {
		d, err := os.MkdirTemp("", "tandem-local-")
		if err != nil {
			return fmt.Errorf("creating work dir: %w", err)
		}
		o.dir = d
	}
	start := time.Now()
	fmt.Printf("tandem-local: starting a local cluster in %s\n", o.dir)
	c, err := startCluster(ctx, o)
	if c != nil {
		defer c.stop()
	}
	if err != nil {
		return err
	}
	fmt.Printf("tandem-local: cluster up in %.1fs\n\n", time.Since(start).Seconds())
	if err := printCluster(ctx, os.Stdout, c); err != nil {
		return err
	}
	fmt.Printf("\nkubeconfig: %s\n  kubectl --kubeconfig %s get nodes,machineconfigpools\n", c.cp.KubeconfigPath, c.cp.KubeconfigPath)
	if !o.keepRunning {
		return nil
	}
	fmt.Println("tandem-local: running; press Ctrl-C to stop")
	<-ctx.Done()
	fmt.Println("\ntandem-local: stopping")
	return nil
}
