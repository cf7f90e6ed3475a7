//go:build vm

package vm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
	"github.com/tandem-mco/tandem/test/vm"
)

// Guest ports of the host services (guestfwd at vm.GuestHostAddr).
const (
	guestAPIPort      = 6443
	guestRegistryPort = 5000
	guestEtcdPort     = 2379
	nodeName          = "vm-node"
)

// world is the host side of the VM node: a real kube-apiserver with the
// Node object, a registry of OS images, the drain controller, and the VM.
type world struct {
	t     *testing.T
	cp    *framework.ControlPlane
	reg   *osimage.Registry
	node  *vm.Node
	accel string
	// etcdHost is the guest etcd's client address on the host (hostfwd).
	etcdHost string
	log      *os.File
}

// guestRegistry is the registry's host:port as the guest reaches it.
func guestRegistry() string { return fmt.Sprintf("%s:%d", vm.GuestHostAddr, guestRegistryPort) }

// guestRef is an image reference as the guest reaches the registry.
func (w *world) guestRef(ref string) string {
	return strings.Replace(ref, w.reg.Host(), guestRegistry(), 1)
}

// image synthesizes OS image version v (sizeMiB of real ELF content) and
// returns its reference as the guest sees it.
func (w *world) image(ctx context.Context, v int, sizeMiB int64) string {
	w.t.Helper()
	ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{
		Registry: w.reg, Version: v, SizeBytes: sizeMiB << 20, Uncompressed: true, WorkDir: w.t.TempDir(),
	})
	if err != nil {
		w.t.Fatalf("synthesizing OS image %d: %v", v, err)
	}
	return w.guestRef(ref)
}

type fileSpec struct {
	path, contents string
	mode           int
}

// config is one rendered MachineConfig and the files it must leave on the node.
type config struct {
	name  string
	image string
	files []fileSpec
	mc    *mcfgv1.MachineConfig
}

func ignitionOf(fs []fileSpec) ign3types.Config {
	cfg := ign3types.Config{Ignition: ign3types.Ignition{Version: "3.5.0"}}
	for _, f := range fs {
		src, mode := "data:,"+url.PathEscape(f.contents), f.mode
		cfg.Storage.Files = append(cfg.Storage.Files, ign3types.File{
			Node:          ign3types.Node{Path: f.path},
			FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: &src}, Mode: &mode},
		})
	}
	return cfg
}

// createConfig makes rendered-worker-<name>: image plus files that differ
// per config (one changed, one new, a large one), so a half-written or
// rolled-back file shows.
func (w *world) createConfig(ctx context.Context, name, image string) *config {
	w.t.Helper()
	c := &config{name: "rendered-worker-" + name, image: image, files: []fileSpec{
		// The cluster's pull secret, in every rendered config (the MCO's
		// templates/common/_base/files/pull-secret.yaml): the registry's
		// credentials as the guest reaches it.
		{"/var/lib/kubelet/config.json", string(w.reg.AuthJSON(guestRegistry())), 0o600},
		{"/etc/tandem-vm/app.conf", "config=" + name + "\n", 0o644},
		{"/etc/tandem-vm/" + name + ".conf", strings.Repeat(name+" line\n", 200), 0o600},
		{"/etc/tandem-vm/big.bin", strings.Repeat(name+"-0123456789abcdef", 8192), 0o644},
	}}
	raw, err := json.Marshal(ignitionOf(c.files))
	if err != nil {
		w.t.Fatal(err)
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: c.name},
		Spec:       mcfgv1.MachineConfigSpec{OSImageURL: image, Config: runtime.RawExtension{Raw: raw}},
	}
	if c.mc, err = w.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating MachineConfig %s: %v", c.name, err)
	}
	return c
}

// apiserverAddr is the kube-apiserver's host:port on the host.
func (w *world) apiserverAddr() string {
	w.t.Helper()
	u, err := url.Parse(w.cp.RESTConfig.Host)
	if err != nil {
		w.t.Fatal(err)
	}
	return u.Host
}

