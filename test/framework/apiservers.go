package framework

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// A control plane with ControlPlaneOptions.APIServers > 1 runs one
// kube-apiserver per master, as OpenShift does (a static pod on each
// master, all on the same etcd), behind haproxy (haproxy.go). Apiserver 0
// is the one envtest starts; the others are clones of its command line
// with their own port, so they share its certificates, etcd servers and
// service account keys (and issuer: a token one signs, all accept).

// OpenShift's kube-apiserver shuts down in two steps on SIGTERM:
// --shutdown-delay-duration=70s, during which it serves as before but
// /readyz fails, so that the load balancer in front of the masters takes it
// out of rotation; then --shutdown-send-retry-after=true, which answers
// requests still arriving while in-flight ones drain with 429, Retry-After
// and Connection: close, so clients retry on a new connection, i.e.
// another master (openshift/cluster-kube-apiserver-operator release-4.21 at
// dc1c217c263cd220ddd2ed6fe827a466d47e3ebb, bindata/assets/config/defaultconfig.yaml).
// The delay is there for the LB: "the time needed for an LB to notice and
// remove unhealthy instances might vary by platform" (same commit,
// pkg/operator/configobservation/apiserver/observe_termination_duration.go,
// which raises it to 129s on AWS and lowers it to 0s on single-node
// OpenShift, which has no LB).
//
// 70s would make every master reboot of a test 70 s longer. What matters is
// the order: the LB must mark the apiserver DOWN before its listener
// closes. Our haproxy checks as the MCO's on-prem template does, every 5 s
// and DOWN after 3 failures, so it notices within 15 s; one more interval
// is the margin. (A 5 s delay would close the listener up to 10 s before
// the LB notices: it would send new connections to a closed port.)
const apiserverShutdownDelay = time.Duration(haproxyCheckFall+1) * haproxyCheckInterval

// apiserverTerminationGrace bounds a graceful stop before SIGKILL, as the
// kubelet's terminationGracePeriodSeconds does: OpenShift's 135 s are the
// 70 s delay, 60 s for in-flight requests (the apiserver's default
// --request-timeout) and 5 s "to make sure the potential SIGTERM will be
// sent after the server terminates itself" (same commit,
// pkg/operator/targetconfigcontroller/targetconfigcontroller.go,
// gracefulTerminationDurationFromConfig).
const apiserverTerminationGrace = apiserverShutdownDelay + 65*time.Second

// singleAPIServerStopGrace is the SIGKILL bound of a single apiserver
// (started without a shutdown delay), as before there were several.
const singleAPIServerStopGrace = 10 * time.Second

// apiserverReadyWait bounds the wait for an apiserver's /readyz.
const apiserverReadyWait = 2 * time.Minute

// apiserver is one master's kube-apiserver.
type apiserver struct {
	index   int
	url     string   // https://127.0.0.1:<its port>
	args    []string // argv, the binary first
	logPath string

	mu sync.Mutex
	// pid is envtest's process for apiserver 0 until it is first stopped
	// (envtest started it; we only signal it).
	pid int
	// proc is the process once we started it.
	proc *process
	// down is set while its master is down (StopAPIServer until
	// StartAPIServer): a restart of every apiserver (a new revision) leaves
	// it to the master's boot.
	down bool
}

func (a *apiserver) name(cp *ControlPlane) string {
	return fmt.Sprintf("%s kube-apiserver-%d", cp.Name, a.index)
}

// APIServers is the number of kube-apiservers (masters).
func (cp *ControlPlane) APIServers() int { return len(cp.apiservers) }

// APIServerURL is apiserver i's own URL, bypassing the load balancer. Its
// serving certificate names 127.0.0.1 and localhost, so the control plane's
// CA verifies it.
func (cp *ControlPlane) APIServerURL(i int) string { return cp.apiservers[i].url }

// APIServerURLs are every apiserver's own URL, in order.
func (cp *ControlPlane) APIServerURLs() []string {
	out := make([]string, len(cp.apiservers))
	for i, a := range cp.apiservers {
		out[i] = a.url
	}
	return out
}

// StopAPIServer stops apiserver i as a master's shutdown stops its static
// pod: SIGTERM, then SIGKILL after a bound. With several apiservers it
// takes the shutdown delay (the LB takes it out of rotation meanwhile) and
// returns when the process is gone. Stopping a stopped one does nothing.
func (cp *ControlPlane) StopAPIServer(i int) error {
	if i < 0 || i >= len(cp.apiservers) {
		return fmt.Errorf("%s: no kube-apiserver %d (there are %d)", cp.Name, i, len(cp.apiservers))
	}
	a := cp.apiservers[i]
	a.mu.Lock()
	a.down = true
	a.mu.Unlock()
	return a.stop(cp, syscall.SIGTERM, cp.stopGrace())
}

