//go:build integration

package framework

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestAPIServersBehindLB runs three masters' kube-apiservers behind haproxy
// and stops one as a master's shutdown does: clients through the LB, on new
// connections and on one kept-alive connection to that very apiserver, must
// see no failed request, because haproxy takes it out of rotation during
// its shutdown delay. Stopping all three is an outage the LB's clients see.
func TestAPIServersBehindLB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cp := NewControlPlane(t, ControlPlaneOptions{Name: "masters", APIServers: 3})
	if cp.APIServers() != 3 || cp.LBURL() == "" || cp.RESTConfig.Host != cp.LBURL() {
		t.Fatalf("apiservers %d, LB %q, clients use %q", cp.APIServers(), cp.LBURL(), cp.RESTConfig.Host)
	}
	assertKubeconfigServer(t, cp.KubeconfigPath, cp.LBURL())

	fresh := newLBPoller(t, cp, "new connections", true)
	shared := newLBPoller(t, cp, "one kept-alive connection", false)
	// The kept-alive connection must be one to the apiserver we stop.
	shared.pinTo(ctx, t, cp, "master-1")
	pctx, stopPolling := context.WithCancel(ctx)
	var polling sync.WaitGroup
	polling.Go(func() { fresh.run(pctx) })
	polling.Go(func() { shared.run(pctx) })
	defer func() { stopPolling(); polling.Wait() }()
	time.Sleep(3 * time.Second)

	// Watch haproxy through master-1's shutdown, to tell when it took
	// master-1 out of rotation compared to when master-1 exited.
	before := lbServer(ctx, t, cp, "master-1")
	sigterm := time.Now()
	seen := watchLB(ctx, cp, "master-1")
	if err := cp.StopAPIServer(1); err != nil {
		t.Fatal(err)
	}
	exited := time.Since(sigterm)
	if err := awaitLBStatus(ctx, cp, "master-1", "DOWN"); err != nil {
		t.Fatal(err)
	}
	firstFail, down, atDown := seen.stop()
	t.Logf("master-1: SIGTERM, first failed check +%s, DOWN +%s (shutdown delay %s), process gone +%s; haproxy sent it %d new connections after SIGTERM, before DOWN",
		firstFail.Round(time.Millisecond), down.Round(time.Millisecond), apiserverShutdownDelay, exited.Round(time.Millisecond), atDown.Sessions-before.Sessions)
	if down == 0 || down >= exited {
		t.Errorf("haproxy marked master-1 DOWN at +%s, not before its apiserver exited (+%s): clients were sent to a closed port", down, exited)
	}
	if err := cp.StartAPIServer(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := awaitLBStatus(ctx, cp, "master-1", "UP"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	stopPolling()
	polling.Wait()
	for _, p := range []*lbPoller{fresh, shared} {
		t.Log(p.report())
		if p.failed.Load() != 0 {
			t.Errorf("%s: %d requests failed over the stop and start of one apiserver: %s", p.name, p.failed.Load(), p.errors())
		}
	}
	if fresh.rt.reused.Load() != 0 {
		t.Errorf("the new-connections poller reused %d connections", fresh.rt.reused.Load())
	}

	// All three down: the LB has nothing to send requests to.
	var stops sync.WaitGroup
	for i := range cp.APIServers() {
		stops.Go(func() {
			if err := cp.StopAPIServer(i); err != nil {
				t.Error(err)
			}
		})
	}
	stops.Wait()
	probe := lbProbeClient(t, cp)
	err := Await(ctx, "a request through the LB to fail with every apiserver stopped", time.Minute, 500*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			code, body, err := httpGet(rctx, probe, cp.LBURL()+"/api/v1/namespaces/default")
			ss, _ := cp.LBServers(ctx)
			if err != nil {
				t.Logf("with every apiserver stopped: %v; haproxy: %v", err, ss)
				return true, err.Error(), nil
			}
			return false, fmt.Sprintf("HTTP %d %.80s; haproxy: %v", code, body, ss), nil
		})
	if err != nil {
		t.Error(err)
	}
	var starts sync.WaitGroup
	for i := range cp.APIServers() {
		starts.Go(func() {
			if err := cp.StartAPIServer(ctx, i); err != nil {
				t.Error(err)
			}
		})
	}
	starts.Wait()
	for i := range cp.APIServers() {
		if err := awaitLBStatus(ctx, cp, fmt.Sprintf("master-%d", i), "UP"); err != nil {
			t.Error(err)
		}
	}
	if _, err := cp.Kube.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("through the LB after starting every apiserver again: %v", err)
	}
}

