package framework

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/tandem-mco/tandem/test/pki"
)

// EtcdCluster is N real etcd processes on loopback, one per simulated master.
// Stopping a member is a real outage of that member, like a master's reboot.
type EtcdCluster struct {
	dir     string
	members []*etcdMember
	tls     *EtcdTLS
	ca      *pki.CA
}

type etcdMember struct {
	name      string
	ip        string
	clientURL string
	metrics   string
	proc      *process
}

// EtcdClusterOptions shape a cluster beyond its size.
type EtcdClusterOptions struct {
	Members int
	// TLS serves clients over TLS and requires a client certificate the
	// cluster's CA signed (etcd --client-cert-auth), as OpenShift's etcd
	// does; peers talk plain HTTP. TLS() gives the CA and a client
	// certificate like the etcd operator's etcd-client (CN etcd-client, O
	// system:etcd and etcd-client; cluster-etcd-operator release-4.21
	// pkg/tlshelpers/tlshelpers.go).
	TLS bool
	// OwnAddresses gives each member a loopback address of its own
	// (127.a.b.1, .2, ...) with the client port OpenShift's members use,
	// 2379, and its peer URL on the same address: OpenShift's
	// openshift-etcd/etcd-endpoints ConfigMap carries only each member's IP
	// (taken from its peer URL), and clients add :2379. Without it members
	// share 127.0.0.1 on free ports.
	OwnAddresses bool
}

// EtcdTLS is a TLS cluster's CA and client certificate, as files and PEM.
type EtcdTLS struct {
	CAFile, CertFile, KeyFile string
	CAPEM, CertPEM, KeyPEM    []byte
}

