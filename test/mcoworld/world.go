package mcoworld

import (
	"context"
	"errors"
	"fmt"

	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
)

// Namespace is the MCO's.
const Namespace = "openshift-machine-config-operator"

// nodeStatusBound bounds reporting a node's Ready condition at a shutdown or
// a boot (kwok takes a node back within seconds).
const nodeStatusBound = 2 * time.Minute

// Options of a world.
type Options struct {
	// Dir holds the control plane, the pods' directories and the nodes.
	Dir string
	// Masters and Workers name the nodes (kwok nodes; each runs a
	// simulated node with the daemon its DaemonSet pod names).
	Masters, Workers []string
	// InitialImage is the OS every node boots first; empty: a base
	// deployment without content.
	InitialImage string
	// ImagePath maps a path in the MCO image (a command such as
	// /usr/bin/machine-config-daemon, /etc/mcc/templates) to the host's
	// copy; default: the fork build's programs and the MCO source's
	// templates (ForkImagePath).
	ImagePath func(imagePath string) (string, error)
	// StockImage is the pull spec that stands for the stock MCO image in
	// a release: its pods run the MCO's own controller (the fork build's
	// stock/machine-config-controller) and, on the nodes, tandem's daemon
	// in the stock MCD's order (stockDaemonAdditions).
	StockImage string
	// EtcdCluster backs the apiserver when set; EtcdMembers names each
	// master's member (its index), which goes down while its node reboots.
	EtcdCluster *framework.EtcdCluster
	EtcdMembers map[string]int
	// Registry serves the release's OS images: nodes trust its CA, and the
	// cluster's pull secret holds its credentials.
	Registry *osimage.Registry
	// Install installs the nodes: a master's first boot is laid from its
	// pool's rendered config (as the bootstrap node's server serves it);
	// a worker joins later, through the pointer config and the running
	// machine-config-servers, and registers its Node only then (join.go).
	// Each runs firstboot-complete-machineconfig before the daemon.
	// Without it, every node is registered at once and starts bare.
	Install bool
	// OnShutdown and OnBoot observe every node's shutdowns and boots (a
	// master's etcd member is already handled).
	OnShutdown func(node, cause string)
	OnBoot     func(node string, ev framework.BootEvent)
	// APIServerPerMaster runs a kube-apiserver per master behind a load
	// balancer, as OpenShift does: a master's shutdown stops its apiserver
	// (gracefully) and its boot starts it again. Everything in the world
	// talks to the API through the balancer.
	APIServerPerMaster bool
	// SimNode adjusts each simulated node's options before it starts.
	SimNode func(o *framework.SimNodeOptions)
}

// World is a running OpenShift-like cluster driven by the MCO's operator.
type World struct {
	Fork    Fork
	CP      *framework.ControlPlane
	Config  configclientset.Interface
	CVO     CVO
	Kubelet *Kubelet

	opts   Options
	kwok   *framework.Kwok
	rpmOst string
	// treeDaemon is tandem's daemon built from this tree (beside rpmOst).
	treeDaemon string
	// nmstatectl is the nmstatectl double installed nodes' first boot runs.
	nmstatectl string
	cancel     context.CancelFunc
	done       chan struct{}
	mu         sync.Mutex
	nodes      map[string]*framework.SimNode
	started    map[string]int    // processes started per workload
	operands   []operand         // every process started, in order
	metrics    map[string]string // metrics address of the latest process, by "controller" or "daemon/<node>"
	images     map[string]string // the image of the pod that started it, by the same key
	// daemonPods names the pod each node's daemon runs for now.
	daemonPods map[string]types.UID
	// mcs are the running machine-config-servers' secure addresses, by pod.
	mcs map[types.UID]string
	// pki is the installer's: the server's CA and certificate.
	pki installerPKI
	// joined are the workers laid from the server's Ignition (join.go), by
	// node: the config each was served.
	joined map[string][]byte
	// errs are the failures of work the world does on its own (a join, a
	// node's kubelet status); under errMu: node hooks report them.
	errMu sync.Mutex
	errs  []error
}