// TestAddUserKubeconfigPointsAtLB checks that a user's kubeconfig and REST
// config name the LB, and work.
func TestAddUserKubeconfigPointsAtLB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp := NewControlPlane(t, ControlPlaneOptions{Name: "lbuser", APIServers: 2})
	path, cfg, err := cp.AddUser("someone", "tandem-testers")
	if err != nil {
		t.Fatal(err)
	}
	assertKubeconfigServer(t, path, cp.LBURL())
	if cfg.Host != cp.LBURL() {
		t.Errorf("AddUser's REST config names %s, want the LB %s", cfg.Host, cp.LBURL())
	}
	fromFile, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*rest.Config{fromFile, cfg} {
		k, err := kubernetes.NewForConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		// Any authenticated user may read the version: this proves the TLS
		// (the serving certificate through the LB) and the client certificate.
		if _, err := k.Discovery().ServerVersion(); err != nil {
			t.Errorf("user someone through %s: %v", c.Host, err)
		}
	}
	// Each apiserver also answers on its own URL.
	for i := range cp.APIServers() {
		direct := rest.CopyConfig(cp.RESTConfig)
		direct.Host = cp.APIServerURL(i)
		k, err := kubernetes.NewForConfig(direct)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
			t.Errorf("apiserver %d at %s: %v", i, direct.Host, err)
		}
	}
}

// TestRestartAPIServer restarts a single apiserver (as before there were
// several) and, one after the other, two behind the LB while a client polls
// through it.
func TestRestartAPIServer(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("apiservers=%d", n), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cp := NewControlPlane(t, ControlPlaneOptions{Name: "restart", APIServers: n})
			var p *lbPoller
			pctx, stopPolling := context.WithCancel(ctx)
			var polling sync.WaitGroup
			defer func() { stopPolling(); polling.Wait() }()
			if n > 1 {
				p = newLBPoller(t, cp, "one kept-alive connection", false)
				polling.Go(func() { p.run(pctx) })
			}
			start := time.Now()
			if err := cp.RestartAPIServer(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("restarted %d apiserver(s) in %s", n, time.Since(start).Round(time.Millisecond))
			if _, err := cp.Kube.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
				t.Errorf("after the restart: %v", err)
			}
			// Twice: the second restart stops a process of ours, not envtest's.
			if err := cp.RestartAPIServer(ctx); err != nil {
				t.Fatal(err)
			}
			if p != nil {
				stopPolling()
				polling.Wait()
				t.Log(p.report())
				if p.failed.Load() != 0 {
					t.Errorf("%d requests through the LB failed during rolling restarts: %s", p.failed.Load(), p.errors())
				}
			}
		})
	}
}

func assertKubeconfigServer(t *testing.T, path, want string) {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(kc.Clusters) == 0 {
		t.Fatalf("%s has no cluster", path)
	}
	for name, c := range kc.Clusters {
		if strings.TrimSuffix(c.Server, "/") != want {
			t.Errorf("%s: cluster %s names server %s, want the LB %s", path, name, c.Server, want)
		}
	}
}

// lbPoller GETs /api/v1/namespaces/default through the LB every second
// with client-go, as OpenShift's clients do, and counts what its callers
// see (failed requests) and what its transport saw (attempts client-go
// retried: errors, 429 and 5xx).
type lbPoller struct {
	name      string
	client    kubernetes.Interface
	transport *http.Transport
	rt        *countingTransport

	ok, failed atomic.Int64
	mu         sync.Mutex
	slowest    time.Duration
	errs       []string
}

func newLBPoller(t *testing.T, cp *ControlPlane, name string, newConnections bool) *lbPoller {
	t.Helper()
	cfg := rest.CopyConfig(cp.RESTConfig)
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A transport of its own (client-go shares transports between equal
	// configs), as client-go builds them (HTTP/2 included).
	tr := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsCfg, DisableKeepAlives: newConnections})
	p := &lbPoller{name: name, transport: tr, rt: &countingTransport{base: tr}}
	cfg.TLSClientConfig = rest.TLSClientConfig{}
	cfg.Transport = p.rt
	cfg.Timeout = 30 * time.Second
	if p.client, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *lbPoller) get(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := p.client.CoreV1().Namespaces().Get(rctx, "default", metav1.GetOptions{})
	return err
}

