//go:build e2e

package e2e

// The scene of the takeover and rebootless e2e tests: one control plane with
// kwok kubelets, simulated nodes on the rpm-ostree double, and the state a
// stock MCO leaves on a cluster, built the MCO's way (test/mcooracle renders
// like the MCO; nodes, MachineConfigNodes, the ControllerConfig and the
// on-disk currentconfig as the MCO writes them). Then tandem's daemons and
// controller start on it. What the test counts comes from the world: boots of
// the double, cordons seen on the Node objects, rendered names in the API.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/nodemeta"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/mcfg"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcooracle"
	"github.com/tandem-mco/tandem/test/osimage"
)

const (
	scenePool = constants.WorkerPool
	// mcoControllerVersion is what a stock MCO writes on rendered configs.
	mcoControllerVersion = "afed09939d80d86cafd38e9f733cc49ed16af092"
	sceneWait            = 3 * time.Minute
)

type adoptScene struct {
	t      *testing.T
	ctx    context.Context
	cp     *framework.ControlPlane
	image  string
	reg    *osimage.Registry
	bins   struct{ daemon, rpmOstree, controller string }
	names  []string
	dirs   map[string]string
	sims   map[string]*framework.SimNode
	ctrl   *exec.Cmd
	ctrlWG sync.WaitGroup
	watch  *cordonWatch
}

func newAdoptScene(t *testing.T, nodes int) *adoptScene {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &adoptScene{t: t, ctx: ctx, dirs: map[string]string{}, sims: map[string]*framework.SimNode{}}
	binDir := t.TempDir()
	var err error
	if s.bins.daemon, s.bins.rpmOstree, err = framework.BuildSimNodeBinaries(ctx, binDir); err != nil {
		t.Fatal(err)
	}
	s.bins.controller = filepath.Join(binDir, "machine-config-controller")
	build := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", s.bins.controller, "../../cmd/machine-config-controller")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building machine-config-controller: %v\n%s", err, out)
	}
	s.cp = framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "adopt"})
	framework.NewKwok(t, s.cp)
	reg, err := osimage.StartRegistry(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	s.reg = reg
	if s.image, err = osimage.Synthesize(ctx, osimage.SynthOptions{
		Registry: reg, Version: 1, SizeBytes: 2 << 20, Layers: 1, Uncompressed: true, WorkDir: t.TempDir(),
	}); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		s.names = append(s.names, fmt.Sprintf("worker-%d", i))
	}
	return s
}

