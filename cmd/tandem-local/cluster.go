package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// cluster is everything tandem-local started, stopped in reverse order.
type cluster struct {
	etcd *framework.EtcdCluster
	cp   *framework.ControlPlane
	kwok *framework.Kwok
}

func (c *cluster) stop() {
	if c.kwok != nil {
		_ = c.kwok.Stop()
	}
	if c.cp != nil {
		_ = c.cp.Stop()
	}
	if c.etcd != nil {
		_ = c.etcd.Stop()
	}
}

func startCluster(ctx context.Context, o options) (*cluster, error) {
	c := &cluster{}
	var err error
	fmt.Printf("  etcd: %d members (one per master)\n", o.masters)
	if c.etcd, err = framework.StartEtcdCluster(ctx, filepath.Join(o.dir, "etcd"), o.masters); err != nil {
		return c, fmt.Errorf("starting etcd: %w", err)
	}
	fmt.Println("  kube-apiserver, kube-controller-manager, kube-scheduler")
	if c.cp, err = framework.StartControlPlane(ctx, framework.ControlPlaneOptions{
		Name: "tenant", Dir: filepath.Join(o.dir, "tenant"), EtcdCluster: c.etcd, KubeControllers: true,
	}); err != nil {
		return c, fmt.Errorf("starting control plane: %w", err)
	}
	fmt.Println("  kwok kubelets")
	if c.kwok, err = framework.StartKwok(ctx, c.cp); err != nil {
		return c, fmt.Errorf("starting kwok: %w", err)
	}
	if err := registerPools(ctx, c); err != nil {
		return c, err
	}
	var names []string
	for i := range o.masters {
		names = append(names, c.etcd.MemberName(i))
	}
	if err := registerNodes(ctx, c, constants.MasterPool, names); err != nil {
		return c, err
	}
	names = nil
	for i := range o.workers {
		names = append(names, fmt.Sprintf("worker-%d", i))
	}
	if err := registerNodes(ctx, c, constants.WorkerPool, names); err != nil {
		return c, err
	}
	waitCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	all := append([]string{}, names...)
	for i := range o.masters {
		all = append(all, c.etcd.MemberName(i))
	}
	if err := framework.WaitForNodesReady(waitCtx, c.cp.Kube, all...); err != nil {
		return c, fmt.Errorf("waiting for nodes to become Ready: %w", err)
	}
	return c, nil
}

func registerPools(ctx context.Context, c *cluster) error {
	one := intstr.FromInt32(1)
	for _, name := range []string{constants.MasterPool, constants.WorkerPool} {
		pool := &mcfgv1.MachineConfigPool{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: mcfgv1.MachineConfigPoolSpec{
				MachineConfigSelector: metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.MachineConfigRoleLabel, name),
				NodeSelector:          metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.NodeRoleLabelPrefix+name, ""),
				MaxUnavailable:        &one,
			},
		}
		if _, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pool %s: %w", name, err)
		}
	}
	return nil
}

func registerNodes(ctx context.Context, c *cluster, role string, names []string) error {
	for _, n := range names {
		node := framework.KwokNode(n, map[string]string{constants.NodeRoleLabelPrefix + role: ""})
		if _, err := c.cp.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s: %w", n, err)
		}
	}
	return nil
}
