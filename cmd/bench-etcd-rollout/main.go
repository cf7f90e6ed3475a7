// Command bench-etcd-rollout rolls a real 3-member etcd "control plane" the
// way a node update does (stop a member, wait as for a reboot, restart it,
// wait until it is healthy) while a client writes steadily, and compares
// member orderings: random, followers-first, and the node controller's
// followers-first-moveleader (its steps come from node.Plan and its MoveLeader
// is pkg/etcd's). A member is stopped with SIGTERM (an orderly reboot: etcd
// hands its leadership over itself) or SIGKILL (a power cut: the others wait
// for their election timeout); --stop picks one or both. For each stop signal
// and ordering it prints, over the rollouts:
//
//	bench-etcd: stop=SIG ordering=NAME rollouts=K leader_changes=N failed_writes=F failed_writes_max=G put_p99_ms=P put_max_ms=M
//
// leader_changes, failed_writes and put_p99_ms are means per rollout,
// failed_writes_max the worst rollout and put_max_ms the largest put of all.
//
// etcd comes from $TANDEM_TOOLS_BIN (make tools).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/test/framework"
)

type config struct {
	stops      []string
	rollouts   int
	members    int
	down       time.Duration
	settle     time.Duration
	rate       int
	putTimeout time.Duration
	orderings  []string
	dir        string
	seed       uint64
	retry      bool
}

