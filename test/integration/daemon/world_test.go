//go:build integration

// Package daemon_test runs the machine-config-daemon binary on simulated
// nodes (test/framework.SimNode: the rpm-ostree double, a root dir) against a
// real kube-apiserver. The test itself plays the controller (stageConfig,
// desiredConfig) and the drain controller (cordon, lastAppliedDrain).
package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
)

// world is one control plane, one registry with two OS images, the built
// binaries, and the test's stand-ins for the controllers.
type world struct {
	t         testing.TB
	cp        *framework.ControlPlane
	daemon    string
	rpmOstree string
	imageA    string
	imageB    string
	registry  *osimage.Registry
	drainer   *drainer
	// cfgs and imageOf are the Ignition and OS image of each MachineConfig
	// the test created, by name.
	cfgs    map[string]ign3types.Config
	imageOf map[string]string
	// pageCache adds up what the crash runs' page caches dropped.
	pageCache *pageCacheTally
}

// pageCacheTally is the sum of the nodes' framework.PageCacheStats.
type pageCacheTally struct {
	mu sync.Mutex
	framework.PageCacheStats
}

func (p *pageCacheTally) add(s framework.PageCacheStats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.PowerLosses += s.PowerLosses
	p.UnsyncedDroppedBytes += s.UnsyncedDroppedBytes
}

func (p *pageCacheTally) get() framework.PageCacheStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.PageCacheStats
}

var (
	sharedOnce sync.Once
	shared     struct {
		daemon, rpmOstree string
		err               error
	}
)

func buildBinaries(t testing.TB) (string, string) {
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tandem-daemon-bins-")
		if err != nil {
			shared.err = err
			return
		}
		shared.daemon, shared.rpmOstree, shared.err = framework.BuildSimNodeBinaries(context.Background(), dir)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.daemon, shared.rpmOstree
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{t: t, cfgs: map[string]ign3types.Config{}, imageOf: map[string]string{}, pageCache: &pageCacheTally{}}
	w.daemon, w.rpmOstree = buildBinaries(t)
	w.cp = framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "daemon"})
	reg, err := osimage.StartRegistry(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	w.registry = reg
	for i, p := range []*string{&w.imageA, &w.imageB} {
		ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{
			Registry: reg, Version: i + 1, SizeBytes: 3 << 20, Layers: 2, Uncompressed: true, WorkDir: t.TempDir(),
		})
		if err != nil {
			t.Fatalf("synthesizing image v%d: %v", i+1, err)
		}
		*p = ref
	}
	w.drainer = startDrainer(t, w.cp)
	return w
}

// in returns the world with its helpers failing t (a subtest) rather than
// the test that made the world.
func (w *world) in(t testing.TB) *world {
	c := *w
	c.t = t
	return &c
}

// Config contents used by the tests.
const (
	cfgA = "rendered-worker-a"
	cfgB = "rendered-worker-b"
)

type fileSpec struct {
	path, contents string
	mode           int
}

func dataURL(s string) string { return "data:," + url.PathEscape(s) }

func ignition(fs []fileSpec, units []ign3types.Unit) ign3types.Config {
	cfg := ign3types.Config{Ignition: ign3types.Ignition{Version: "3.5.0"}}
	for _, f := range fs {
		src, mode := dataURL(f.contents), f.mode
		cfg.Storage.Files = append(cfg.Storage.Files, ign3types.File{
			Node:          ign3types.Node{Path: f.path},
			FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: &src}, Mode: &mode},
		})
	}
	cfg.Systemd.Units = units
	return cfg
}

// pullSecretPath is where the MCO's template lays the cluster's pull secret,
// mode 0600, in every rendered config (openshift/machine-config-operator
// release-4.21 templates/common/_base/files/pull-secret.yaml); the daemon
// hands it to rpm-ostree.
const pullSecretPath = "/var/lib/kubelet/config.json"

