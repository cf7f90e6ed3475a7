package framework

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// setLoggerOnce gives controller-runtime (envtest) klog as its logger;
// without one it prints a stack trace into every test's output.
var setLoggerOnce sync.Once

// ControlPlaneOptions configures one test control plane.
type ControlPlaneOptions struct {
	// Name tells clusters apart in logs and directories ("tenant", "infra").
	Name string
	// Dir holds logs, certificates and kubeconfigs; a temp dir when empty.
	Dir string
	// EtcdCluster backs the kube-apiserver when set; otherwise envtest's own
	// single etcd does.
	EtcdCluster *EtcdCluster
	// KubeControllers also runs kube-controller-manager (deployments,
	// replicasets, PDB status, garbage collection, daemonsets) and
	// kube-scheduler, so workloads really get scheduled and PDBs enforced.
	KubeControllers bool
	// APIServerArgs are extra kube-apiserver flags (name without dashes ->
	// value), e.g. the audit log of make bench-scale.
	APIServerArgs map[string]string
	// ExtraCRDs are installed with tandem's (e.g. OpenShift's config API
	// for the MCO's operator).
	ExtraCRDs []*apiextensionsv1.CustomResourceDefinition
	// APIServers > 1 runs that many kube-apiservers (one per master) on
	// the same etcd behind haproxy, as on-premise OpenShift does
	// (apiservers.go, haproxy.go); every client and kubeconfig of the
	// control plane goes through the load balancer. 0 or 1: one
	// apiserver, envtest's, and no load balancer.
	APIServers int
}

// ControlPlane is a running kube-apiserver (and optionally its controllers)
// with the MachineConfig CRDs installed.
type ControlPlane struct {
	Name           string
	Dir            string
	RESTConfig     *rest.Config
	KubeconfigPath string
	Kube           kubernetes.Interface
	MCO            mcfgclientset.Interface

	env         *envtest.Environment
	controllers []*process
	logs        []io.Closer
	// apiservers are the masters' kube-apiservers; 0 is envtest's.
	apiservers []*apiserver
	// direct is the admin config of apiserver 0 itself, not through lb.
	direct *rest.Config
	lb     *haproxy
}