// guestKubeconfig is the admin kubeconfig pointed at the apiserver's
// guestfwd address; the server certificate is still checked against the
// host name it was issued for.
func (w *world) guestKubeconfig() []byte {
	w.t.Helper()
	rc := w.cp.RESTConfig
	u, err := url.Parse(rc.Host)
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["vm"] = &clientcmdapi.Cluster{
		Server:                   fmt.Sprintf("https://%s:%d", vm.GuestHostAddr, guestAPIPort),
		CertificateAuthorityData: rc.CAData, TLSServerName: u.Hostname(),
	}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: rc.CertData, ClientKeyData: rc.KeyData, Token: rc.BearerToken}
	cfg.Contexts["vm"] = &clientcmdapi.Context{Cluster: "vm", AuthInfo: "admin"}
	cfg.CurrentContext = "vm"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

// startDrainController runs tandem's drain controller against the
// apiserver: it answers the daemon's drain and uncordon requests.
func (w *world) startDrainController(ctx context.Context) {
	w.t.Helper()
	f := informers.NewSharedInformerFactory(w.cp.Kube, 0)
	c, err := drain.NewController(w.cp.Kube, f.Core().V1().Nodes(), drain.Options{})
	if err != nil {
		w.t.Fatalf("drain controller: %v", err)
	}
	f.Start(ctx.Done())
	go func() { _ = c.Run(ctx, 1) }()
}

// createNode makes the Node object of an installed node running cfg.
func (w *world) createNode(ctx context.Context, cfg string) {
	w.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:   nodeName,
		Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
		Annotations: map[string]string{
			constants.CurrentConfigAnnotation: cfg,
			constants.DesiredConfigAnnotation: cfg,
			constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
		},
	}}
	if _, err := w.cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating node: %v", err)
	}
}

// annotate plays the node controller's part: stageConfig, desiredConfig.
func (w *world) annotate(ctx context.Context, kv map[string]string) {
	w.t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": kv}})
	if _, err := w.cp.Kube.CoreV1().Nodes().Patch(ctx, nodeName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		w.t.Fatalf("annotating node: %v", err)
	}
	w.logf("controller: set %v", kv)
}

func (w *world) getNode(ctx context.Context) (*corev1.Node, error) {
	return w.cp.Kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
}

// waitNode waits, up to bound, for cond on the Node; it fails with the
// annotations it last saw.
func (w *world) waitNode(ctx context.Context, what string, bound time.Duration, cond func(*corev1.Node) bool) (*corev1.Node, error) {
	deadline := time.Now().Add(bound)
	var last string
	for {
		n, err := w.getNode(ctx)
		if err == nil {
			if cond(n) {
				return n, nil
			}
			last = describe(n)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("node not %s within %s; last seen: %s", what, bound, last)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func describe(n *corev1.Node) string {
	var parts []string
	for _, k := range []string{constants.CurrentConfigAnnotation, constants.DesiredConfigAnnotation, constants.StageConfigAnnotation,
		constants.StagedConfigAnnotation, constants.StateAnnotation, constants.ReasonAnnotation, constants.DesiredDrainAnnotation, constants.LastAppliedDrainAnnotation} {
		if v := n.Annotations[k]; v != "" {
			parts = append(parts, strings.TrimPrefix(k, "machineconfiguration.openshift.io/")+"="+v)
		}
	}
	return fmt.Sprintf("unschedulable=%v %s", n.Spec.Unschedulable, strings.Join(parts, " "))
}

func (w *world) logf(format string, args ...any) {
	line := time.Now().Format("15:04:05.000") + " " + fmt.Sprintf(format, args...)
	w.t.Log(line)
	if w.log != nil {
		fmt.Fprintln(w.log, line)
	}
}

func (w *world) dir(name string) string {
	d := filepath.Join(w.t.TempDir(), name)
	_ = os.MkdirAll(d, 0o755)
	return d
}
