package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// EtcdCluster is N real etcd processes on loopback, one per simulated master.
// Stopping a member is a real outage of that member, like a master's reboot.
type EtcdCluster struct {
	dir     string
	members []*etcdMember
}

type etcdMember struct {
	name      string
	clientURL string
	metrics   string
	proc      *process
}

// StartEtcdCluster starts members etcd processes with data under dir and
// waits until every member answers.
func StartEtcdCluster(ctx context.Context, dir string, members int) (*EtcdCluster, error) {
	bin, err := toolPath("etcd")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3 * members)
	if err != nil {
		return nil, err
	}
	token := make([]byte, 6)
	_, _ = rand.Read(token)
	var initial []string
	for i := range members {
		initial = append(initial, fmt.Sprintf("master-%d=http://127.0.0.1:%d", i, ports[3*i+1]))
	}
	c := &EtcdCluster{dir: dir}
	for i := range members {
		name := fmt.Sprintf("master-%d", i)
		client := fmt.Sprintf("http://127.0.0.1:%d", ports[3*i])
		peer := fmt.Sprintf("http://127.0.0.1:%d", ports[3*i+1])
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
		m := &etcdMember{name: name, clientURL: client, metrics: metrics,
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

// NewEtcdCluster starts a cluster in a test temp dir and stops it at cleanup.
func NewEtcdCluster(t testing.TB, members int) *EtcdCluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := StartEtcdCluster(ctx, t.TempDir(), members)
	if err != nil {
		t.Fatalf("starting a %d-member etcd cluster: %v", members, err)
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
	return clientv3.New(clientv3.Config{Endpoints: c.ClientURLs(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

func (c *EtcdCluster) waitMemberHealthy(ctx context.Context, i int) error {
	m := c.members[i]
	// The client's own logger would print every refused dial while the member boots.
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{m.clientURL}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
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