// StartControlPlane starts a kube-apiserver with tandem's CRDs.
func StartControlPlane(ctx context.Context, o ControlPlaneOptions) (_ *ControlPlane, retErr error) {
	setLoggerOnce.Do(func() { ctrllog.SetLogger(klog.NewKlogr()) })
	bin, err := ToolsBinDir()
	if err != nil {
		return nil, err
	}
	if o.Name == "" {
		o.Name = "cluster"
	}
	if o.Dir == "" {
		if o.Dir, err = os.MkdirTemp("", "tandem-"+o.Name+"-"); err != nil {
			return nil, fmt.Errorf("creating control plane dir: %w", err)
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating control plane dir: %w", err)
	}
	crds, err := CRDs()
	if err != nil {
		return nil, err
	}
	crds = append(crds, o.ExtraCRDs...)
	cp := &ControlPlane{Name: o.Name, Dir: o.Dir}
	defer func() {
		if retErr != nil {
			_ = cp.Stop()
		}
	}()
	apiLog, err := cp.openLog("kube-apiserver.log")
	if err != nil {
		return nil, err
	}
	etcdLog, err := cp.openLog("etcd.log")
	if err != nil {
		return nil, err
	}
	cp.env = &envtest.Environment{
		BinaryAssetsDirectory:    bin,
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		// A kube-apiserver that has not stopped 10 s after SIGTERM gets
		// SIGKILL: a test's (or make run's) teardown must not wait on it.
		ControlPlaneStopTimeout: 10 * time.Second,
	}
	cp.env.ControlPlane.APIServer = &envtest.APIServer{Out: apiLog, Err: apiLog}
	cp.env.ControlPlane.Etcd = &envtest.Etcd{Out: etcdLog, Err: etcdLog}
	if o.APIServers > 1 {
		// Apiserver 0 has them too: its clones copy its command line.
		cp.env.ControlPlane.APIServer.Configure().Set("shutdown-delay-duration", apiserverShutdownDelay.String())
		cp.env.ControlPlane.APIServer.Configure().Set("shutdown-send-retry-after", "true")
	}
	for k, v := range o.APIServerArgs {
		cp.env.ControlPlane.APIServer.Configure().Set(k, v)
	}
	if o.EtcdCluster != nil {
		// envtest still starts its own etcd; the apiserver ignores it.
		cp.env.ControlPlane.APIServer.Configure().Set("etcd-servers", strings.Join(o.EtcdCluster.ClientURLs(), ","))
		if t := o.EtcdCluster.TLS(); t != nil {
			// The kube-apiserver's etcd flags on OpenShift
			// (cluster-kube-apiserver-operator release-4.21,
			// bindata/assets/config/defaultconfig.yaml).
			cp.env.ControlPlane.APIServer.Configure().Set("etcd-cafile", t.CAFile)
			cp.env.ControlPlane.APIServer.Configure().Set("etcd-certfile", t.CertFile)
			cp.env.ControlPlane.APIServer.Configure().Set("etcd-keyfile", t.KeyFile)
		}
	}
	klog.InfoS("starting control plane", "name", o.Name, "dir", o.Dir)
	before := childrenOf(os.Getpid())
	_, err = cp.env.Start()
	// envtest starts kube-apiserver and etcd without Pdeathsig: the reaper
	// must know them (also when the start failed half way).
	TrackChildren()
	zero := &apiserver{index: 0, url: cp.env.ControlPlane.APIServer.SecureServing.URL("https", "").String(),
		logPath: filepath.Join(o.Dir, "kube-apiserver.log")}
	for pid := range childrenOf(os.Getpid()) {
		if !before[pid] && filepath.Base(commandOf(pid)) == "kube-apiserver" {
			zero.pid, zero.args = pid, commandLine(pid)
		}
	}
	cp.apiservers = []*apiserver{zero}
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver for %s (log %s): %w", o.Name, filepath.Join(o.Dir, "kube-apiserver.log"), err)
	}
	admin, err := cp.env.ControlPlane.AddUser(envtest.User{Name: "tandem-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("creating admin user: %w", err)
	}
	cp.direct = rest.CopyConfig(admin.Config())
	if o.APIServers > 1 {
		if len(zero.args) == 0 {
			return nil, fmt.Errorf("%s: cannot read the command line of envtest's kube-apiserver (pid %d)", o.Name, zero.pid)
		}
		if err := cp.startAPIServerClones(ctx, o.APIServers); err != nil {
			return nil, err
		}
		if err := servingCertCovers(cp.env.ControlPlane.APIServer.CertDir, "127.0.0.1"); err != nil {
			return nil, err
		}
		if err := cp.startLB(ctx); err != nil {
			return nil, err
		}
	}
	if cp.KubeconfigPath, cp.RESTConfig, err = cp.writeUser(admin, "kubeconfig"); err != nil {
		return nil, err
	}
	cp.RESTConfig.QPS, cp.RESTConfig.Burst = 200, 400
	if cp.Kube, err = kubernetes.NewForConfig(cp.RESTConfig); err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	if cp.MCO, err = mcfgclientset.NewForConfig(cp.RESTConfig); err != nil {
		return nil, fmt.Errorf("machineconfiguration client: %w", err)
	}
	// The MCO's namespace, as every OpenShift cluster has it: the daemons
	// record their node events there.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: constants.MCONamespace}}
	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("namespace %s: %w", constants.MCONamespace, err)
	}
	if o.KubeControllers {
		if err := cp.startKubeControllers(bin); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// NewControlPlane starts a control plane for a test and stops it at cleanup.
func NewControlPlane(t testing.TB, o ControlPlaneOptions) *ControlPlane {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := StartControlPlane(ctx, o)
	if err != nil {
		t.Fatalf("starting control plane %q: %v", o.Name, err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Logf("stopping control plane %q: %v", o.Name, err)
		}
	})
	return cp
}

// ImpersonatingConfig returns the admin config impersonating user (for RBAC tests).
func (cp *ControlPlane) ImpersonatingConfig(user string, groups ...string) *rest.Config {
	c := rest.CopyConfig(cp.RESTConfig)
	c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return c
}

// Stop stops the controllers, the load balancer, then the apiservers and
// their etcd.
func (cp *ControlPlane) Stop() error {
	for i := len(cp.controllers) - 1; i >= 0; i-- {
		_ = cp.controllers[i].stop(5 * time.Second)
	}
	cp.controllers = nil
	cp.stopLB()
	cp.stopAPIServers()
	var err error
	if cp.env != nil {
		err = cp.env.Stop()
		cp.env = nil
	}
	for _, l := range cp.logs {
		_ = l.Close()
	}
	cp.logs = nil
	if err != nil {
		return fmt.Errorf("stopping control plane %s: %w", cp.Name, err)
	}
	return nil
}

func (cp *ControlPlane) openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(cp.Dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	cp.logs = append(cp.logs, f)
	return f, nil
}

// kubeControllers are the kube-controller-manager loops tests rely on: the
// not-ready taint the apiserver puts on new nodes is lifted once kwok reports
// them Ready, pods
// of Deployments and DaemonSets exist and PDB status is computed (the
// eviction API reads it).
// The serviceaccount-token-controller fills service account token Secrets
// (the MCO's node-bootstrapper-token, which the machine-config-server
// hands new nodes), signed with the API server's service account key.
const kubeControllers = "node-lifecycle-controller,deployment-controller,replicaset-controller,disruption-controller,garbage-collector-controller,daemonset-controller,serviceaccount-token-controller"

func (cp *ControlPlane) startKubeControllers(bin string) error {
	rootCA := filepath.Join(cp.Dir, "root-ca.crt")
	ca := cp.RESTConfig.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(cp.RESTConfig.CAFile); err != nil {
			return fmt.Errorf("the API server's CA: %w", err)
		}
	}
	if err := os.WriteFile(rootCA, ca, 0o644); err != nil {
		return fmt.Errorf("the root CA for service account tokens: %w", err)
	}
	kcm := newProcess(cp.Name+" kube-controller-manager", filepath.Join(bin, "kube-controller-manager"),
		filepath.Join(cp.Dir, "kube-controller-manager.log"),
		"--kubeconfig="+cp.KubeconfigPath,
		"--authentication-kubeconfig="+cp.KubeconfigPath,
		"--authorization-kubeconfig="+cp.KubeconfigPath,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers="+kubeControllers,
		// envtest's service account signing key (sa-signer.key in the API
		// server's certificate directory), which the API server verifies with.
		"--service-account-private-key-file="+filepath.Join(cp.env.ControlPlane.APIServer.CertDir, "sa-signer.key"),
		"--root-ca-file="+rootCA,
		"--concurrent-deployment-syncs=5",
		"-v=1",
	)
	sched := newProcess(cp.Name+" kube-scheduler", filepath.Join(bin, "kube-scheduler"),
		filepath.Join(cp.Dir, "kube-scheduler.log"),
		"--kubeconfig="+cp.KubeconfigPath,
		"--authentication-kubeconfig="+cp.KubeconfigPath,
		"--authorization-kubeconfig="+cp.KubeconfigPath,
		"--leader-elect=false",
		"--secure-port=0",
		"-v=1",
	)
	for _, p := range []*process{kcm, sched} {
		if err := p.start(); err != nil {
			return err
		}
		cp.controllers = append(cp.controllers, p)
	}
	// Fail early with the log when a controller cannot start at all.
	time.Sleep(500 * time.Millisecond)
	for _, p := range cp.controllers {
		if dead, err := p.exited(); dead {
			return fmt.Errorf("%s exited at start: %v; log %s:\n%s", p.name, err, p.logPath, p.logTail())
		}
	}
	return nil
}

