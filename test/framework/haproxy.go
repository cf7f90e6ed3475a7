package framework

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// The API load balancer of on-premise OpenShift (bare metal, vSphere,
// OpenStack, ...): haproxy on every master in front of all masters'
// kube-apiservers, reached through the API VIP. Its semantics here are
// those of the MCO's template at the commit tandem pins,
// templates/master/00-master/on-prem/files/haproxy-haproxy.yaml
// (openshift/machine-config-operator db84d8368ef78e50f3bc0961dcf2b27a7975e053):
// plain TCP (TLS passes through to the apiservers), round robin, and a
// health check of GET /readyz over TLS without verifying the certificate
// every 5 s, DOWN after 3 failures and UP after 1 success; its defaults'
// timeouts and retries. Not kept: its listeners on fixed ports (the
// kubelet's liveness probe of haproxy, keepalived's monitor and the stats
// page), which would collide between control planes and which nothing here
// reads; the stats socket replaces them. Nor its log format: at its log
// level (notice), only server state changes are logged anyway.

const (
	haproxyCheckInterval = 5 * time.Second // inter 5s
	haproxyCheckFall     = 3               // fall 3
	haproxyCheckRise     = 1               // rise 1
)

// haproxyPath finds haproxy, Debian's package (its binary is in /usr/sbin,
// which a user's PATH may lack).
func haproxyPath() (string, error) {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	const debian = "/usr/sbin/haproxy"
	if _, err := os.Stat(debian); err == nil {
		return debian, nil
	}
	return "", errors.New("haproxy is not installed (neither in PATH nor " + debian + "): a control plane with several kube-apiservers needs it as their load balancer; install Debian's: apt-get install haproxy (the Makefile's test targets do)")
}

// haproxy is the control plane's API load balancer.
type haproxy struct {
	proc    *process
	cfgPath string
	sock    string
	sockDir string // a temp dir of ours when cp.Dir is too long for a socket path
	port    int
}

