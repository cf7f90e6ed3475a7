// Package scale is `make bench-scale`'s world: a real kube-apiserver and
// etcd (test/framework) whose N worker Nodes kwok keeps Ready, the real
// machine-config-controller binary running as in production (its service
// account, leader election, the DPU tenant side), one simulated daemon per
// node that runs the real daemon loop and API client in process (see
// simNode), and, for the DPU pairing, an infra cluster with one dpu-worker
// node per paired host and its own machine-config-controller talking to the
// tenant with the narrow infra identity. Every process it starts dies with
// the bench; everything listens on loopback.
package scale

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// Options size the world.
type Options struct {
	// Dir holds everything (control planes, audit logs, node roots).
	Dir string
	// Workers is the tenant worker pool's size.
	Workers int
	// DPUs is how many workers have a DPU (every other worker, from the
	// first); 0 runs no infra cluster.
	DPUs int
	// MaxUnavailable of the tenant worker pool (and the DPU pool), e.g. "10%".
	MaxUnavailable string
	// Sim are the simulated machines' timings.
	Sim SimParams
	// InfraUpdate also rolls a new config out to the DPU pool, at the same
	// time as the tenant's.
	InfraUpdate bool
	// AuditLevel of the writes in the audit log: Metadata (default) or
	// Request (also their bodies).
	AuditLevel string
	// ControllerProfile, when set, is where the tenant controller's CPU
	// profile of the first ProfileSeconds of the rollout is written (the
	// controller runs with --profiling).
	ControllerProfile string
	ProfileSeconds    int
	// ControllerArgs are added to both machine-config-controllers' flags,
	// to measure a setting (--kube-api-qps, --drain-workers) at scale.
	ControllerArgs []string
	// Logf receives progress lines.
	Logf func(format string, args ...any)
}

const (
	namespace        = "openshift-machine-config-operator"
	controllerUser   = "system:serviceaccount:" + namespace + ":machine-config-controller"
	daemonUser       = "system:serviceaccount:" + namespace + ":machine-config-daemon"
	infraIdentity    = "system:serviceaccount:" + namespace + ":tandem-dpu-infra"
	baseConfig       = "00-%s-base"
	updateConfig     = "99-%s-bench-update"
	benchImageFormat = "registry.invalid/tandem-bench/os@sha256:%s" // never pulled: simOS
)

// serviceAccountGroups are the groups the apiserver gives a service account.
var serviceAccountGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}

// image names the bench's OS image called tag (a digest reference, as
// rendered configs carry).
func image(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	return fmt.Sprintf(benchImageFormat, hex.EncodeToString(sum[:]))
}

// cluster is one of the two clusters.
type cluster struct {
	name       string
	pool       string
	cp         *framework.ControlPlane
	kwok       *framework.Kwok
	auditLog   string
	controller *child
	metricsURL string
	nodes      []string
	fleet      *fleet
	daemonCfg  *rest.Config
	cancel     context.CancelFunc
}

// World is the running scene.
type World struct {
	opts   Options
	bin    string // machine-config-controller
	tenant *cluster
	infra  *cluster // nil without DPUs
	// pairs maps DPU node -> tenant host.
	pairs map[string]string
}

// Start builds the controller and starts everything, up to both pools at
// rest on their first rendered config with every daemon running.
func Start(ctx context.Context, o Options) (_ *World, retErr error) {
	if o.Workers < 1 || o.DPUs < 0 || o.DPUs > (o.Workers+1)/2 {
		return nil, fmt.Errorf("want workers >= 1 and 0 <= dpus <= (workers+1)/2, got %d and %d", o.Workers, o.DPUs)
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	w := &World{opts: o, pairs: map[string]string{}}
	defer func() {
		if retErr != nil {
			w.Stop()
		}
	}()
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"building machine-config-controller", w.build},
		{"starting the control planes (audit logged) and kwok", w.startClusters},
		{"applying RBAC and creating pools and base configs", w.registerPools},
		{"starting the machine-config-controllers", w.startControllers},
		{"creating the nodes and waiting until kwok reports them Ready", w.createNodes},
		{"starting one simulated daemon per node", w.startDaemons},
		{"waiting for the pools to settle", w.settle},
	}
	for _, s := range steps {
		start := time.Now()
		o.Logf("bench-scale: %s", s.what)
		if err := s.do(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.what, err)
		}
		o.Logf("bench-scale: ... %.1fs", time.Since(start).Seconds())
	}
	return w, nil
}

