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

// MoveLeader hands leadership to the member named to, as briefly as raft
// allows, and returns once every member follows it (or ctx ends). The
// request goes to the current leader, as etcd requires. Moving to the member
// that already leads is a no-op.
//
// Why the care: while a transfer is pending the old leader drops every
// proposal (raft stepLeader: "transfer leadership ... is in progress;
// dropping proposal", ErrProposalDropped), and raft only sends the
// transferee MsgTimeoutNow once its log matches the leader's; a transferee
// still being probed after a reboot keeps the leader dropping for heartbeat
// rounds, up to an election timeout. So the move waits first until the
// target has applied what the leader had committed (it is streaming, not
// probing). After the election the old leader and the third member learn
// the new leader from its first append; until then they have no leader and
// drop proposals too ("no leader at term"), and a proposal a follower
// forwarded to the old leader in the transfer window is lost silently (the
// client only sees its own deadline). So the move returns only when every
// member follows the new leader, and the old leader is not rebooted before.
func (c *Client) MoveLeader(ctx context.Context, to string) error {
	logger := klog.FromContext(ctx)
	st := c.Snapshot(ctx)
	if st.Err() != nil {
		return fmt.Errorf("move etcd leader to %s: %w", to, st.Err())
	}
	if st.Leader() == to {
		return nil
	}
	if _, ok := st.Member(to); !ok {
		return fmt.Errorf("move etcd leader: %s is not a member", to)
	}
	st, err := c.waitCaughtUp(ctx, to)
	if err != nil {
		return err
	}
	target, _ := st.Member(to)
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
	logger.Info("Moving etcd leadership", "from", leader.Name, "to", to, "targetApplied", target.RaftAppliedIndex, "leaderIndex", leader.RaftIndex)
	start := time.Now()
	if _, err := lc.MoveLeader(mctx, target.ID); err != nil {
		return fmt.Errorf("move etcd leader from %s to %s: %w", leader.Name, to, err)
	}
	moved := time.Since(start)
	if err := c.waitAllFollow(ctx, to); err != nil {
		return err
	}
	logger.Info("Moved etcd leadership", "from", leader.Name, "to", to, "transfer", moved, "allFollowing", time.Since(start))
	return nil
}

// caughtUpLag is how many entries the transferee may trail the leader's
// committed index and count as streaming: about one round trip of writes.
const caughtUpLag = 16

// waitCaughtUp polls until the member named to has applied the leader's
// committed index (within caughtUpLag), for at most 5 request timeouts.
func (c *Client) waitCaughtUp(ctx context.Context, to string) (*Status, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*c.cfg.RequestTimeout)
	defer cancel()
	for {
		st := c.Snapshot(ctx)
		if st.Err() == nil {
			target, _ := st.Member(to)
			leader, _ := st.Member(st.Leader())
			if target.StatusErr == nil && target.RaftAppliedIndex+caughtUpLag >= leader.RaftIndex {
				return st, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("move etcd leader: %s has not caught up with the leader (now: %s): %w", to, st, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitAllFollow polls until every member reports the member named name as
// its leader, or ctx ends.
func (c *Client) waitAllFollow(ctx context.Context, name string) error {
	for {
		st := c.Snapshot(ctx)
		if st.Err() == nil && st.Leader() == name && st.AllFollowLeader() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for every etcd member to follow %s (now: %s): %w", name, st, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
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
