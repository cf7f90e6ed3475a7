package framework

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Leader names the member that leads the cluster, as the first member to
// answer its status sees it.
func (c *EtcdCluster) Leader(ctx context.Context) (string, error) {
	cli, err := c.Client()
	if err != nil {
		return "", err
	}
	defer cli.Close()
	return EtcdLeader(ctx, cli, c.ClientURLs())
}

// EtcdLeader asks the members at endpoints, in turn, who leads (each ask
// bounded by a second) and names the leader: for a caller that keeps one
// client open and asks often.
func EtcdLeader(ctx context.Context, cli *clientv3.Client, endpoints []string) (string, error) {
	for _, ep := range endpoints {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := cli.Status(sctx, ep)
		cancel()
		if err != nil || st.Leader == 0 {
			continue
		}
		mctx, cancel := context.WithTimeout(ctx, time.Second)
		members, err := cli.MemberList(mctx)
		cancel()
		if err != nil {
			return "", fmt.Errorf("etcd member list: %w", err)
		}
		for _, mem := range members.Members {
			if mem.ID == st.Leader {
				return mem.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no etcd member of %v knows a leader", endpoints)
}