// haproxyConfig renders the configuration: a frontend on 127.0.0.1:port
// and one server per apiserver, named master-<i>.
func haproxyConfig(name, sock string, port int, servers []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# tandem's API load balancer of control plane %s, with the semantics of
# the MCO's on-prem haproxy (machine-config-operator
# db84d8368ef78e50f3bc0961dcf2b27a7975e053,
# templates/master/00-master/on-prem/files/haproxy-haproxy.yaml).
global
  stats socket %s mode 600 level admin
defaults
  maxconn 40000
  mode tcp
  log stdout format raw local0 notice alert
  option dontlognull
  retries 3
  timeout http-request 30s
  timeout queue 1m
  timeout connect 10s
  timeout client 86400s
  timeout server 86400s
  timeout tunnel 86400s
  timeout client-fin 1s
  timeout server-fin 1s
frontend main
  bind %s
  default_backend masters
backend masters
  timeout check 10s
  option httpchk GET /readyz HTTP/1.0
  balance roundrobin
`, name, sock, loopbackHostPort(port))
	for i, s := range servers {
		fmt.Fprintf(&b, "  server master-%d %s weight 1 verify none check check-ssl inter %s fall %d rise %d\n",
			i, s, haproxyCheckInterval, haproxyCheckFall, haproxyCheckRise)
	}
	return b.String()
}

// startLB starts haproxy in front of every apiserver and waits (at most 2
// minutes) until its health check passed for each of them.
func (cp *ControlPlane) startLB(ctx context.Context) error {
	bin, err := haproxyPath()
	if err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	lb := &haproxy{cfgPath: filepath.Join(cp.Dir, "haproxy.cfg"), sock: filepath.Join(cp.Dir, "haproxy.sock"), port: ports[0]}
	// A unix socket's path has at most 107 bytes.
	if len(lb.sock) > 100 {
		if lb.sockDir, err = os.MkdirTemp("", "tandem-haproxy-"); err != nil {
			return fmt.Errorf("a directory for haproxy's stats socket: %w", err)
		}
		lb.sock = filepath.Join(lb.sockDir, "haproxy.sock")
	}
	cp.lb = lb
	var servers []string
	for _, a := range cp.apiservers {
		u, err := urlHost(a.url)
		if err != nil {
			return err
		}
		servers = append(servers, u)
	}
	if err := os.WriteFile(lb.cfgPath, []byte(haproxyConfig(cp.Name, lb.sock, lb.port, servers)), 0o644); err != nil {
		return fmt.Errorf("writing haproxy's configuration: %w", err)
	}
	if out, err := exec.CommandContext(ctx, bin, "-c", "-f", lb.cfgPath).CombinedOutput(); err != nil {
		return fmt.Errorf("haproxy rejects %s: %w\n%s", lb.cfgPath, err, out)
	}
	// -db: in the foreground, no daemon, so it is our child and dies with
	// the test (Pdeathsig, the reaper).
	lb.proc = newProcess(cp.Name+" haproxy", bin, filepath.Join(cp.Dir, "haproxy.log"), "-db", "-f", lb.cfgPath)
	if err := lb.proc.start(); err != nil {
		return err
	}
	klog.V(1).InfoS("started the API load balancer", "cluster", cp.Name, "url", cp.LBURL(), "config", lb.cfgPath)
	return Await(ctx, cp.Name+" haproxy: every master's kube-apiserver UP after a passed check", apiserverReadyWait, 200*time.Millisecond,
		func(ctx context.Context) (bool, string, error) {
			if dead, werr := lb.proc.exited(); dead {
				return false, "exited", fmt.Errorf("haproxy exited: %v; log %s:\n%s", werr, lb.proc.logPath, lb.proc.logTail())
			}
			ss, err := cp.LBServers(ctx)
			if err != nil {
				return false, err.Error(), nil
			}
			for _, s := range ss {
				// Servers start UP before any check; L7OK says /readyz answered 200.
				if s.Status != "UP" || s.Check != "L7OK" {
					return false, fmt.Sprint(ss), nil
				}
			}
			return len(ss) == len(cp.apiservers), fmt.Sprint(ss), nil
		})
}

// stopLB stops haproxy.
func (cp *ControlPlane) stopLB() {
	if cp.lb == nil {
		return
	}
	if cp.lb.proc != nil {
		_ = cp.lb.proc.stop(5 * time.Second)
	}
	if cp.lb.sockDir != "" {
		_ = os.RemoveAll(cp.lb.sockDir)
	}
	cp.lb = nil
}

// LBURL is the load balancer's URL, https://127.0.0.1:<port>, which the
// control plane's clients and kubeconfigs use; empty with a single
// apiserver (no LB).
func (cp *ControlPlane) LBURL() string {
	if cp.lb == nil {
		return ""
	}
	return "https://" + loopbackHostPort(cp.lb.port)
}

// LBServer is the load balancer's view of one master's kube-apiserver.
type LBServer struct {
	// Name is master-<i> for apiserver i.
	Name string
	// Status is haproxy's: UP, DOWN, "UP 1/3" (a check failed, not yet
	// DOWN), "DOWN 0/1" (coming back), MAINT, ...
	Status string
	// Check is the last check's result: L7OK (/readyz 200), L7STS (another
	// status), L4CON (connection refused), L4TOUT, ... and Code its HTTP
	// status, if any.
	Check, Code string
	// Downs counts its transitions UP to DOWN; Sessions the connections
	// haproxy has sent it.
	Downs, Sessions int
}

func (s LBServer) String() string {
	return fmt.Sprintf("%s=%s(%s %s)", s.Name, s.Status, s.Check, s.Code)
}

// LBServers reads haproxy's view of every apiserver from its stats socket
// (`show stat`).
func (cp *ControlPlane) LBServers(ctx context.Context) ([]LBServer, error) {
	if cp.lb == nil {
		return nil, fmt.Errorf("%s has no load balancer (a single kube-apiserver)", cp.Name)
	}
	out, err := cp.lb.command(ctx, "show stat")
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(out, "# ")))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("haproxy's show stat: %v: %q", err, out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	get := func(row []string, name string) string {
		if i, ok := col[name]; ok && i < len(row) {
			return row[i]
		}
		return ""
	}
	var ss []LBServer
	for _, row := range rows[1:] {
		if get(row, "pxname") != "masters" || !strings.HasPrefix(get(row, "svname"), "master-") {
			continue
		}
		downs, _ := strconv.Atoi(get(row, "chkdown"))
		sessions, _ := strconv.Atoi(get(row, "stot"))
		ss = append(ss, LBServer{Name: get(row, "svname"), Status: get(row, "status"),
			Check: strings.TrimPrefix(get(row, "check_status"), "* "), Code: get(row, "check_code"),
			Downs: downs, Sessions: sessions})
	}
	return ss, nil
}

// command sends one command to haproxy's stats socket and returns its
// answer (the socket closes after it).
func (lb *haproxy) command(ctx context.Context, cmd string) (string, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := d.DialContext(dctx, "unix", lb.sock)
	if err != nil {
		return "", fmt.Errorf("haproxy's stats socket: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		return "", fmt.Errorf("haproxy's stats socket: %w", err)
	}
	b, err := io.ReadAll(bufio.NewReader(c))
	if err != nil {
		return "", fmt.Errorf("haproxy's stats socket: %w", err)
	}
	return string(b), nil
}

// urlHost is a URL's host:port.
func urlHost(u string) (string, error) {
	h, ok := strings.CutPrefix(u, "https://")
	if !ok || h == "" {
		return "", fmt.Errorf("not an https URL: %q", u)
	}
	return strings.TrimSuffix(h, "/"), nil
}