// stopGrace bounds an apiserver's graceful stop.
func (cp *ControlPlane) stopGrace() time.Duration {
	if len(cp.apiservers) > 1 {
		return apiserverTerminationGrace
	}
	return singleAPIServerStopGrace
}

// stop signals the apiserver, SIGKILLs it after grace and waits until it is
// gone.
func (a *apiserver) stop(cp *ControlPlane, sig syscall.Signal, grace time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	if a.proc != nil {
		err := a.proc.signal(sig, grace)
		a.proc = nil
		if err != nil {
			return fmt.Errorf("%s: stopping kube-apiserver %d: %w", cp.Name, a.index, err)
		}
		klog.V(1).InfoS("stopped kube-apiserver", "cluster", cp.Name, "index", a.index, "signal", sig, "took", time.Since(start))
		return nil
	}
	pid := a.pid
	if pid == 0 {
		return nil
	}
	_ = syscall.Kill(pid, sig)
	if err := waitGone(pid, grace); err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if err := waitGone(pid, killWait); err != nil {
			return fmt.Errorf("%s: kube-apiserver %d did not stop: %w", cp.Name, a.index, err)
		}
	}
	// envtest reaps it; its Stop must find it exited, not signal a
	// reaped pid (which fails), so give its Wait a moment.
	_ = waitReaped(pid, time.Second)
	a.pid = 0
	klog.V(1).InfoS("stopped kube-apiserver", "cluster", cp.Name, "index", a.index, "signal", sig, "took", time.Since(start))
	return nil
}

// stopOurs stops the apiserver if we started it (not envtest).
func (a *apiserver) stopOurs(cp *ControlPlane, sig syscall.Signal, grace time.Duration) error {
	a.mu.Lock()
	ours := a.proc != nil
	a.mu.Unlock()
	if !ours {
		return nil
	}
	return a.stop(cp, sig, grace)
}

// StartAPIServer starts apiserver i again with the flags, certificates and
// storage it had, and waits (at most 2 minutes) for its /readyz, as a
// master's boot does. It does not wait for the LB to take it back into
// rotation (LBServers tells).
func (cp *ControlPlane) StartAPIServer(ctx context.Context, i int) error {
	if i < 0 || i >= len(cp.apiservers) {
		return fmt.Errorf("%s: no kube-apiserver %d (there are %d)", cp.Name, i, len(cp.apiservers))
	}
	a := cp.apiservers[i]
	a.mu.Lock()
	a.down = false
	err := a.startLocked(cp)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	return cp.awaitReady(ctx, a)
}

// startLocked starts the process; a.mu is held.
func (a *apiserver) startLocked(cp *ControlPlane) error {
	if a.proc != nil || a.pid != 0 {
		return fmt.Errorf("%s: kube-apiserver %d is running", cp.Name, a.index)
	}
	if len(a.args) == 0 {
		return fmt.Errorf("%s: the command line of kube-apiserver %d is not known", cp.Name, a.index)
	}
	p := newProcess(a.name(cp), a.args[0], a.logPath, a.args[1:]...)
	if err := p.start(); err != nil {
		return err
	}
	a.proc = p
	return nil
}

// awaitReady polls the apiserver's own /readyz (not through the LB) until it
// answers 200, at most apiserverReadyWait; it fails at once when the
// process exits, with its log's tail.
func (cp *ControlPlane) awaitReady(ctx context.Context, a *apiserver) error {
	client, err := rest.HTTPClientFor(cp.direct)
	if err != nil {
		return fmt.Errorf("%s: client for kube-apiserver %d: %w", cp.Name, a.index, err)
	}
	err = Await(ctx, fmt.Sprintf("%s kube-apiserver %d /readyz", cp.Name, a.index), apiserverReadyWait, 200*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			a.mu.Lock()
			p := a.proc
			a.mu.Unlock()
			if p != nil {
				if dead, werr := p.exited(); dead {
					return false, "exited", fmt.Errorf("kube-apiserver exited: %v; log %s:\n%s", werr, p.logPath, p.logTail())
				}
			}
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			code, body, err := httpGet(rctx, client, a.url+"/readyz")
			if err != nil {
				return false, err.Error(), nil
			}
			return code == http.StatusOK, fmt.Sprintf("HTTP %d %s", code, body), nil
		})
	if err != nil {
		return fmt.Errorf("%w; log %s:\n%s", err, a.logPath, tailOf(a.logPath))
	}
	return nil
}

