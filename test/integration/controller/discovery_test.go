//go:build integration

package controller

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/pkg/etcddiscovery"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/pki"
)

// TestControllerFindsEtcdFromOpenShiftObjects starts the controller as the
// MCO's operator does (its Deployment's arguments, nothing of tandem's; plus
// --kubeconfig of the controller's service account under manifests/rbac) on
// a kube-apiserver backed by a real 3-member etcd that, like OpenShift's,
// serves TLS with client certificates, each member on its own address at
// port 2379. Before the etcd operator's objects exist the master pool says
// that leader ordering is off; once they do, the controller finds etcd from
// them and rolls the masters out followers first, the leader last after
// moving leadership. The leader is put on the node the MCO's order updates
// first, so that an unordered rollout disrupts it first. Then the client
// certificate is replaced by one etcd does not trust: the controller
// reloads it, cannot reach etcd and holds the control plane; a rotated
// valid certificate lets the next rollout finish, again leader last.
func TestControllerFindsEtcdFromOpenShiftObjects(t *testing.T) {
	cluster := framework.NewEtcdClusterWith(t, framework.EtcdClusterOptions{Members: 3, TLS: true, OwnAddresses: true})
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "discovery", EtcdCluster: cluster})
	files := cluster.TLS()
	// The test's own eyes on etcd (the daemons' record of the leader).
	facts, err := etcd.New(etcd.Config{Endpoints: cluster.ClientURLs(), CAFile: files.CAFile, CertFile: files.CertFile, KeyFile: files.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = facts.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })

	kubeconfig := controllerAccount(ctx, t, cp)
	masterConfigs(ctx, t, cp)
	runs := startController(ctx, t, &running, append(mcoDeploymentArgs(), "--kubeconfig="+kubeconfig)...)
	first := waitTarget(ctx, t, cp, constants.MasterPool, "")
	for i := range 3 {
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, masterNode(cluster.MemberName(i), first), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tl := &timeline{}
	power := make([]sync.Mutex, 3)
	for i := range 3 {
		d := &masterDaemon{kube: cp.Kube, cluster: cluster, member: i, facts: facts, tl: tl, reboot: 2 * time.Second, power: &power[i]}
		running.Add(1)
		go func() { defer running.Done(); d.run(ctx, t) }()
	}

	// No etcd objects yet: ordering off, and the pool says why.
	off := poolCondition(ctx, t, cp, constants.MasterPool, constants.PoolEtcdLeaderOrderingCondition, corev1.ConditionFalse, etcddiscovery.ReasonNotFound)
	t.Logf("before the etcd operator's objects: %s: %s", off.Reason, off.Message)
	if !strings.Contains(off.Message, "openshift-etcd/etcd-endpoints not found") {
		t.Errorf("the condition does not name the missing ConfigMap: %q", off.Message)
	}
	if !hasEvent(ctx, t, cp, node.EventEtcdOrderingOff) {
		t.Errorf("no %s event", node.EventEtcdOrderingOff)
	}

	// The etcd operator publishes its objects; the controller finds them.
	ca, err := pki.NewCA("some-other-signer")
	if err != nil {
		t.Fatal(err)
	}
	publishEtcdObjects(ctx, t, cp, cluster, files.CertPEM, files.KeyPEM)
	on := poolCondition(ctx, t, cp, constants.MasterPool, constants.PoolEtcdLeaderOrderingCondition, corev1.ConditionTrue, node.EtcdOrderingDiscovered)
	t.Logf("after: %s: %s", on.Reason, on.Message)
	for i := range 3 {
		if u := fmt.Sprintf("https://%s:2379", cluster.MemberIP(i)); !strings.Contains(on.Message, u) {
			t.Errorf("the condition does not name %s: %q", u, on.Message)
		}
	}

	// The leader on the node the MCO's order updates first (no zones, the
	// oldest, then by name: master-0).
	firstByMCO := cluster.MemberName(0)
	if err := facts.MoveLeader(ctx, firstByMCO); err != nil {
		t.Fatal(err)
	}
	addMachineConfig(ctx, t, cp, constants.MasterPool, "99-master-rollout-1", "/etc/tandem-rollout-1")
	second := waitTarget(ctx, t, cp, constants.MasterPool, first)
	waitPoolUpdated(ctx, t, cp, second)
	checkLeaderLast(ctx, t, cp, tl, 0, firstByMCO)

	// The client certificate is replaced by one of a CA etcd does not
	// trust: the controller reloads it and can no longer reach etcd, so it
	// holds the control plane rather than roll it out blind.
	untrusted, err := ca.Issue(pki.Leaf{CommonName: "etcd-client", Organization: []string{"system:etcd", "etcd-client"}, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	putClientCert(ctx, t, cp, untrusted.CertPEM, untrusted.KeyPEM)
	leader := waitLeader(ctx, t, facts)
	waitClientCert(ctx, t, cp, untrusted.CertPEM)
	addMachineConfig(ctx, t, cp, constants.MasterPool, "99-master-rollout-2", "/etc/tandem-rollout-2")
	third := waitTarget(ctx, t, cp, constants.MasterPool, second)
	held := poolCondition(ctx, t, cp, constants.MasterPool, constants.PoolDisruptionHeldCondition, corev1.ConditionTrue, string(node.HoldEtcdUnreachable))
	t.Logf("with an untrusted client certificate: DisruptionHeld %s: %s", held.Reason, held.Message)
	if grants, _ := tl.snapshot(); len(grants) != 3 {
		t.Fatalf("a master was granted while etcd could not be reached: %+v", grants[3:])
	}

	// A rotated, trusted certificate: the rollout goes on, leader last.
	rotated, err := cluster.IssueClientCert()
	if err != nil {
		t.Fatal(err)
	}
	putClientCert(ctx, t, cp, rotated.CertPEM, rotated.KeyPEM)
	waitClientCert(ctx, t, cp, rotated.CertPEM)
	waitPoolUpdated(ctx, t, cp, third)
	checkLeaderLast(ctx, t, cp, tl, 3, leader)

	for _, err := range runs.exited() {
		t.Errorf("the controller exited during the test: %v", err)
	}
}

func publishEtcdObjects(ctx context.Context, t *testing.T, cp *framework.ControlPlane, cluster *framework.EtcdCluster, cert, key []byte) {
	t.Helper()
	if err := framework.PublishEtcdObjects(ctx, cp.Kube, cluster, cert, key); err != nil {
		t.Fatal(err)
	}
}

func putClientCert(ctx context.Context, t *testing.T, cp *framework.ControlPlane, cert, key []byte) {
	t.Helper()
	if err := framework.PutEtcdClientCert(ctx, cp.Kube, cert, key); err != nil {
		t.Fatal(err)
	}
}

// waitClientCert waits until the master pool's EtcdLeaderOrdering
// condition names the certificate: the controller uses it.
func waitClientCert(ctx context.Context, t *testing.T, cp *framework.ControlPlane, certPEM []byte) {
	t.Helper()
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	serial := fmt.Sprintf("serial %x,", cert.SerialNumber)
	poll(ctx, t, "the controller using the client certificate of "+serial, func() (bool, string) {
		p, state := poolStatus(ctx, cp)
		if p == nil {
			return false, state
		}
		c := node.FindCondition(p.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition)
		return c != nil && c.Status == corev1.ConditionTrue && strings.Contains(c.Message, serial), state
	})
}

// checkLeaderLast judges the grants from index from on (one rollout of the
// 3 masters) by the rule tandem promises (DESIGN.md): no master is granted
// while it leads etcd, the member leading at the start is granted last,
// and leadership moved before its grant (a MoveEtcdLeader event).
func checkLeaderLast(ctx context.Context, t *testing.T, cp *framework.ControlPlane, tl *timeline, from int, startLeader string) {
	t.Helper()
	all, _ := tl.snapshot()
	grants := all[from:]
	var order []string
	for _, g := range grants {
		order = append(order, g.Node)
		t.Logf("grant: %s -> %s at %s, etcd leader then: %s", g.Node, g.Config, g.At.Format("15:04:05.000"), g.Leader)
	}
	if len(grants) != 3 {
		t.Fatalf("want 3 grants, got %v", order)
	}
	for _, g := range grants {
		if g.Node == g.Leader {
			t.Errorf("%s was granted while it led etcd", g.Node)
		}
	}
	if order[2] != startLeader || slices.Index(order, startLeader) != 2 {
		t.Errorf("the etcd leader at the start (%s) must be granted last; order %v", startLeader, order)
	}
	if !hasEvent(ctx, t, cp, node.EventMoveEtcdLeader) {
		t.Errorf("no %s event", node.EventMoveEtcdLeader)
	}
}