// Start brings the cluster up to the point where the CVO has applied r:
// the operator's pod exists and the kubelet stand-in runs it.
func Start(ctx context.Context, o Options, r Release) (_ *World, retErr error) {
	fork, err := LocateFork()
	if err != nil {
		return nil, err
	}
	if o.ImagePath == nil {
		o.ImagePath = fork.ImagePath
	}
	ours, err := framework.CRDs()
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, c := range ours {
		skip[c.Name] = true
	}
	payload, err := PayloadCRDs(skip)
	if err != nil {
		return nil, err
	}
	apiservers := 1
	if o.APIServerPerMaster {
		apiservers = len(o.Masters)
	}
	cp, err := framework.StartControlPlane(ctx, framework.ControlPlaneOptions{Name: "mco", Dir: filepath.Join(o.Dir, "cluster"),
		KubeControllers: true, ExtraCRDs: payload, EtcdCluster: o.EtcdCluster, APIServers: apiservers,
		// As OpenShift's kube-apiserver authorizes: a node's kubelet
		// identity may write its own Node (the Node authorizer and the
		// NodeRestriction admission plugin), everything else by RBAC.
		APIServerArgs: map[string]string{"authorization-mode": "Node,RBAC", "enable-admission-plugins": "NodeRestriction"}})
	if err != nil {
		return nil, err
	}
	w := &World{Fork: fork, CP: cp, opts: o, nodes: map[string]*framework.SimNode{}, started: map[string]int{}, metrics: map[string]string{}, images: map[string]string{}, daemonPods: map[string]types.UID{}, mcs: map[types.UID]string{}, joined: map[string][]byte{}}
	defer func() {
		if retErr != nil {
			_ = w.Stop()
		}
	}()
	if w.kwok, err = framework.StartKwok(ctx, cp); err != nil {
		return nil, err
	}
	if w.Config, err = configclientset.NewForConfig(cp.RESTConfig); err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cp.RESTConfig)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cp.Kube.Discovery()))
	manifests, err := imageManifests(fork, filepath.Join(o.Dir, "manifests"))
	if err != nil {
		return nil, err
	}
	w.CVO = CVO{Dynamic: dyn, Mapper: mapper, Config: w.Config, Manifests: manifests}
	pull := []byte(`{"auths":{}}`)
	if o.Registry != nil {
		pull = o.Registry.AuthJSON()
	}
	if w.pki, err = newInstallerPKI(cp.RESTConfig.Host); err != nil {
		return nil, err
	}
	if err := InstallCluster(ctx, cp.Kube, w.Config, Cluster{
		APIServerURL: cp.RESTConfig.Host, CAPEM: cp.RESTConfig.CAData, RootCAPEM: w.pki.RootCA, InfraName: "tandem",
		PullSecret: pull,
	}); err != nil {
		return nil, err
	}
	if err := w.pki.install(ctx, cp.Kube); err != nil {
		return nil, err
	}
	// An installed cluster's etcd operator has published where etcd is and
	// the client certificate the kube-apiserver uses (tandem's controller
	// finds etcd from these, as it would on OpenShift).
	if c := o.EtcdCluster; c != nil && c.TLS() != nil {
		if err := framework.PublishEtcdObjects(ctx, cp.Kube, c, c.TLS().CertPEM, c.TLS().KeyPEM); err != nil {
			return nil, err
		}
	}
	if err := w.addNodes(ctx); err != nil {
		return nil, err
	}
	if w.treeDaemon, _, err = osRPMOstree(ctx, o.Dir, &w.rpmOst); err != nil {
		return nil, err
	}
	if w.nmstatectl, err = framework.BuildNmstatectlDouble(ctx, filepath.Join(o.Dir, "bin")); err != nil {
		return nil, err
	}
	if _, err := w.CVO.Apply(ctx, r); err != nil {
		return nil, fmt.Errorf("applying release %s: %w", r.Version, err)
	}
	id, err := w.identity(ctx)
	if err != nil {
		return nil, err
	}
	w.Kubelet = &Kubelet{Kube: cp.Kube, Dir: filepath.Join(o.Dir, "pods"), Workloads: w.workloads(), Identity: id}
	kctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.cancel, w.done = cancel, make(chan struct{})
	go func() { defer close(w.done); w.Kubelet.Run(kctx) }()
	if o.Install {
		w.joinWorkers(kctx)
	}
	return w, nil
}

// identity is what the kubelet stand-in gives each pod's process to
// reach the API server as its service account.
func (w *World) identity(ctx context.Context) (*Identity, error) {
	ca := w.CP.RESTConfig.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(w.CP.RESTConfig.CAFile); err != nil {
			return nil, fmt.Errorf("the API server's CA: %w", err)
		}
	}
	podns := filepath.Join(w.opts.Dir, "bin", "podns")
	if err := framework.GoBuild(ctx, podns, "./test/mcoworld/cmd/podns"); err != nil {
		return nil, err
	}
	return &Identity{Server: w.CP.RESTConfig.Host, CA: ca, PodNS: podns}, nil
}