func (p *lbPoller) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		start := time.Now()
		err := p.get(ctx)
		if ctx.Err() != nil {
			return // the test stopped polling; not a failure
		}
		took := time.Since(start)
		p.mu.Lock()
		p.slowest = max(p.slowest, took)
		if err != nil {
			p.failed.Add(1)
			p.errs = append(p.errs, fmt.Sprintf("%s: %v", start.Format("15:04:05.000"), err))
		} else {
			p.ok.Add(1)
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pinTo reconnects until the poller's connection goes to server (haproxy's
// `show sess` names each session's server).
func (p *lbPoller) pinTo(ctx context.Context, t *testing.T, cp *ControlPlane, server string) {
	t.Helper()
	err := Await(ctx, p.name+" connected to "+server, time.Minute, 100*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			p.transport.CloseIdleConnections()
			if err := p.get(ctx); err != nil {
				return false, err.Error(), nil
			}
			local := p.rt.lastLocal()
			sess, err := cp.lb.command(ctx, "show sess")
			if err != nil {
				return false, err.Error(), nil
			}
			for l := range strings.Lines(sess) {
				if strings.Contains(l, " src="+local+" ") {
					return strings.Contains(l, " srv="+server+" "), strings.TrimSpace(l), nil
				}
			}
			return false, "no session from " + local + " in: " + sess, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

func (p *lbPoller) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%s: %d requests ok, %d failed, slowest %s; transport: %d attempts, %d on a reused connection, %d errors, %d answered 429/5xx %v",
		p.name, p.ok.Load(), p.failed.Load(), p.slowest.Round(time.Millisecond),
		p.rt.attempts.Load(), p.rt.reused.Load(), p.rt.errs.Load(), p.rt.rejected.Load(), p.rt.seen())
}

func (p *lbPoller) errors() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.errs, "; ")
}

// countingTransport counts the attempts client-go makes, which its retries
// hide from its callers.
type countingTransport struct {
	base                             http.RoundTripper
	attempts, reused, errs, rejected atomic.Int64
	mu                               sync.Mutex
	local                            string
	problems                         []string
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.attempts.Add(1)
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if i.Reused {
			c.reused.Add(1)
		}
		c.mu.Lock()
		c.local = i.Conn.LocalAddr().String()
		c.mu.Unlock()
	}}
	resp, err := c.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	switch {
	case err != nil:
		c.errs.Add(1)
		c.note(err.Error())
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		c.rejected.Add(1)
		c.note(fmt.Sprintf("HTTP %d Retry-After %q Connection %q", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Connection")))
	}
	return resp, err
}

func (c *countingTransport) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, time.Now().Format("15:04:05.000")+" "+s)
}

func (c *countingTransport) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}

func (c *countingTransport) lastLocal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.local
}

// lbWatch records, from its start, when haproxy first saw a server's check
// fail and when it marked it DOWN.
type lbWatch struct {
	cancel          context.CancelFunc
	done            chan struct{}
	firstFail, down time.Duration
	atDown          LBServer
}

func watchLB(ctx context.Context, cp *ControlPlane, server string) *lbWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &lbWatch{cancel: cancel, done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			ss, _ := cp.LBServers(ctx)
			for _, s := range ss {
				if s.Name != server {
					continue
				}
				if w.firstFail == 0 && s.Status != "UP" {
					w.firstFail = time.Since(start)
				}
				if s.Status == "DOWN" {
					w.down, w.atDown = time.Since(start), s
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return w
}

func (w *lbWatch) stop() (firstFail, down time.Duration, atDown LBServer) {
	w.cancel()
	<-w.done
	return w.firstFail, w.down, w.atDown
}

func lbServer(ctx context.Context, t *testing.T, cp *ControlPlane, name string) LBServer {
	t.Helper()
	ss, err := cp.LBServers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("haproxy has no server %s: %v", name, ss)
	return LBServer{}
}

// awaitLBStatus waits (at most a minute) until haproxy's stats socket
// reports server in status (UP after a passed check).
func awaitLBStatus(ctx context.Context, cp *ControlPlane, server, status string) error {
	return Await(ctx, "haproxy to report "+server+" "+status, time.Minute, 200*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			ss, err := cp.LBServers(ctx)
			if err != nil {
				return false, err.Error(), nil
			}
			for _, s := range ss {
				if s.Name == server {
					return s.Status == status && (status != "UP" || s.Check == "L7OK"), s.String(), nil
				}
			}
			return false, fmt.Sprint(ss), nil
		})
}

// lbProbeClient is a plain HTTPS client of the LB with the admin's
// credentials, a new connection per request and no retries.
func lbProbeClient(t *testing.T, cp *ControlPlane) *http.Client {
	t.Helper()
	tlsCfg, err := rest.TLSConfigFor(cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, DisableKeepAlives: true}, Timeout: 5 * time.Second}
}