// CRDs returns the CRDs every test control plane installs.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	ours, err := loadEmbeddedCRDs()
	if err != nil {
		return nil, err
	}
	openshift, err := loadOpenshiftCRDs()
	if err != nil {
		return nil, err
	}
	return append(openshift, ours...), nil
}

// AddUser creates a client-certificate user (for a component's or another
// cluster's identity, subject to RBAC) and writes its kubeconfig into the
// control plane's dir. It returns the kubeconfig path and the REST config.
func (cp *ControlPlane) AddUser(name string, groups ...string) (string, *rest.Config, error) {
	u, err := cp.env.ControlPlane.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return "", nil, fmt.Errorf("adding user %s to %s: %w", name, cp.Name, err)
	}
	return cp.writeUser(u, "kubeconfig-"+strings.NewReplacer(":", "_", "/", "_").Replace(name))
}

// writeUser writes u's kubeconfig as file in the control plane's dir and
// returns its path and u's REST config, both naming the load balancer
// when there is one.
func (cp *ControlPlane) writeUser(u *envtest.AuthenticatedUser, file string) (string, *rest.Config, error) {
	kc, err := u.KubeConfig()
	if err != nil {
		return "", nil, fmt.Errorf("kubeconfig of %s in %s: %w", file, cp.Name, err)
	}
	cfg := rest.CopyConfig(u.Config())
	if lb := cp.LBURL(); lb != "" {
		if kc, err = pointKubeconfigAt(kc, lb); err != nil {
			return "", nil, fmt.Errorf("%s of %s: %w", file, cp.Name, err)
		}
		cfg.Host = lb
	}
	path := filepath.Join(cp.Dir, file)
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		return "", nil, fmt.Errorf("writing %s of %s: %w", file, cp.Name, err)
	}
	return path, cfg, nil
}