// osRPMOstree builds the rpm-ostree double the simulated nodes run.
func osRPMOstree(ctx context.Context, dir string, out *string) (string, string, error) {
	d, r, err := framework.BuildSimNodeBinaries(ctx, filepath.Join(dir, "bin"))
	*out = r
	return d, r, err
}

// addNodes creates the kwok nodes with the labels an installed cluster's
// nodes carry.
func (w *World) addNodes(ctx context.Context) error {
	add := func(name, role string) error {
		n := framework.KwokNode(name, map[string]string{
			"kubernetes.io/os":                "linux",
			"node-role.kubernetes.io/" + role: "",
		})
		_, err := w.CP.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		return err
	}
	for _, m := range w.opts.Masters {
		if err := add(m, "master"); err != nil {
			return err
		}
	}
	if w.opts.Install {
		// Installed workers register once their first boot has its
		// Ignition from the machine-config-server (joinWorkers).
		return framework.WaitForNodesReady(ctx, w.CP.Kube, w.opts.Masters...)
	}
	for _, n := range w.opts.Workers {
		if err := add(n, "worker"); err != nil {
			return err
		}
	}
	return framework.WaitForNodesReady(ctx, w.CP.Kube, append(append([]string(nil), w.opts.Masters...), w.opts.Workers...)...)
}

// workloads are the pods whose containers run as host processes: the
// operator, tandem's controller, and each node's daemon.
func (w *World) workloads() []Workload {
	return []Workload{
		{Namespace: Namespace, Selector: "k8s-app=machine-config-operator", Container: "machine-config-operator",
			Entrypoint: []string{"/usr/bin/machine-config-operator"}, Restart: true,
			Start: func(ctx context.Context, c Container) (Process, error) {
				return w.startProcess(ctx, "operator", c, nil)
			}},
		{Namespace: Namespace, Selector: "k8s-app=machine-config-controller", Container: "machine-config-controller", Restart: true,
			Start: func(ctx context.Context, c Container) (Process, error) {
				port, err := freePort()
				if err != nil {
					return nil, err
				}
				if c.Image == w.opts.StockImage {
					c.Command = stockController
				}
				templates, err := w.opts.ImagePath(imageTemplates)
				if err != nil {
					return nil, err
				}
				w.setMetrics("controller", port, c.Image)
				return w.startProcess(ctx, "controller", c, controllerAdditions(port, templates))
			}},
		{Namespace: Namespace, Selector: "k8s-app=machine-config-daemon", Container: "machine-config-daemon",
			Start: w.startDaemon},
		{Namespace: Namespace, Selector: "k8s-app=machine-config-server", Container: "machine-config-server", Restart: true,
			Start: w.startMCS},
	}
}

// hostProcess adapts a framework.Process to the kubelet stand-in.
type hostProcess struct{ p *framework.Process }

func (h hostProcess) Stop() error  { return h.p.Stop(30 * time.Second) }
func (h hostProcess) Alive() error { return h.p.Alive() }

func (w *World) startProcess(ctx context.Context, what string, c Container, additions []string) (Process, error) {
	bin, err := w.opts.ImagePath(c.Command)
	if err != nil {
		return nil, err
	}
	w.recordOperand(ctx, what, c)
	w.mu.Lock()
	w.started[what]++
	n := w.started[what]
	w.mu.Unlock()
	log := filepath.Join(w.opts.Dir, "logs", fmt.Sprintf("%s-%d-%s.log", what, n, c.Pod.Name))
	argv := w.Kubelet.Identity.Wrap(c, append(append([]string{bin}, c.Args...), additions...)...)
	p, err := framework.StartProcess(what+" "+c.Pod.Name, argv[0], log, c.Env, argv[1:]...)
	if err != nil {
		return nil, err
	}
	return hostProcess{p}, nil
}

// daemonProcess is a node's daemon under one pod: stopping it stops the
// daemon, not the node, and only while that pod is the node's (the next
// pod of a rolled DaemonSet may have started the daemon again already).
type daemonProcess struct {
	w   *World
	n   *framework.SimNode
	pod types.UID
}

func (d daemonProcess) Stop() error {
	// Under the world's lock, so that a new pod's start (which holds it)
	// comes wholly before or after.
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	if d.w.daemonPods[d.n.Name] != d.pod {
		return nil
	}
	return d.n.StopDaemon(30 * time.Second)
}
func (d daemonProcess) Alive() error {
	if err := d.n.Err(); err != nil {
		return err
	}
	return nil
}