// startAPIServerClones starts apiservers 1..n-1 as clones of apiserver 0
// (envtest's, already ready) and waits for each one's /readyz.
func (cp *ControlPlane) startAPIServerClones(ctx context.Context, n int) error {
	zero := cp.apiservers[0]
	ports, err := freePorts(n - 1)
	if err != nil {
		return err
	}
	for i := 1; i < n; i++ {
		args := cloneAPIServerArgs(zero.args, i, ports[i-1])
		a := &apiserver{index: i, args: args, url: fmt.Sprintf("https://127.0.0.1:%d", ports[i-1]),
			logPath: filepath.Join(cp.Dir, fmt.Sprintf("kube-apiserver-%d.log", i))}
		cp.apiservers = append(cp.apiservers, a)
		klog.V(2).InfoS("starting kube-apiserver clone", "cluster", cp.Name, "index", i, "args", args[1:])
		a.mu.Lock()
		err := a.startLocked(cp)
		a.mu.Unlock()
		if err != nil {
			return err
		}
	}
	// They start side by side; each wait has its own bound.
	for _, a := range cp.apiservers[1:] {
		if err := cp.awaitReady(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// cloneAPIServerArgs is apiserver 0's argv for apiserver i listening on
// port. Everything else is shared on purpose (certificates, etcd, service
// account keys and issuer, advertise address) but files the apiserver
// writes: an audit log of its own.
func cloneAPIServerArgs(args []string, i, port int) []string {
	out := withFlag(args, "secure-port", strconv.Itoa(port))
	if p, ok := flagValue(out, "audit-log-path"); ok && p != "" && p != "-" {
		ext := filepath.Ext(p)
		out = withFlag(out, "audit-log-path", fmt.Sprintf("%s-%d%s", strings.TrimSuffix(p, ext), i, ext))
	}
	return out
}

// flagValue finds --name=value or --name value in args.
func flagValue(args []string, name string) (string, bool) {
	for j, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
		if a == "--"+name && j+1 < len(args) {
			return args[j+1], true
		}
	}
	return "", false
}

// withFlag returns a copy of args with --name set to value (replaced where
// it was, appended otherwise).
func withFlag(args []string, name, value string) []string {
	out := make([]string, 0, len(args)+1)
	found := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case strings.HasPrefix(a, "--"+name+"="):
			out = append(out, "--"+name+"="+value)
			found = true
		case a == "--"+name && j+1 < len(args):
			out = append(out, "--"+name+"="+value)
			found = true
			j++
		default:
			out = append(out, a)
		}
	}
	if !found {
		out = append(out, "--"+name+"="+value)
	}
	return out
}

// servingCertCovers checks that the apiservers' serving certificate (one
// for all of them, in envtest's certificate directory) is valid for host,
// so clients of the LB verify it as they do an apiserver's.
func servingCertCovers(certDir, host string) error {
	b, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
	if err != nil {
		return fmt.Errorf("the kube-apiserver's serving certificate: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return fmt.Errorf("the kube-apiserver's serving certificate in %s: no PEM", certDir)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("the kube-apiserver's serving certificate: %w", err)
	}
	if err := c.VerifyHostname(host); err != nil {
		return fmt.Errorf("the kube-apiserver's serving certificate does not cover the LB's address: %w", err)
	}
	return nil
}

// pointKubeconfigAt rewrites every cluster's server in a kubeconfig to
// server (scheme and host; the path stays).
func pointKubeconfigAt(kubeconfig []byte, server string) ([]byte, error) {
	to, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", server, err)
	}
	kc, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	for name, c := range kc.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig cluster %s server %q: %w", name, c.Server, err)
		}
		u.Scheme, u.Host = to.Scheme, to.Host
		c.Server = u.String()
	}
	out, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("writing kubeconfig: %w", err)
	}
	return out, nil
}

// httpGet returns the status code and the start of the body.
func httpGet(ctx context.Context, c *http.Client, u string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return resp.StatusCode, strings.TrimSpace(string(b)), nil
}

// tailOf is the end of a log file, for errors.
func tailOf(path string) string { return (&process{logPath: path}).logTail() }

// waitReaped waits until pid is gone from /proc (reaped, not a zombie).
func waitReaped(pid int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for procState(pid) != "gone" {
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d not reaped after %s (state %s)", pid, d, procState(pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// loopbackHostPort is 127.0.0.1:port.
func loopbackHostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