// newImage synthesizes another OS image (version v) in the scene's registry.
func (s *adoptScene) newImage(v int) string {
	ref, err := osimage.Synthesize(s.ctx, osimage.SynthOptions{
		Registry: s.reg, Version: v, SizeBytes: 2 << 20, Layers: 1, Uncompressed: true, WorkDir: s.t.TempDir(),
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return ref
}

// Source MachineConfigs of the scene: the MCO's template config, the SSH key
// config and a pull secret, with the content a node is installed with.
func sshKeyMC(key string) *mcfgv1.MachineConfig {
	return sceneMC("99-worker-ssh", map[string]any{"passwd": map[string]any{"users": []any{
		map[string]any{"name": "core", "sshAuthorizedKeys": []string{key}}}}})
}

// pullSecret is a cluster pull secret with releaseAuth for the release
// registry (release.test) and the scene registry's credentials (the nodes
// pull their OS from it).
func (s *adoptScene) pullSecret(releaseAuth string) string {
	var doc struct {
		Auths map[string]map[string]string `json:"auths"`
	}
	if err := json.Unmarshal(s.reg.AuthJSON(), &doc); err != nil {
		s.t.Fatal(err)
	}
	doc.Auths["release.test"] = map[string]string{"auth": releaseAuth}
	b, err := json.Marshal(doc)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

func pullSecretMC(secret string) *mcfgv1.MachineConfig {
	return sceneMC("01-worker-pull-secret", filesIgn(ignFile{"/var/lib/kubelet/config.json", secret, 0o600}))
}

func baseMC(registries string, extra ...ignFile) *mcfgv1.MachineConfig {
	fs := append([]ignFile{
		{"/etc/kubernetes/kubelet-ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", 0o644},
		{"/etc/containers/registries.conf", registries, 0o644},
	}, extra...)
	cfg := filesIgn(fs...)
	unit := "[Unit]\nDescription=Kubernetes Kubelet\n[Service]\nExecStart=/usr/bin/kubelet\n[Install]\nWantedBy=multi-user.target\n"
	cfg["systemd"] = map[string]any{"units": []any{map[string]any{"name": "kubelet.service", "enabled": true, "contents": unit}}}
	return sceneMC("00-worker", cfg)
}

const baseRegistries = "unqualified-search-registries = ['registry.test', 'search.test']\n\n[[registry]]\nprefix = ''\nlocation = 'release.test/openshift-release-dev'\n"

type ignFile struct {
	path, contents string
	mode           int
}

func filesIgn(fs ...ignFile) map[string]any {
	var out []any
	for _, f := range fs {
		// The MCO's template files carry compression "" (NewIgnFile).
		out = append(out, map[string]any{"path": f.path, "mode": f.mode, "overwrite": true,
			"contents": map[string]any{"source": "data:;base64," + base64.StdEncoding.EncodeToString([]byte(f.contents)), "compression": ""}})
	}
	return map[string]any{"storage": map[string]any{"files": out}}
}

func sceneMC(name string, cfg map[string]any) *mcfgv1.MachineConfig {
	cfg["ignition"] = map[string]any{"version": "3.5.0"}
	raw, _ := json.Marshal(cfg)
	return &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: scenePool},
			Annotations: map[string]string{constants.GeneratedByControllerVersionAnnotation: mcoControllerVersion}},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: raw}},
	}
}

// controllerConfig is a ControllerConfig as the MCO's operator writes it
// (the fields its CRD requires, the release's OS image, one certificate).
func (s *adoptScene) controllerConfig() *mcfgv1.ControllerConfig {
	notAfter := metav1.NewTime(time.Now().Add(365 * 24 * time.Hour).Truncate(time.Second))
	return &mcfgv1.ControllerConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "machine-config-controller",
			Annotations: map[string]string{constants.Prefix + "release-image-version": "4.20.0"}},
		Spec: mcfgv1.ControllerConfigSpec{
			ClusterDNSIP: "172.30.0.10", CloudProviderConfig: "", IPFamilies: mcfgv1.IPFamiliesIPv4,
			BaseOSContainerImage:           s.image,
			BaseOSExtensionsContainerImage: "registry.invalid/extensions@sha256:" + strings.Repeat("e", 64),
			ReleaseImage:                   "registry.invalid/release@sha256:" + strings.Repeat("f", 64),
			KubeAPIServerServingCAData:     []byte("ca"), RootCAData: []byte("root"), AdditionalTrustBundle: []byte("bundle"), CloudProviderCAData: []byte("cloud"),
			DNS:     &configv1.DNS{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "DNS"}, Spec: configv1.DNSSpec{BaseDomain: "example.com"}},
			Infra:   &configv1.Infrastructure{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "Infrastructure"}, Spec: configv1.InfrastructureSpec{}, Status: configv1.InfrastructureStatus{ControlPlaneTopology: configv1.HighlyAvailableTopologyMode, InfrastructureTopology: configv1.HighlyAvailableTopologyMode}},
			Network: &mcfgv1.NetworkInfo{},
			Proxy:   &configv1.ProxyStatus{},
			Images:  map[string]string{},
		},
		Status: mcfgv1.ControllerConfigStatus{ControllerCertificates: []mcfgv1.ControllerCertificate{{
			Subject: "CN=kube-apiserver-lb-signer", Signer: "CN=kube-apiserver-lb-signer", BundleFile: "KubeAPIServerServingCAData", NotAfter: &notAfter,
		}}},
	}
}