func (w *World) startDaemon(ctx context.Context, c Container) (Process, error) {
	bin, err := w.opts.ImagePath(c.Command)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// The additions go last (the pod's Extra), after the node's own flags:
	// each pod's process gets its own (its metrics port; the stock
	// image's order).
	pod := framework.PodCommand{Args: c.Args, Env: c.Env, Extra: daemonAdditions(port),
		Wrapper: w.Kubelet.Identity.Wrap(c)}
	if c.Image == w.opts.StockImage {
		pod.Extra = append(pod.Extra, stockDaemonAdditions()...)
	}
	name := c.Pod.Spec.NodeName
	w.setMetrics("daemon/"+name, port, c.Image)
	w.recordOperand(ctx, "daemon", c)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started["daemon"]++
	w.daemonPods[name] = c.Pod.UID
	if n := w.nodes[name]; n != nil {
		return daemonProcess{w, n, c.Pod.UID}, n.SetPod(pod, 30*time.Second)
	}
	// The node's kubelet credentials (system:node:<name>), where RHCOS
	// keeps them: the MCO's daemon writes its Node with them.
	kubelet, _, err := w.CP.AddUser("system:node:"+name, "system:nodes", "system:authenticated")
	if err != nil {
		return nil, err
	}
	kubeletKC, err := os.ReadFile(kubelet)
	if err != nil {
		return nil, err
	}
	var self atomic.Pointer[framework.SimNode]
	o := framework.SimNodeOptions{Name: name, Dir: filepath.Join(w.opts.Dir, "nodes", name),
		Files:        map[string]string{"/var/lib/kubelet/kubeconfig": string(kubeletKC)},
		DaemonBinary: bin, RPMOstreeBinary: w.rpmOst,
		InitialImage: w.opts.InitialImage, Pod: &pod,
		// The hooks run under the node's lock, which SetPod takes under
		// w.mu: they must not take w.mu themselves, so they get the node
		// from here.
		OnShutdown: func(cause string) { w.onShutdown(name, cause, self.Load()) },
		OnBoot:     func(ev framework.BootEvent) { w.onBoot(ctx, name, ev, self.Load()) },
	}
	if _, joined := w.joined[name]; joined {
		// A worker laid from the machine-config-server's Ignition.
		o.Firstboot, o.NmstatectlBinary, o.NICs = true, w.nmstatectl, nodeNICs(name)
	} else if w.opts.Install {
		// A master: laid from its pool's rendered config, as the
		// bootstrap node's server serves it. Installing waits for the
		// pool's config: not under the lock.
		w.mu.Unlock()
		err := w.installNode(ctx, name, poolOf(c.Pod.Spec.NodeName, w.opts.Masters), filepath.Join(o.Dir, "root"))
		w.mu.Lock()
		if err != nil {
			return nil, err
		}
		o.Firstboot, o.NmstatectlBinary, o.NICs = true, w.nmstatectl, nodeNICs(name)
	}
	if w.opts.SimNode != nil {
		w.opts.SimNode(&o)
	}
	n, err := framework.StartSimNode(ctx, o)
	if err != nil {
		return nil, err
	}
	self.Store(n)
	w.nodes[name] = n
	return daemonProcess{w, n, c.Pod.UID}, nil
}

func (w *World) setMetrics(key string, port int, image string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.metrics[key] = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	w.images[key] = image
}

// ProcessImage is the image whose pod started the latest process of key
// ("controller", "daemon/<node>").
func (w *World) ProcessImage(key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.images[key]
}

// MetricsURL is where the latest process of key ("controller",
// "daemon/<node>") serves its metrics.
func (w *World) MetricsURL(key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.metrics[key]
}

// poolOf is the pool a node's role puts it in.
func poolOf(node string, masters []string) string {
	if slices.Contains(masters, node) {
		return "master"
	}
	return "worker"
}

