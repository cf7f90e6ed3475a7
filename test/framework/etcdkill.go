package framework

import "syscall"

// KillMember kills member i with SIGKILL: its master lost power. Unlike
// StopMember (SIGTERM), etcd gets no chance to hand its leadership over
// (etcdserver TryTransferLeadershipOnShutdown), so the others only notice
// when their election timeout passes.
func (c *EtcdCluster) KillMember(i int) error { return c.members[i].proc.signal(syscall.SIGKILL, 0) }