// withPullSecret adds the cluster's pull secret (the registry's
// credentials) to cfg, as every config the MCO renders carries it.
func (w *world) withPullSecret(cfg ign3types.Config) ign3types.Config {
	for _, f := range cfg.Storage.Files {
		if f.Path == pullSecretPath {
			return cfg
		}
	}
	src, mode := dataURL(string(w.registry.AuthJSON())), 0o600
	cfg.Storage.Files = append(slices.Clone(cfg.Storage.Files), ign3types.File{
		Node:          ign3types.Node{Path: pullSecretPath},
		FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: &src}, Mode: &mode},
	})
	return cfg
}

func (w *world) createMC(name, image string, cfg any, kargs ...string) *mcfgv1.MachineConfig {
	w.t.Helper()
	if c, ok := cfg.(ign3types.Config); ok {
		cfg = w.withPullSecret(c)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineConfigSpec{
			OSImageURL: image, KernelArguments: kargs,
			Config: runtime.RawExtension{Raw: raw},
		},
	}
	created, err := w.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(context.Background(), mc, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("creating MachineConfig %s: %v", name, err)
	}
	w.imageOf[name] = image
	if c, ok := cfg.(ign3types.Config); ok {
		w.cfgs[name] = c
	}
	return created
}

// standardConfigs creates config A (the node's install config) and B (a
// new OS image, a changed file, a new file, a new enabled unit and a new
// kernel argument).
func (w *world) standardConfigs() (a, b ign3types.Config) {
	a = ignition([]fileSpec{
		{"/etc/tandem-test/app.conf", "version=1\n", 0o644},
		{"/etc/tandem-test/only-in-a.conf", "gone in b\n", 0o600},
	}, nil)
	unit := "[Unit]\nDescription=tandem test\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"
	enabled := true
	b = ignition([]fileSpec{
		{"/etc/tandem-test/app.conf", "version=2\n", 0o640},
		{"/etc/tandem-test/new.conf", strings.Repeat("new line\n", 100), 0o600},
		{"/etc/tandem-test/big.bin", strings.Repeat("0123456789abcdef", 4096), 0o644},
	}, []ign3types.Unit{{Name: "tandem-test.service", Contents: &unit, Enabled: &enabled}})
	w.createMC(cfgA, w.imageA, a)
	w.createMC(cfgB, w.imageB, b, "tandem.test=1")
	return a, b
}

// installNode creates the Node object running cfg and a simulated node
// booting image with cfg's files already written (as the installer would).
func (w *world) installNode(name, cfgName string, cfg ign3types.Config, image string, opts framework.SimNodeOptions) *framework.SimNode {
	w.t.Helper()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:   name,
		Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
		Annotations: map[string]string{
			constants.CurrentConfigAnnotation: cfgName,
			constants.DesiredConfigAnnotation: cfgName,
			constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
		},
	}}
	if _, err := w.cp.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating node %s: %v", name, err)
	}
	opts.Name, opts.Kubeconfig = name, w.cp.KubeconfigPath
	opts.DaemonBinary, opts.RPMOstreeBinary = w.daemon, w.rpmOstree
	opts.InitialImage = image
	if opts.Dir == "" {
		opts.Dir = w.t.TempDir()
	}
	// Lay down the install config's files before the daemon starts, and
	// the registry's CA, which the machine trusts from its installation.
	cfg = w.withPullSecret(cfg)
	files0 := maps.Clone(opts.Files)
	if files0 == nil {
		files0 = map[string]string{}
	}
	maps.Copy(files0, w.registry.TrustFiles())
	opts.Files = files0
	nodes, err := files.Plan(filepath.Join(opts.Dir, "root"), nil, &cfg, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	wr := &files.Writer{Root: filepath.Join(opts.Dir, "root")}
	if err := wr.Apply(nodes, nil); err != nil {
		w.t.Fatal(err)
	}
	return framework.NewSimNode(w.t, opts)
}

func (w *world) node(name string) *corev1.Node {
	w.t.Helper()
	n, err := w.cp.Kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

func (w *world) annotate(name string, kv map[string]string) {
	w.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := w.cp.Kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for k, v := range kv {
			n.Annotations[k] = v
		}
		_, err = w.cp.Kube.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		w.t.Fatalf("annotating %s: %v", name, err)
	}
}