func (w *World) clusters() []*cluster {
	if w.infra == nil {
		return []*cluster{w.tenant}
	}
	return []*cluster{w.tenant, w.infra}
}

// Stop stops the daemons, the controllers, kwok and the control planes.
func (w *World) Stop() {
	for _, c := range []*cluster{w.tenant, w.infra} {
		if c != nil && c.fleet != nil {
			c.cancel()
			c.fleet.wait()
		}
	}
	for _, c := range []*cluster{w.infra, w.tenant} {
		if c == nil {
			continue
		}
		if c.controller != nil {
			c.controller.stop()
		}
		if c.kwok != nil {
			_ = c.kwok.Stop()
		}
		if c.cp != nil {
			_ = c.cp.Stop()
		}
	}
}

func (w *World) path(p ...string) string { return filepath.Join(append([]string{w.opts.Dir}, p...)...) }

func (w *World) build(ctx context.Context) error {
	w.bin = w.path("bin", "machine-config-controller")
	root, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("finding the module root: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", w.bin, "./cmd/machine-config-controller")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

func (w *World) startClusters(ctx context.Context) error {
	w.tenant = &cluster{name: "tenant", pool: constants.WorkerPool}
	for i := range w.opts.Workers {
		w.tenant.nodes = append(w.tenant.nodes, fmt.Sprintf("worker-%05d", i))
	}
	if w.opts.DPUs > 0 {
		w.infra = &cluster{name: "infra", pool: constants.DPUWorkerPool}
		for i := range w.opts.DPUs {
			name := fmt.Sprintf("dpu-%05d", i)
			w.infra.nodes = append(w.infra.nodes, name)
			w.pairs[name] = w.tenant.nodes[2*i]
		}
	}
	for _, c := range w.clusters() {
		dir := w.path(c.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		policy := filepath.Join(dir, "audit-policy.yaml")
		level := w.opts.AuditLevel
		if level == "" {
			level = "Metadata"
		}
		if err := os.WriteFile(policy, []byte(auditPolicy(level)), 0o644); err != nil {
			return err
		}
		c.auditLog = filepath.Join(dir, "audit.log")
		var err error
		if c.cp, err = framework.StartControlPlane(ctx, framework.ControlPlaneOptions{
			Name: c.name, Dir: dir, APIServerArgs: auditFlags(policy, c.auditLog)}); err != nil {
			return err
		}
		if c.kwok, err = framework.StartKwok(ctx, c.cp); err != nil {
			return err
		}
	}
	return nil
}

// registerPools applies the product's RBAC and makes each cluster's pool
// (maxUnavailable from the options) with a base config on the first image.
func (w *World) registerPools(ctx context.Context) error {
	for _, c := range w.clusters() {
		manifests := []string{"manifests/rbac/machine-config-controller.yaml", "manifests/rbac/machine-config-daemon.yaml"}
		if c == w.tenant && w.infra != nil {
			manifests = append(manifests, "manifests/rbac/tenant-dpu-infra-identity.yaml")
		}
		for _, m := range manifests {
			if err := framework.ApplyManifest(ctx, c.cp.Kube, m); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		mu := intstr.Parse(w.opts.MaxUnavailable)
		pool := &mcfgv1.MachineConfigPool{
			ObjectMeta: metav1.ObjectMeta{Name: c.pool},
			Spec: mcfgv1.MachineConfigPoolSpec{
				MachineConfigSelector: metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.MachineConfigRoleLabel, c.pool),
				NodeSelector:          metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.NodeRoleLabelPrefix+c.pool, ""),
				MaxUnavailable:        &mu,
			},
		}
		if _, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pool %s in %s: %w", c.pool, c.name, err)
		}
		if err := createConfig(ctx, c, fmt.Sprintf(baseConfig, c.pool), image(c.pool+"-base"), ""); err != nil {
			return err
		}
		var err error
		if c.daemonCfg, err = addServiceAccountUser(c.cp, daemonUser); err != nil {
			return err
		}
	}
	return nil
}