// installMCOState builds what a stock MCO leaves: the ControllerConfig, the
// sources, their rendered config named and owned the MCO's way, the pool
// targeting it and done, every node annotated Done on it with the drain
// handshake finished, its MachineConfigNode, and the node's disk: the
// rendered config's files, the core user, and the on-disk currentconfig. It
// returns the rendered config's name.
func (s *adoptScene) installMCOState(sources []*mcfgv1.MachineConfig) string {
	t, ctx, mco := s.t, s.ctx, s.cp.MCO.MachineconfigurationV1()
	cc := s.controllerConfig()
	status := cc.Status
	created, err := mco.ControllerConfigs().Create(ctx, cc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the ControllerConfig: %v", err)
	}
	created.Status = status
	if _, err := mco.ControllerConfigs().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("ControllerConfig status: %v", err)
	}
	for _, mc := range sources {
		if _, err := mco.MachineConfigs().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", mc.Name, err)
		}
	}
	mu := intstr.FromInt(1)
	pool, err := mco.MachineConfigPools().Create(ctx, &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: scenePool},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.MachineConfigRoleLabel, scenePool),
			NodeSelector:          metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.NodeRoleLabelPrefix+scenePool, ""),
			MaxUnavailable:        &mu,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the pool: %v", err)
	}
	rendered := s.mcoRender(pool, sources)
	for _, name := range s.names {
		s.installNode(name, rendered)
	}
	return rendered.Name
}

// mcoRender renders the pool as the MCO would and points the pool at it,
// spec and status, with the MCO's source list.
func (s *adoptScene) mcoRender(pool *mcfgv1.MachineConfigPool, sources []*mcfgv1.MachineConfig) *mcfgv1.MachineConfig {
	t, ctx, mco := s.t, s.ctx, s.cp.MCO.MachineconfigurationV1()
	r, err := mcooracle.Render(scenePool, sources, s.controllerConfig().Spec)
	if err != nil {
		t.Fatal(err)
	}
	r.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(pool, mcfgv1.GroupVersion.WithKind("MachineConfigPool"))}
	r.Annotations = map[string]string{
		constants.GeneratedByControllerVersionAnnotation: mcoControllerVersion,
		constants.Prefix + "release-image-version":       "4.20.0",
	}
	if r, err = mco.MachineConfigs().Create(ctx, r, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the rendered config: %v", err)
	}
	var refs []corev1.ObjectReference
	for _, mc := range mcfg.SortForMerge(sources) {
		refs = append(refs, corev1.ObjectReference{Kind: "MachineConfig", APIVersion: mcfgv1.GroupVersion.String(), Name: mc.Name})
	}
	conf := mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: r.Name}, Source: refs}
	pool.Spec.Configuration = conf
	if pool, err = mco.MachineConfigPools().Update(ctx, pool, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pool.Status = mcfgv1.MachineConfigPoolStatus{
		ObservedGeneration: pool.Generation, Configuration: conf,
		MachineCount: int32(len(s.names)), UpdatedMachineCount: int32(len(s.names)), ReadyMachineCount: int32(len(s.names)),
		Conditions: []mcfgv1.MachineConfigPoolCondition{
			{Type: mcfgv1.MachineConfigPoolUpdated, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()},
			{Type: mcfgv1.MachineConfigPoolUpdating, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now()},
		},
	}
	if _, err := mco.MachineConfigPools().UpdateStatus(ctx, pool, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// installNode creates the Node as the MCO leaves it, its MachineConfigNode,
// and its disk (files of the rendered config, users, on-disk currentconfig).
func (s *adoptScene) installNode(name string, rendered *mcfgv1.MachineConfig) {
	t, ctx := s.t, s.ctx
	node := framework.KwokNode(name, map[string]string{constants.NodeRoleLabelPrefix + scenePool: ""})
	for k, v := range map[string]string{
		constants.CurrentConfigAnnotation:        rendered.Name,
		constants.DesiredConfigAnnotation:        rendered.Name,
		constants.StateAnnotation:                constants.MachineConfigDaemonStateDone,
		constants.ReasonAnnotation:               "",
		constants.DesiredDrainAnnotation:         constants.UncordonRequest(rendered.Name),
		constants.LastAppliedDrainAnnotation:     constants.UncordonRequest(rendered.Name),
		constants.ControlPlaneTopologyAnnotation: string(configv1.HighlyAvailableTopologyMode),
	} {
		node.Annotations[k] = v
	}
	created, err := s.cp.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating node %s: %v", name, err)
	}
	mcn := &mcfgv1.MachineConfigNode{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: created.UID}}},
		Spec: mcfgv1.MachineConfigNodeSpec{Node: mcfgv1.MCOObjectReference{Name: name}, Pool: mcfgv1.MCOObjectReference{Name: scenePool},
			ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: rendered.Name}},
	}
	if mcn, err = s.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Create(ctx, mcn, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating MachineConfigNode %s: %v", name, err)
	}
	mcn.Status.ConfigVersion = &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{Current: rendered.Name, Desired: rendered.Name}
	mcn.Status.ObservedGeneration = mcn.Generation
	mcn.Status.Conditions = []metav1.Condition{{Type: string(mcfgv1.MachineConfigNodeUpdated), Status: metav1.ConditionTrue,
		Reason: "Updated", Message: "Node Machine Config updated to " + rendered.Name, LastTransitionTime: metav1.Now()}}
	if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigNodes().UpdateStatus(ctx, mcn, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("MachineConfigNode %s status: %v", name, err)
	}

	dir := t.TempDir()
	s.dirs[name] = dir
	s.layDisk(filepath.Join(dir, "root"), rendered)
	odc, _ := json.Marshal(rendered)
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "/etc/machine-config-daemon"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "/etc/machine-config-daemon/currentconfig"), odc, 0o644); err != nil {
		t.Fatal(err)
	}
}

