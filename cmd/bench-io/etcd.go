package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdServer is a real single-member etcd (embedded), its data on the disk
// under test.
type etcdServer struct {
	e          *embed.Etcd
	ClientURL  string
	MetricsURL string
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}

func startEtcd(ctx context.Context, dir string) (*etcdServer, error) {
	cfg := embed.NewConfig()
	cfg.Name = "bench"
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.LogLevel = "error"
	client, err1 := freeURL()
	peer, err2 := freeURL()
	metrics, err3 := freeURL()
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("pick etcd ports: %v %v %v", err1, err2, err3)
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.ListenMetricsUrls = []url.URL{*metrics}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd: %w", err)
	case <-ctx.Done():
		e.Close()
		return nil, ctx.Err()
	}
	return &etcdServer{e: e, ClientURL: client.String(), MetricsURL: metrics.String() + "/metrics"}, nil
}

func (s *etcdServer) Close() { s.e.Close() }

// putLoad writes steadily, open loop: one put of valueSize bytes every
// 1/rate s whatever the latency of earlier ones, as a kube-apiserver would.
type putLoad struct {
	cli       *clientv3.Client
	rate      int
	valueSize int
	results   chan putResult
}

type putResult struct {
	at      time.Time
	latency time.Duration
	err     error
}

func newPutLoad(clientURL string, rate, valueSize int) (*putLoad, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	return &putLoad{cli: cli, rate: rate, valueSize: valueSize, results: make(chan putResult, 1<<16)}, nil
}

// run issues puts until ctx ends. At most 2 s worth of puts may be in
// flight; beyond that it skips a tick (and counts it as an error).
func (p *putLoad) run(ctx context.Context) {
	value := string(make([]byte, p.valueSize))
	t := time.NewTicker(time.Second / time.Duration(p.rate))
	defer t.Stop()
	inflight := make(chan struct{}, 2*p.rate)
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		select {
		case inflight <- struct{}{}:
		default:
			p.results <- putResult{at: time.Now(), err: fmt.Errorf("too many puts in flight")}
			continue
		}
		key := fmt.Sprintf("/bench/%d", i%10000)
		go func() {
			defer func() { <-inflight }()
			start := time.Now()
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			_, err := p.cli.Put(cctx, key, value)
			cancel()
			p.results <- putResult{at: start, latency: time.Since(start), err: err}
		}()
	}
}

func (p *putLoad) Close() error { return p.cli.Close() }