func addServiceAccountUser(cp *framework.ControlPlane, user string) (*rest.Config, error) {
	_, cfg, err := cp.AddUser(user, serviceAccountGroups...)
	return cfg, err
}

func addServiceAccountKubeconfig(cp *framework.ControlPlane, user string) (string, error) {
	path, _, err := cp.AddUser(user, serviceAccountGroups...)
	return path, err
}

// createConfig creates a MachineConfig for pool with osImageURL img and,
// when file is set, one file /etc/tandem-bench/<file>.
func createConfig(ctx context.Context, c *cluster, name, img, file string) error {
	cfg := map[string]any{"ignition": map[string]string{"version": "3.4.0"}}
	if file != "" {
		cfg["storage"] = map[string]any{"files": []map[string]any{{
			"path": "/etc/tandem-bench/" + file, "mode": 0o644, "overwrite": true,
			"contents": map[string]string{"source": "data:text/plain;charset=utf-8;base64," +
				base64.StdEncoding.EncodeToString([]byte("rolled out by make bench-scale\n"))},
		}}}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: c.pool}},
		Spec:       mcfgv1.MachineConfigSpec{OSImageURL: img, Config: runtime.RawExtension{Raw: raw}},
	}
	if _, err := c.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating MachineConfig %s in %s: %w", name, c.name, err)
	}
	return nil
}

func (w *World) startControllers(ctx context.Context) error {
	for _, c := range w.clusters() {
		kubeconfig, err := addServiceAccountKubeconfig(c.cp, controllerUser)
		if err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		c.metricsURL = "http://" + addr + "/metrics"
		// The production Deployment's flags (manifests/deploy), minus etcd:
		// the bench has no masters to order.
		args := []string{"start", "--kubeconfig=" + kubeconfig, "--leader-elect=true", "--resourcelock-namespace=openshift-machine-config-operator", "--metrics-listen-address=" + addr}
		if c == w.tenant && w.infra != nil {
			args = append(args, "--dpu-tenant")
		}
		if c == w.tenant && w.opts.ControllerProfile != "" {
			args = append(args, "--profiling")
		}
		if c == w.infra {
			identity, err := addServiceAccountKubeconfig(w.tenant.cp, infraIdentity)
			if err != nil {
				return err
			}
			args = append(args, "--dpu-tenant-kubeconfig="+identity)
		}
		args = append(args, w.opts.ControllerArgs...)
		if c.controller, err = startChild(c.name+" machine-config-controller", w.path(c.name, "machine-config-controller.log"), w.bin, args...); err != nil {
			return err
		}
	}
	for _, c := range w.clusters() {
		if _, err := w.target(ctx, c, ""); err != nil {
			return err
		}
	}
	return nil
}

// target waits until c's pool names a rendered config other than not.
func (w *World) target(ctx context.Context, c *cluster, not string) (string, error) {
	var name string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		if dead, err := c.controller.exited(); dead {
			return false, fmt.Errorf("%s machine-config-controller exited: %v (log %s)", c.name, err, w.path(c.name, "machine-config-controller.log"))
		}
		p, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, c.pool, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		name = p.Spec.Configuration.Name
		return name != "" && name != not, nil
	})
	if err != nil {
		return "", fmt.Errorf("pool %s in %s got no rendered config other than %q (last %q): %w", c.pool, c.name, not, name, err)
	}
	return name, nil
}