// layDisk writes what installing a node with rendered leaves on its root
// (Ignition's part): the users and the rendered config's files and units.
func (s *adoptScene) layDisk(root string, rendered *mcfgv1.MachineConfig) {
	t := s.t
	for p, c := range map[string]string{
		"/etc/passwd": "root:x:0:0:root:/root:/bin/bash\ncore:x:1000:1000:CoreOS Admin:/var/home/core:/bin/bash\n",
		"/etc/group":  "root:x:0:\ncore:x:1000:\n",
		"/etc/shadow": "root:*:19000:0:99999:7:::\ncore:*:19000:0:99999:7:::\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ign, err := mcfg.Parse(rendered)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := files.Plan(root, nil, ign, files.PasswdOwners{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&files.Writer{Root: root}).Apply(nodes, nil); err != nil {
		t.Fatal(err)
	}
}

// startTandem starts a daemon per node and the controller, and the cordon watch.
func (s *adoptScene) startTandem() {
	t := s.t
	s.watch = watchCordons(s.ctx, t, s)
	for _, name := range s.names {
		s.sims[name] = framework.NewSimNode(t, framework.SimNodeOptions{
			Name: name, Dir: s.dirs[name], Kubeconfig: s.cp.KubeconfigPath,
			DaemonBinary: s.bins.daemon, RPMOstreeBinary: s.bins.rpmOstree, InitialImage: s.image,
			Files: s.reg.TrustFiles(), // the machine trusts the registry's CA from its installation
		})
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "machine-config-controller.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.bins.controller, "start", "--kubeconfig="+s.cp.KubeconfigPath, "--leader-elect=false", "--metrics-listen-address=", "--workers=2", "-v=2")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.ctrl = cmd
	s.ctrlWG.Add(1)
	go func() { defer s.ctrlWG.Done(); _ = cmd.Wait() }()
	t.Cleanup(func() {
		s.stopController()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("controller log tail:\n%s", tail(string(b), 4000))
			for _, n := range s.names {
				t.Logf("daemon %s log tail:\n%s", n, tail(s.sims[n].DaemonLog(), 3000))
			}
		}
	})
}