func main() {
	klog.InitFlags(nil)
	var c config
	var ords, stops string
	flag.StringVar(&stops, "stop", "SIGTERM,SIGKILL", "how a member's master goes down: SIGTERM (orderly reboot), SIGKILL (power cut), or both")
	flag.IntVar(&c.rollouts, "rollouts", 20, "rollouts per ordering and stop signal (at least 20 for the report)")
	flag.IntVar(&c.members, "members", 3, "etcd members (masters)")
	flag.DurationVar(&c.down, "down", 3*time.Second, "how long a member stays down (the reboot)")
	flag.DurationVar(&c.settle, "settle", time.Second, "pause after each rollout before counting")
	flag.IntVar(&c.rate, "rate", 100, "puts per second")
	flag.DurationVar(&c.putTimeout, "put-timeout", 2*time.Second, "timeout of each put; a put that times out or errs is a failed write")
	flag.StringVar(&ords, "orderings", strings.Join(orderings, ","), "orderings to run")
	flag.StringVar(&c.dir, "dir", "", "work directory for etcd data and logs (default: a temp dir, removed after)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the random ordering")
	flag.BoolVar(&c.retry, "client-retry", true, "the writer retries writes etcd proves it did not apply (pkg/etcd RetryUnapplied); they are counted as dropped_retried")
	flag.Parse()
	c.orderings = strings.Split(ords, ",")
	c.stops = strings.Split(stops, ",")

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-etcd-rollout:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	for _, o := range c.orderings {
		if !slices.Contains(orderings, o) {
			return fmt.Errorf("unknown ordering %q (want some of %v)", o, orderings)
		}
	}
	for _, s := range c.stops {
		if _, ok := stopSignals[s]; !ok {
			return fmt.Errorf("unknown --stop %q (want SIGTERM, SIGKILL or both)", s)
		}
	}
	root := c.dir
	if root == "" {
		d, err := os.MkdirTemp("", "bench-etcd-rollout-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		root = d
	}
	var lines []string
	for _, stop := range c.stops {
		rng := rand.New(rand.NewPCG(c.seed, c.seed+1))
		for _, o := range c.orderings {
			results, err := benchOrdering(ctx, c, stop, o, fmt.Sprintf("%s/%s-%s", root, stop, o), rng)
			if err != nil {
				return fmt.Errorf("stop %s, ordering %s: %w", stop, o, err)
			}
			sum := summarize(stop, o, results)
			sum.ClientRetry = c.retry
			line := sum.String()
			fmt.Println(line)
			lines = append(lines, line)
		}
	}
	// All lines again at the end, together, as the report quotes them.
	fmt.Fprintln(os.Stderr, "bench-etcd-rollout: done")
	for _, l := range lines {
		fmt.Fprintln(os.Stderr, l)
	}
	return nil
}

// stopSignals are the ways a master goes down.
var stopSignals = map[string]func(*framework.EtcdCluster, int) error{
	"SIGTERM": (*framework.EtcdCluster).StopMember,
	"SIGKILL": (*framework.EtcdCluster).KillMember,
}

// benchOrdering runs the rollouts of one ordering on a fresh cluster.
func benchOrdering(ctx context.Context, c config, stop, ordering, dir string, rng *rand.Rand) ([]rolloutResult, error) {
	cluster, err := framework.StartEtcdCluster(ctx, dir, c.members)
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	names := make([]string, c.members)
	for i := range names {
		names[i] = cluster.MemberName(i)
	}
	ec, err := etcd.New(etcd.Config{Endpoints: cluster.ClientURLs()})
	if err != nil {
		return nil, err
	}
	defer ec.Close()
	w := &writer{rate: c.rate, timeout: c.putTimeout}
	cfg := clientv3.Config{Endpoints: cluster.ClientURLs(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()}
	if c.retry {
		cfg.DialOptions = append(cfg.DialOptions, grpc.WithChainUnaryInterceptor(etcd.RetryUnapplied(w.retried)))
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	w.cli = cli

	bctx, cancel := context.WithCancel(ctx)
	lw := newLeaderWatch(cli, cluster.ClientURLs())
	done := make(chan struct{}, 2)
	go func() { w.run(bctx); done <- struct{}{} }()
	go func() { lw.run(bctx, 50*time.Millisecond); done <- struct{}{} }()
	defer func() { cancel(); <-done; <-done }()

	if err := waitHealthy(ctx, ec); err != nil {
		return nil, err
	}
	time.Sleep(c.settle) // warm up the client and the watch
	w.take()
	lw.take()

	var results []rolloutResult
	for r := range c.rollouts {
		if err := rollout(ctx, cluster, ec, stopSignals[stop], ordering, names, c.down, rng); err != nil {
			return nil, fmt.Errorf("rollout %d: %w", r+1, err)
		}
		time.Sleep(c.settle) // let late puts finish and the watch catch up
		lat, failed, retried, errs := w.take()
		res := rolloutResult{LeaderChanges: lw.take(), Writes: len(lat), FailedWrites: failed, DroppedRetried: retried,
			PutP99: percentile(lat, 99), PutMax: percentile(lat, 100)}
		results = append(results, res)
		fmt.Fprintf(os.Stderr, "stop=%s ordering=%s rollout=%d leader_changes=%d writes=%d failed_writes=%d dropped_retried=%d put_p99_ms=%.1f put_max_ms=%.1f errors=%v\n",
			stop, ordering, r+1, res.LeaderChanges, res.Writes, res.FailedWrites, res.DroppedRetried, ms(res.PutP99), ms(res.PutMax), errs)
	}
	return results, nil
}

// rollout reboots every member once, in the ordering's order.
func rollout(ctx context.Context, cluster *framework.EtcdCluster, ec *etcd.Client, stop func(*framework.EtcdCluster, int) error,
	ordering string, names []string, down time.Duration, rng *rand.Rand) error {
	state := newRolloutState(names, rng)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a stuck rollout is a failed benchmark
	defer cancel()
	for !state.finished() {
		st, err := nextStep(ordering, state, ec.Snapshot(rctx))
		if err != nil {
			return err
		}
		switch {
		case st.MoveLeader != "":
			if err := ec.MoveLeader(rctx, st.MoveLeader); err != nil {
				return err
			}
		case st.Reboot != "":
			i := slices.Index(names, st.Reboot)
			if err := stop(cluster, i); err != nil {
				return fmt.Errorf("stopping %s: %w", st.Reboot, err)
			}
			time.Sleep(down)
			if err := cluster.StartMember(rctx, i); err != nil {
				return fmt.Errorf("starting %s: %w", st.Reboot, err)
			}
			if err := waitHealthy(rctx, ec); err != nil {
				return err
			}
			state.done[st.Reboot] = true
		default:
			// Held (e.g. a member still catching up): ask again shortly.
			select {
			case <-rctx.Done():
				return fmt.Errorf("rollout held: %s: %w", st.Wait, rctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// waitHealthy waits until every member is healthy by pkg/etcd's judgement.
func waitHealthy(ctx context.Context, ec *etcd.Client) error {
	for {
		st := ec.Snapshot(ctx)
		healthy := st.Err() == nil
		for _, m := range st.Members() {
			if ok, _ := st.Healthy(m); !ok {
				healthy = false
			}
		}
		if healthy {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("etcd not healthy: %s", st), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