// createNodes creates every node already running its pool's first
// rendered config (as an installed cluster's nodes are), spread over three
// zones, and waits until kwok reports all Ready.
func (w *World) createNodes(ctx context.Context) error {
	for _, c := range w.clusters() {
		rendered, err := w.target(ctx, c, "")
		if err != nil {
			return err
		}
		names := make(chan string)
		errs := make(chan error, 8)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for name := range names {
					if err := createNode(ctx, c, name, rendered, w.pairs[name]); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	feed:
		for _, name := range c.nodes {
			select {
			case names <- name:
			case err := <-errs:
				close(names)
				wg.Wait()
				return err
			case <-ctx.Done():
				break feed
			}
		}
		close(names)
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
		}
	}
	for _, c := range w.clusters() {
		if err := waitReady(ctx, c, 2*time.Minute+time.Duration(len(c.nodes))*100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func createNode(ctx context.Context, c *cluster, name, rendered, tenantHost string) error {
	var idx int
	_, _ = fmt.Sscanf(name[strings.LastIndexByte(name, '-')+1:], "%d", &idx)
	labels := map[string]string{
		constants.NodeRoleLabelPrefix + c.pool: "",
		constants.ZoneLabel:                    fmt.Sprintf("zone-%c", 'a'+idx%3),
	}
	n := framework.KwokNode(name, labels)
	n.Annotations[constants.CurrentConfigAnnotation] = rendered
	n.Annotations[constants.DesiredConfigAnnotation] = rendered
	n.Annotations[constants.StateAnnotation] = constants.MachineConfigDaemonStateDone
	if tenantHost != "" {
		n.Annotations[constants.TenantNodeAnnotation] = tenantHost
	}
	if _, err := c.cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating node %s in %s: %w", name, c.name, err)
	}
	return nil
}

// waitReady waits until every node of c is Ready.
func waitReady(ctx context.Context, c *cluster, timeout time.Duration) error {
	ready := 0
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := c.cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		ready = 0
		for i := range list.Items {
			if framework.NodeReady(&list.Items[i]) {
				ready++
			}
		}
		return ready == len(c.nodes), nil
	})
	if err != nil {
		return fmt.Errorf("%s: %d of %d nodes Ready after %s: %w", c.name, ready, len(c.nodes), timeout, err)
	}
	return nil
}

func (w *World) startDaemons(ctx context.Context) error {
	for _, c := range w.clusters() {
		dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		c.cancel = cancel
		f, err := startFleet(dctx, c.daemonCfg, w.path(c.name, "nodes"), c.nodes, image(c.pool+"-base"), w.opts.Sim)
		if err != nil {
			cancel()
			return err
		}
		c.fleet = f
	}
	return nil
}

// settle waits until each pool reports every node updated on its first
// config, and a little more so the daemons' first observations are over.
func (w *World) settle(ctx context.Context) error {
	for _, c := range w.clusters() {
		var last string
		err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
			if err := c.fleet.failures(); err != nil {
				return false, err
			}
			p, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, c.pool, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			s := p.Status
			last = fmt.Sprintf("machines=%d updated=%d ready=%d", s.MachineCount, s.UpdatedMachineCount, s.ReadyMachineCount)
			n := int32(len(c.nodes))
			return s.MachineCount == n && s.UpdatedMachineCount == n && s.ReadyMachineCount == n, nil
		})
		if err != nil {
			return fmt.Errorf("pool %s in %s did not settle (last %s): %w", c.pool, c.name, last, err)
		}
		// Each daemon creates its MachineConfigNode when it starts: a
		// once-per-node write that is not the rollout's.
		err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
			list, err := c.cp.MCO.MachineconfigurationV1().MachineConfigNodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			last = fmt.Sprintf("%d MachineConfigNodes for %d nodes", len(list.Items), len(c.nodes))
			return len(list.Items) >= len(c.nodes), nil
		})
		if err != nil {
			return fmt.Errorf("%s: the daemons did not all create their MachineConfigNode (last %s): %w", c.name, last, err)
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
	}
	return nil
}

// freePort reserves a loopback port for a listener started right after.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("reserving a loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