func (s *adoptScene) stopController() {
	if s.ctrl == nil || s.ctrl.Process == nil {
		return
	}
	_ = syscall.Kill(-s.ctrl.Process.Pid, syscall.SIGKILL)
	s.ctrlWG.Wait()
	s.ctrl = nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitFor polls cond until it holds, within bound; it fails with what cond
// last said.
func (s *adoptScene) waitFor(what string, bound time.Duration, cond func() (bool, string)) {
	s.t.Helper()
	deadline := time.Now().Add(bound)
	last := ""
	for {
		ok, seen := cond()
		if ok {
			return
		}
		last = seen
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: not within %s; last seen: %s", what, bound, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// daemonsIdleOn: every daemon has decided there is nothing to do on config.
func (s *adoptScene) daemonsIdleOn(config string) (bool, string) {
	for _, n := range s.names {
		if !strings.Contains(s.sims[n].DaemonLog(), `reason="node runs `+config+`"`) {
			return false, "daemon " + n + " not idle on " + config + ": " + tail(s.sims[n].DaemonLog(), 300)
		}
	}
	return true, ""
}

func (s *adoptScene) pool() *mcfgv1.MachineConfigPool {
	p, err := s.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(s.ctx, scenePool, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *adoptScene) node(name string) *corev1.Node {
	n, err := s.cp.Kube.CoreV1().Nodes().Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

// reboots counts the boots of the double after the first, over all nodes.
func (s *adoptScene) reboots() int {
	n := 0
	for _, sim := range s.sims {
		n += len(sim.Boots()) - 1
	}
	return n
}

// renderedNames lists the pool's rendered configs in the API.
func (s *adoptScene) renderedNames() []string {
	l, err := s.cp.MCO.MachineconfigurationV1().MachineConfigs().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, mc := range l.Items {
		if mcfg.IsRenderedFor(scenePool, mc.Name) {
			out = append(out, mc.Name)
		}
	}
	return out
}

// cordonWatch records, from the Node objects, every node seen cordoned or
// asked to drain: the drains the test counts.
type cordonWatch struct {
	mu      sync.Mutex
	cordons map[string]int
	drains  map[string]map[string]bool // node -> drain-<config> requests seen
	was     map[string]bool
	tainted map[string]bool // nodes seen with the UpdateInProgress taint
}

func watchCordons(ctx context.Context, t *testing.T, s *adoptScene) *cordonWatch {
	w := &cordonWatch{cordons: map[string]int{}, drains: map[string]map[string]bool{}, was: map[string]bool{}, tainted: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			l, err := s.cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err == nil {
				w.mu.Lock()
				for _, n := range l.Items {
					if n.Spec.Unschedulable && !w.was[n.Name] {
						w.cordons[n.Name]++
					}
					w.was[n.Name] = n.Spec.Unschedulable
					for _, tn := range n.Spec.Taints {
						if tn.MatchTaint(&nodemeta.UpdateInProgressTaint) {
							w.tainted[n.Name] = true
						}
					}
					if d := n.Annotations[constants.DesiredDrainAnnotation]; strings.HasPrefix(d, constants.DrainerStateDrain+"-") {
						if w.drains[n.Name] == nil {
							w.drains[n.Name] = map[string]bool{}
						}
						w.drains[n.Name][d] = true
					}
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// taintedNodes is how many nodes were seen with the UpdateInProgress taint.
func (w *cordonWatch) taintedNodes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.tainted)
}

// count is the drains seen: drain requests, or cordons when more.
func (w *cordonWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for node := range w.was {
		n += max(w.cordons[node], len(w.drains[node]))
	}
	return n
}

func (s *adoptScene) hostFile(node, p string) string {
	b, err := os.ReadFile(filepath.Join(s.dirs[node], "root", p))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

// tandemAnnotations lists the annotations of node that only tandem writes.
func tandemAnnotations(n *corev1.Node) []string {
	var out []string
	for _, k := range []string{constants.StageConfigAnnotation, constants.StagedConfigAnnotation, constants.StageProgressAnnotation,
		constants.RebootRequestAnnotation, constants.LastRebootAnnotation, constants.CordonedByAdminAnnotation} {
		if _, ok := n.Annotations[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