// RestartAPIServer stops the kube-apiserver (SIGTERM, as a restart of its
// static pod does; SIGKILL after 10 s) and starts it again with the same
// flags, certificates and storage, then waits (at most 2 minutes) until it
// is ready. Clients keep their kubeconfigs.
//
// With several apiservers it restarts every one in turn (StopAPIServer,
// StartAPIServer), the next only once the last is ready again, as
// OpenShift rolls out a new revision of the kube-apiserver static pods one
// master at a time; each stop takes the shutdown delay (20 s), during
// which the LB takes that apiserver out of rotation, so clients of the LB
// see no outage.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error {
	for _, a := range cp.apiservers {
		if err := cp.restartAPIServer(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// restartAPIServer restarts one apiserver, unless its master is down (or
// goes down meanwhile): that one starts at its master's boot.
func (cp *ControlPlane) restartAPIServer(ctx context.Context, a *apiserver) error {
	a.mu.Lock()
	down := a.down
	a.mu.Unlock()
	if down {
		klog.V(1).InfoS("kube-apiserver not restarted: its master is down", "cluster", cp.Name, "index", a.index)
		return nil
	}
	if err := a.stop(cp, syscall.SIGTERM, cp.stopGrace()); err != nil {
		return err
	}
	a.mu.Lock()
	var err error
	if !a.down {
		err = a.startLocked(cp)
	}
	down = a.down
	a.mu.Unlock()
	if err != nil || down {
		return err
	}
	if err := cp.awaitReady(ctx, a); err != nil {
		return fmt.Errorf("%s: kube-apiserver %d not ready after its restart: %w", cp.Name, a.index, err)
	}
	return nil
}

// stopAPIServers kills every apiserver at once, at the control plane's
// teardown: a SIGTERM would hold each for its shutdown delay, for clients
// that are going away too.
func (cp *ControlPlane) stopAPIServers() {
	if len(cp.apiservers) < 2 {
		// envtest stops its apiserver (SIGTERM, 10 s); ours, after a
		// restart, gets the same.
		if len(cp.apiservers) == 1 {
			_ = cp.apiservers[0].stopOurs(cp, syscall.SIGTERM, singleAPIServerStopGrace)
		}
		return
	}
	var wg sync.WaitGroup
	for _, a := range cp.apiservers {
		wg.Go(func() { _ = a.stop(cp, syscall.SIGKILL, 0) })
	}
	wg.Wait()
}

// waitGone waits until pid has exited (or is a zombie), at most d.
func waitGone(pid int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		if st := procState(pid); st == "gone" || st == "Z" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d still runs (state %s) after %s", pid, procState(pid), d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func childrenOf(parent int) map[int]bool {
	out := map[int]bool{}
	for pid, ppid := range processParents() {
		if ppid == parent {
			out[pid] = true
		}
	}
	return out
}

// commandLine is a process's argv, from /proc.
func commandLine(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func commandOf(pid int) string {
	if a := commandLine(pid); len(a) > 0 {
		return a[0]
	}
	return ""
}
