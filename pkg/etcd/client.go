package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"
)

// Client asks one etcd cluster for its status and moves its leadership.
type Client struct {
	cfg Config
	cli *clientv3.Client
}

// New connects to the cluster in cfg (connecting is lazy; an unreachable
// cluster shows in Snapshot, not here).
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if !cfg.Enabled() {
		return nil, errors.New("etcd: no endpoints configured")
	}
	cc, err := cfg.clientConfig(cfg.Endpoints)
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(cc)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", cfg.Endpoints, err)
	}
	return &Client{cfg: cfg, cli: cli}, nil
}

// Close releases the connections.
func (c *Client) Close() error { return c.cli.Close() }

// Snapshot gathers the member list and every member's own status, and judges
// them. It never fails: an unreachable cluster is a Status whose Err is set.
func (c *Client) Snapshot(ctx context.Context) *Status {
	members, err := c.gather(ctx)
	if err != nil {
		return Unreachable(err)
	}
	return Summarize(members, c.cfg.MaxLag)
}

func (c *Client) gather(ctx context.Context) ([]Member, error) {
	lctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	// Linearizable: it needs a quorum, so a cluster without one is unreachable.
	list, err := c.cli.MemberList(lctx)
	if err != nil {
		return nil, fmt.Errorf("etcd member list: %w", err)
	}
	out := make([]Member, len(list.Members))
	done := make(chan struct{}, len(list.Members))
	for i, pm := range list.Members {
		out[i] = Member{ID: pm.ID, Name: pm.Name, ClientURLs: pm.ClientURLs, PeerURLs: pm.PeerURLs, IsLearner: pm.IsLearner}
		go func(m *Member) {
			defer func() { done <- struct{}{} }()
			c.statusOf(ctx, m)
		}(&out[i])
	}
	for range list.Members {
		<-done
	}
	return out, nil
}

// statusOf asks one member for its own status.
func (c *Client) statusOf(ctx context.Context, m *Member) {
	if len(m.ClientURLs) == 0 {
		m.StatusErr = errors.New("member has no client URL")
		return
	}
	sctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	st, err := c.cli.Status(sctx, m.ClientURLs[0])
	if err != nil {
		m.StatusErr = fmt.Errorf("status of %s: %w", m.ClientURLs[0], err)
		return
	}
	m.Leader, m.RaftTerm, m.RaftIndex, m.RaftAppliedIndex = st.Leader, st.RaftTerm, st.RaftIndex, st.RaftAppliedIndex
	m.Alarms = st.Errors
}

// MoveLeader hands leadership to the member named to, and waits until the
// cluster reports it as leader (or ctx ends). The request goes to the current
// leader, as etcd requires. Moving to the member that already leads is a no-op.
func (c *Client) MoveLeader(ctx context.Context, to string) error {
	logger := klog.FromContext(ctx)
	st := c.Snapshot(ctx)
	if st.Err() != nil {
		return fmt.Errorf("move etcd leader to %s: %w", to, st.Err())
	}
	if st.Leader() == to {
		return nil
	}
	target, ok := st.Member(to)
	if !ok {
		return fmt.Errorf("move etcd leader: %s is not a member", to)
	}
	leader, _ := st.Member(st.Leader())
	if len(leader.ClientURLs) == 0 {
		return fmt.Errorf("move etcd leader: leader %s has no client URL", leader.Name)
	}
	cc, err := c.cfg.clientConfig(leader.ClientURLs[:1])
	if err != nil {
		return err
	}
	lc, err := clientv3.New(cc)
	if err != nil {
		return fmt.Errorf("etcd client for leader %s: %w", leader.Name, err)
	}
	defer lc.Close()
	mctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout*2)
	defer cancel()
	logger.Info("Moving etcd leadership", "from", leader.Name, "to", to)
	if _, err := lc.MoveLeader(mctx, target.ID); err != nil {
		return fmt.Errorf("move etcd leader from %s to %s: %w", leader.Name, to, err)
	}
	return c.WaitLeader(ctx, to)
}

// WaitLeader polls until the member named name leads, or ctx ends.
func (c *Client) WaitLeader(ctx context.Context, name string) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		st := c.Snapshot(ctx)
		if st.Err() == nil && st.Leader() == name {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to lead etcd (now: %s): %w", name, st, ctx.Err())
		case <-t.C:
		}
	}
}