// waitFor polls cond until it holds; on timeout it fails with the node's
// annotations and the daemon's log tail.
func (w *world) waitFor(sn *framework.SimNode, what string, timeout time.Duration, cond func(*corev1.Node) bool) *corev1.Node {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		n := w.node(sn.Name)
		if cond(n) {
			return n
		}
		if err := sn.Err(); err != nil {
			w.t.Fatalf("node %s: harness error: %v", sn.Name, err)
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("node %s: timed out waiting for %s\nannotations: %v\nunschedulable: %v\ndaemon log tail:\n%s",
				sn.Name, what, n.Annotations, n.Spec.Unschedulable, sn.DaemonLogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *world) mcn(name string) *mcfgv1.MachineConfigNode {
	w.t.Helper()
	m, err := w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("getting MachineConfigNode %s: %v", name, err)
	}
	return m
}

func condition(m *mcfgv1.MachineConfigNode, t mcfgv1.StateProgress) *metav1.Condition {
	for i := range m.Status.Conditions {
		if m.Status.Conditions[i].Type == string(t) {
			return &m.Status.Conditions[i]
		}
	}
	return nil
}

// checkFiles verifies the node's root holds exactly to's files and units
// and none of from's that to dropped, by the suite's own oracle
// (judgeFiles), and no temporary file anywhere.
func checkFiles(t testing.TB, sn *framework.SimNode, from, to *ign3types.Config) {
	t.Helper()
	for _, bad := range judgeFiles(sn.Root, from, to) {
		t.Errorf("node %s files: %s", sn.Name, bad)
	}
	// A temporary file may be in flight (the daemon keeps writing its
	// record and timeline after Done, each by rename): one is left only if
	// it is still there 10 s later.
	var temps []string
	_ = filepath.WalkDir(sn.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && files.IsTemp(d.Name()) {
			temps = append(temps, p)
		}
		return nil
	})
	for deadline := time.Now().Add(10 * time.Second); len(temps) > 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		temps = slices.DeleteFunc(temps, func(p string) bool { _, err := os.Stat(p); return os.IsNotExist(err) })
	}
	for _, p := range temps {
		t.Errorf("node %s: half-written temporary file %s left (still there 10 s later)", sn.Name, p)
	}
}

// checkNoRecord verifies the daemon forgot the finished update.
func checkNoRecord(t testing.TB, sn *framework.SimNode) {
	t.Helper()
	st := daemon.NewStore(sn.Root)
	if r, err := st.Load(); err != nil || r != nil {
		t.Errorf("node %s: record left after the update: %+v, %v", sn.Name, r, err)
	}
	if _, err := os.Stat(st.BackupDir()); !os.IsNotExist(err) {
		t.Errorf("node %s: backups left after the update (%v)", sn.Name, err)
	}
}

func bootedImage(t testing.TB, sn *framework.SimNode) string {
	t.Helper()
	d, err := sn.Booted()
	if err != nil {
		t.Fatal(err)
	}
	return daemon.NormalizeImage(d.Origin)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func describe(n *corev1.Node) string {
	return fmt.Sprintf("current=%s desired=%s state=%s reason=%q drain=%s/%s unschedulable=%v",
		n.Annotations[constants.CurrentConfigAnnotation], n.Annotations[constants.DesiredConfigAnnotation],
		n.Annotations[constants.StateAnnotation], n.Annotations[constants.ReasonAnnotation],
		n.Annotations[constants.DesiredDrainAnnotation], n.Annotations[constants.LastAppliedDrainAnnotation], n.Spec.Unschedulable)
}

func toIgn(v any) *ign3types.Config {
	switch c := v.(type) {
	case *ign3types.Config:
		return c
	case ign3types.Config:
		return &c
	}
	return nil
}

func newStoreFor(sn *framework.SimNode) daemon.Store { return daemon.NewStore(sn.Root) }
