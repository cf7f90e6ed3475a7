package world

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

func (w *World) startClusters(ctx context.Context) error {
	var err error
	if w.Etcd, err = framework.StartEtcdCluster(ctx, w.path("tenant-etcd"), w.Opts.Masters); err != nil {
		return err
	}
	w.Tenant = &Cluster{Name: "tenant", Pools: map[string]int{
		constants.MasterPool: 1, constants.WorkerPool: w.Opts.WorkerMaxUnavailable}}
	if w.Tenant.CP, err = framework.StartControlPlane(ctx, framework.ControlPlaneOptions{
		// Each master runs its own kube-apiserver (its static pod) behind
		// the API load balancer, as OpenShift runs them.
		Name: "tenant", Dir: w.path("tenant"), EtcdCluster: w.Etcd, KubeControllers: true, APIServers: w.Opts.Masters}); err != nil {
		return err
	}
	w.Infra = &Cluster{Name: "infra", Pools: map[string]int{constants.DPUWorkerPool: w.Opts.InfraMaxUnavailable}}
	if w.Infra.CP, err = framework.StartControlPlane(ctx, framework.ControlPlaneOptions{
		Name: "infra", Dir: w.path("infra"), KubeControllers: true}); err != nil {
		return err
	}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		if c.Kwok, err = framework.StartKwok(ctx, c.CP); err != nil {
			return err
		}
	}
	return nil
}

// registerObjects creates the pools, one base MachineConfig per pool (the
// first OS image) and the Node objects, paired DPU <-> host.
func (w *World) registerObjects(ctx context.Context) error {
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool, maxUnavailable := range c.Pools {
			if err := createPool(ctx, c, pool, maxUnavailable); err != nil {
				return err
			}
			if err := w.createConfig(ctx, c, "00-"+pool+"-base", pool, w.Images[0], w.baseFiles()); err != nil {
				return err
			}
		}
	}
	for i := range w.Opts.Masters {
		w.addNode(w.Tenant, w.Etcd.MemberName(i), constants.MasterPool, "", i)
	}
	for i := range w.Opts.Workers {
		pair := ""
		if i < w.Opts.DPUs {
			pair = fmt.Sprintf("dpu-%d", i)
		}
		w.addNode(w.Tenant, fmt.Sprintf("worker-%d", i), constants.WorkerPool, pair, -1)
	}
	for i := range w.Opts.DPUs {
		w.addNode(w.Infra, fmt.Sprintf("dpu-%d", i), constants.DPUWorkerPool, fmt.Sprintf("worker-%d", i), -1)
	}
	for _, name := range w.Order {
		n := w.Nodes[name]
		labels := map[string]string{constants.NodeRoleLabelPrefix + n.Pool: ""}
		if n.Pool == constants.MasterPool {
			labels[constants.NodeRoleLabelPrefix+"control-plane"] = ""
		}
		node := framework.KwokNode(name, labels)
		if n.Cluster == w.Infra && n.Pair != "" {
			node.Annotations[constants.TenantNodeAnnotation] = n.Pair
		}
		if _, err := n.Cluster.CP.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s in %s: %w", name, n.Cluster.Name, err)
		}
	}
	return nil
}

func (w *World) addNode(c *Cluster, name, pool, pair string, member int) {
	w.Nodes[name] = &Node{Name: name, Cluster: c, Pool: pool, Pair: pair, etcdMember: member}
	w.Order = append(w.Order, name)
}

func createPool(ctx context.Context, c *Cluster, name string, maxUnavailable int) error {
	// Paused until bootstrapNodes has marked the nodes as running the
	// first rendered config: a planner seeing nodes without a
	// currentConfig would otherwise plan for them.
	pool := framework.MachineConfigPool(name, maxUnavailable, true)
	if _, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating pool %s in %s: %w", name, c.Name, err)
	}
	return nil
}

// pullSecretPath is where every rendered config lays the cluster's pull
// secret; it holds the world registry's credentials.
const pullSecretPath = framework.KubeletPullSecret

// baseFiles are the files of every pool's base config, as the MCO's
// templates put them in every rendered config: the pull secret.
func (w *World) baseFiles() []framework.IgnitionFile {
	return []framework.IgnitionFile{{Path: pullSecretPath, Contents: string(w.Registry.AuthJSON()), Mode: 0o600}}
}

// installFiles are the files a node has when installed: the base config's
// and the registry's CA (the machine trusts it from its installation).
func (w *World) installFiles() map[string]string {
	files := w.Registry.TrustFiles()
	for _, f := range w.baseFiles() {
		files[f.Path] = f.Contents
	}
	return files
}

func (w *World) createConfig(ctx context.Context, c *Cluster, name, pool, image string, files []framework.IgnitionFile) error {
	return w.writeConfig(ctx, c, name, pool, image, files, false)
}

// applyConfig creates the MachineConfig, or updates it when it exists (a
// later rollout of the same world).
func (w *World) applyConfig(ctx context.Context, c *Cluster, name, pool, image string, files []framework.IgnitionFile) error {
	return w.writeConfig(ctx, c, name, pool, image, files, true)
}

func (w *World) writeConfig(ctx context.Context, c *Cluster, name, pool, image string, files []framework.IgnitionFile, update bool) error {
	mc, err := framework.MachineConfig(name, pool, image, files)
	if err != nil {
		return err
	}
	mcs := c.CP.MCO.MachineconfigurationV1().MachineConfigs()
	if update {
		if cur, err := mcs.Get(ctx, name, metav1.GetOptions{}); err == nil {
			cur.Spec = mc.Spec
			if _, err := mcs.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("updating MachineConfig %s in %s: %w", name, c.Name, err)
			}
			return nil
		}
	}
	if _, err := mcs.Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating MachineConfig %s in %s: %w", name, c.Name, err)
	}
	return nil
}

// renderedConfig waits until pool's spec.configuration names a rendered
// config different from not, and returns it.
func renderedConfig(ctx context.Context, c *Cluster, pool, not string) (string, error) {
	var name string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		name = p.Spec.Configuration.Name
		return name != "" && name != not, nil
	})
	if err != nil {
		return "", fmt.Errorf("pool %s in %s got no new rendered config (have %q): %w", pool, c.Name, name, err)
	}
	return name, nil
}

// bootstrapNodes marks every node as running its pool's first rendered
// config, as the installer does on a new cluster.
func (w *World) bootstrapNodes(ctx context.Context) error {
	for _, name := range w.Order {
		n := w.Nodes[name]
		cfg, err := renderedConfig(ctx, n.Cluster, n.Pool, "")
		if err != nil {
			return err
		}
		if _, err := n.Cluster.CP.Kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, framework.BootstrapNodePatch(cfg), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("bootstrapping node %s: %w", name, err)
		}
	}
	unpause := []byte(framework.UnpausePatch)
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool := range c.Pools {
			if _, err := c.CP.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, pool, types.MergePatchType, unpause, metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("unpausing pool %s in %s: %w", pool, c.Name, err)
			}
		}
	}
	return nil
}