// onShutdown takes the node's kubelet (its Ready condition) and a master's
// etcd member down with it.
func (w *World) onShutdown(node, cause string, n *framework.SimNode) {
	if w.opts.OnShutdown != nil {
		w.opts.OnShutdown(node, cause)
	}
	if kubeletRan(n) {
		ctx, cancel := context.WithTimeout(context.Background(), nodeStatusBound)
		defer cancel()
		if err := framework.NodeShuttingDown(ctx, w.CP.Kube, node); err != nil {
			w.fail(fmt.Errorf("%s going down (%s): its Node could not be reported NotReady: %w", node, cause, err))
		}
		if i := w.apiserverOf(node); i >= 0 {
			if err := w.CP.StopAPIServer(i); err != nil {
				w.fail(fmt.Errorf("%s going down (%s): its kube-apiserver: %w", node, cause, err))
			}
		}
	}
	if i, ok := w.opts.EtcdMembers[node]; ok && w.opts.EtcdCluster != nil {
		if err := w.opts.EtcdCluster.StopMember(i); err != nil {
			klog.ErrorS(err, "stopping the etcd member of a rebooting master", "node", node)
		}
	}
}

// onBoot starts a master's etcd member and the node's kubelet again
// (bounded): the node is Ready before its pods, the daemon's among them, run.
func (w *World) onBoot(ctx context.Context, node string, ev framework.BootEvent, n *framework.SimNode) {
	if i, ok := w.opts.EtcdMembers[node]; ok && w.opts.EtcdCluster != nil && ev.Cause != "start" {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if err := w.opts.EtcdCluster.StartMember(sctx, i); err != nil {
			klog.ErrorS(err, "starting the etcd member of a master", "node", node)
		}
	}
	if ev.Cause != "start" && kubeletRan(n) {
		if i := w.apiserverOf(node); i >= 0 {
			if err := w.CP.StartAPIServer(context.WithoutCancel(ctx), i); err != nil {
				w.fail(fmt.Errorf("%s booted (%s) and its kube-apiserver did not start: %w", node, ev.Cause, err))
			}
		}
		if err := framework.RestoreNode(context.WithoutCancel(ctx), w.CP.Kube, node, nodeStatusBound); err != nil {
			w.fail(fmt.Errorf("%s booted (%s) and its kubelet did not report Ready: %w", node, ev.Cause, err))
		}
	}
	if w.opts.OnBoot != nil {
		w.opts.OnBoot(node, ev)
	}
}

// kubeletRan reports whether node's kubelet (and a master's apiserver) ran
// before the shutdown or boot at hand: the first boot's own reboot comes
// before the kubelet ever starts, and the cluster does not see it. Nothing
// starts the kubelet between a shutdown and the boot after it, so both
// hooks read the same answer.
func kubeletRan(n *framework.SimNode) bool { return n != nil && n.KubeletRan() }

// apiserverOf is the index of the kube-apiserver a master runs, -1 for a
// worker or a world with one apiserver.
func (w *World) apiserverOf(node string) int {
	if !w.opts.APIServerPerMaster {
		return -1
	}
	return slices.Index(w.opts.Masters, node)
}

// SimNodeBinaries are tandem's daemon built from this tree and the
// rpm-ostree double the world's nodes run: for a simulated node of
// another cluster beside the world (an infra cluster's DPU).
func (w *World) SimNodeBinaries() (daemon, rpmOstree string) {
	return w.treeDaemon, w.rpmOst
}

// Node is the simulated node of name, once its daemon pod ran.
func (w *World) Node(name string) *framework.SimNode {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nodes[name]
}

// Started counts the processes started per workload ("operator",
// "controller", "daemon").
func (w *World) Started(what string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[what]
}

// PodContainer returns the named container of the first pod matching
// selector, as the operator deployed it (read back from the apiserver).
func (w *World) PodContainer(ctx context.Context, selector, container string) (*corev1.Pod, *corev1.Container, error) {
	pods, err := w.CP.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, nil, err
	}
	for i := range pods.Items {
		for j := range pods.Items[i].Spec.Containers {
			if pods.Items[i].Spec.Containers[j].Name == container {
				return &pods.Items[i], &pods.Items[i].Spec.Containers[j], nil
			}
		}
	}
	return nil, nil, fmt.Errorf("no pod %s with container %s", selector, container)
}

// Stop stops the processes, the nodes, kwok and the control plane.
func (w *World) Stop() error {
	var errs []error
	if w.cancel != nil {
		w.cancel()
		<-w.done
	}
	w.mu.Lock()
	for name, n := range w.nodes {
		if err := n.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", name, err))
		}
	}
	w.mu.Unlock()
	if w.kwok != nil {
		if err := w.kwok.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if w.CP != nil {
		if err := w.CP.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		klog.ErrorS(err, "stopping the MCO world")
		return err
	}
	return nil
}

// Logs names the world's log directory, for failure messages.
func (w *World) Logs() string { return filepath.Join(w.opts.Dir, "logs") }