// Config is the client TLS configuration.
func (t *EtcdTLS) Config() (*tls.Config, error) {
	pair, err := tls.X509KeyPair(t.CertPEM, t.KeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(t.CAPEM) {
		return nil, errors.New("etcd CA: no certificate")
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// EtcdClientPort is the client port of members with their own addresses.
const EtcdClientPort = 2379

// StartEtcdCluster starts members etcd processes with data under dir and
// waits until every member answers.
func StartEtcdCluster(ctx context.Context, dir string, members int) (*EtcdCluster, error) {
	return StartEtcdClusterWith(ctx, dir, EtcdClusterOptions{Members: members})
}

// StartEtcdClusterWith starts a cluster shaped by o.
func StartEtcdClusterWith(ctx context.Context, dir string, o EtcdClusterOptions) (*EtcdCluster, error) {
	bin, err := toolPath("etcd")
	if err != nil {
		return nil, err
	}
	members := o.Members
	ports, err := freePorts(3 * members)
	if err != nil {
		return nil, err
	}
	ips := make([]string, members)
	for i := range ips {
		ips[i] = "127.0.0.1"
	}
	if o.OwnAddresses {
		if ips, err = ownLoopbackAddresses(members); err != nil {
			return nil, err
		}
	}
	c := &EtcdCluster{dir: dir}
	scheme := "http"
	if o.TLS {
		scheme = "https"
		if c.tls, c.ca, err = writeEtcdPKI(filepath.Join(dir, "pki"), ips); err != nil {
			return nil, err
		}
	}
	token := make([]byte, 6)
	_, _ = rand.Read(token)
	hostPort := func(i, port int) string { return net.JoinHostPort(ips[i], strconv.Itoa(port)) }
	var initial []string
	for i := range members {
		initial = append(initial, fmt.Sprintf("master-%d=http://%s", i, hostPort(i, ports[3*i+1])))
	}
	for i := range members {
		name := fmt.Sprintf("master-%d", i)
		clientPort := ports[3*i]
		if o.OwnAddresses {
			clientPort = EtcdClientPort
		}
		client := scheme + "://" + hostPort(i, clientPort)
		peer := "http://" + hostPort(i, ports[3*i+1])
		metrics := fmt.Sprintf("http://127.0.0.1:%d", ports[3*i+2])
		args := []string{
			"--name=" + name,
			"--data-dir=" + filepath.Join(dir, name),
			"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
			"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
			"--listen-metrics-urls=" + metrics,
			"--initial-cluster=" + strings.Join(initial, ","),
			"--initial-cluster-state=new",
			"--initial-cluster-token=tandem-" + hex.EncodeToString(token),
			"--log-level=warn",
		}
		if o.TLS {
			pki := filepath.Join(dir, "pki")
			args = append(args, "--client-cert-auth", "--trusted-ca-file="+c.tls.CAFile,
				"--cert-file="+filepath.Join(pki, name+".crt"), "--key-file="+filepath.Join(pki, name+".key"))
		}
		m := &etcdMember{name: name, ip: ips[i], clientURL: client, metrics: metrics,
			proc: newProcess("etcd "+name, bin, filepath.Join(dir, name+".log"), args...)}
		c.members = append(c.members, m)
	}
	for _, m := range c.members {
		if err := m.proc.start(); err != nil {
			_ = c.Stop()
			return nil, err
		}
	}
	for i := range c.members {
		if err := c.waitMemberHealthy(ctx, i); err != nil {
			_ = c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// ownLoopbackAddresses picks n addresses 127.a.b.1..n (a and b at random, so
// that clusters of concurrent tests do not meet) whose port 2379 is free.
func ownLoopbackAddresses(n int) ([]string, error) {
	var last error
	for range 20 {
		ab := make([]byte, 2)
		_, _ = rand.Read(ab)
		ips := make([]string, n)
		var ls []net.Listener
		ok := true
		for i := range n {
			ips[i] = fmt.Sprintf("127.%d.%d.%d", 1+int(ab[0])%254, 1+int(ab[1])%254, i+1)
			l, err := net.Listen("tcp", net.JoinHostPort(ips[i], strconv.Itoa(EtcdClientPort)))
			if err != nil {
				last, ok = err, false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			_ = l.Close()
		}
		if ok {
			return ips, nil
		}
	}
	return nil, fmt.Errorf("no free loopback addresses for etcd's port %d: %w", EtcdClientPort, last)
}

// IssueClientCert signs a new client certificate like TLS()'s (a rotation).
func (c *EtcdCluster) IssueClientCert() (pki.Pair, error) {
	if c.ca == nil {
		return pki.Pair{}, errors.New("not a TLS cluster")
	}
	return c.ca.Issue(etcdClientLeaf)
}

// etcdClientLeaf is the etcd operator's client certificate's subject.
var etcdClientLeaf = pki.Leaf{CommonName: "etcd-client", Organization: []string{"system:etcd", "etcd-client"}, Client: true}

// writeEtcdPKI writes a CA, one serving certificate per member (its IP and
// localhost) and a client certificate into dir.
func writeEtcdPKI(dir string, ips []string) (*EtcdTLS, *pki.CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	ca, err := pki.NewCA("etcd-signer")
	if err != nil {
		return nil, nil, err
	}
	write := func(name string, data []byte) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, data, 0o600)
	}
	t := &EtcdTLS{CAPEM: ca.CertPEM}
	if t.CAFile, err = write("ca.crt", ca.CertPEM); err != nil {
		return nil, nil, err
	}
	for i, ip := range ips {
		name := fmt.Sprintf("master-%d", i)
		p, err := ca.Issue(pki.Leaf{CommonName: name, IPs: []net.IP{net.ParseIP(ip), net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}, Server: true, Client: true})
		if err != nil {
			return nil, nil, err
		}
		if _, err := write(name+".crt", p.CertPEM); err != nil {
			return nil, nil, err
		}
		if _, err := write(name+".key", p.KeyPEM); err != nil {
			return nil, nil, err
		}
	}
	client, err := ca.Issue(etcdClientLeaf)
	if err != nil {
		return nil, nil, err
	}
	t.CertPEM, t.KeyPEM = client.CertPEM, client.KeyPEM
	if t.CertFile, err = write("client.crt", client.CertPEM); err != nil {
		return nil, nil, err
	}
	if t.KeyFile, err = write("client.key", client.KeyPEM); err != nil {
		return nil, nil, err
	}
	return t, ca, nil
}

// NewEtcdCluster starts a cluster in a test temp dir and stops it at cleanup.
func NewEtcdCluster(t testing.TB, members int) *EtcdCluster {
	t.Helper()
	return NewEtcdClusterWith(t, EtcdClusterOptions{Members: members})
}

// NewEtcdClusterWith starts a cluster shaped by o in a test temp dir and
// stops it at cleanup.
func NewEtcdClusterWith(t testing.TB, o EtcdClusterOptions) *EtcdCluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := StartEtcdClusterWith(ctx, t.TempDir(), o)
	if err != nil {
		t.Fatalf("starting a %d-member etcd cluster: %v", o.Members, err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// Size returns the number of members.
func (c *EtcdCluster) Size() int { return len(c.members) }

// ClientURLs returns every member's client URL.
func (c *EtcdCluster) ClientURLs() []string {
	urls := make([]string, len(c.members))
	for i, m := range c.members {
		urls[i] = m.clientURL
	}
	return urls
}

// TLS is the cluster's CA and client certificate; nil for a plain cluster.
func (c *EtcdCluster) TLS() *EtcdTLS { return c.tls }

// MemberIP is the address member i listens on (its peer and client URLs).
func (c *EtcdCluster) MemberIP(i int) string { return c.members[i].ip }

// MemberName is member i's etcd name, which is also its master node's name.
func (c *EtcdCluster) MemberName(i int) string { return c.members[i].name }

// MemberClientURL is member i's client URL.
func (c *EtcdCluster) MemberClientURL(i int) string { return c.members[i].clientURL }

// MemberMetricsURL is member i's /metrics base URL.
func (c *EtcdCluster) MemberMetricsURL(i int) string { return c.members[i].metrics }

// StopMember stops member i (SIGTERM, then SIGKILL after 10 s).
func (c *EtcdCluster) StopMember(i int) error {
	return c.members[i].proc.stop(10 * time.Second)
}

// StartMember restarts member i with its data dir and waits until it answers.
func (c *EtcdCluster) StartMember(ctx context.Context, i int) error {
	if err := c.members[i].proc.start(); err != nil {
		return err
	}
	return c.waitMemberHealthy(ctx, i)
}

// Stop stops every member, all at once.
func (c *EtcdCluster) Stop() error {
	var wg sync.WaitGroup
	for _, m := range c.members {
		wg.Add(1)
		go func() { defer wg.Done(); _ = m.proc.stop(5 * time.Second) }()
	}
	wg.Wait()
	return nil
}

// Client returns a client for all members; the caller closes it.
func (c *EtcdCluster) Client() (*clientv3.Client, error) {
	return c.clientFor(c.ClientURLs(), 5*time.Second)
}

func (c *EtcdCluster) clientFor(endpoints []string, dial time.Duration) (*clientv3.Client, error) {
	cfg := clientv3.Config{Endpoints: endpoints, DialTimeout: dial, Logger: zap.NewNop()}
	if c.tls != nil {
		t, err := c.tls.Config()
		if err != nil {
			return nil, err
		}
		cfg.TLS = t
	}
	return clientv3.New(cfg)
}

func (c *EtcdCluster) waitMemberHealthy(ctx context.Context, i int) error {
	m := c.members[i]
	// The client's own logger would print every refused dial while the member boots.
	cli, err := c.clientFor([]string{m.clientURL}, 2*time.Second)
	if err != nil {
		return fmt.Errorf("etcd client for %s: %w", m.name, err)
	}
	defer cli.Close()
	err = poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if dead, werr := m.proc.exited(); dead {
			return false, fmt.Errorf("etcd %s exited: %v; log %s:\n%s", m.name, werr, m.proc.logPath, m.proc.logTail())
		}
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		st, err := cli.Status(sctx, m.clientURL)
		return err == nil && st.Leader != 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for etcd %s: %w (log %s)", m.name, err, m.proc.logPath)
	}
	return nil
}

// LogDir returns where member logs and data live.
func (c *EtcdCluster) LogDir() string { return c.dir }
