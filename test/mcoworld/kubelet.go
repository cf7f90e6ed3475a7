package mcoworld

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Container is one pod container as the kubelet would start it: its
// arguments with $(VAR) expanded, its environment resolved, and its
// ConfigMap volumes materialized on the host (paths in the arguments under
// a mount are rewritten to the host's copy: the process runs on the host).
type Container struct {
	Pod     *corev1.Pod
	Image   string   // the container's image
	Command string   // the container's command[0]
	Args    []string // command[1:] and args
	Env     []string // KEY=VALUE
	// Secrets is the directory to mount over /var/run/secrets (Identity.Wrap),
	// "" without an Identity.
	Secrets string
	// Volumes are the container's Secret volumes: mount path -> the host's
	// copy (Identity.Wrap mounts them at the pod's paths); Scratch is a
	// directory of the pod's for the mounts' overlays.
	Volumes map[string]string
	Scratch string
}

// Process is what a Workload runs for one pod.
type Process interface {
	Stop() error
	// Alive is nil while the process runs, else why it stopped.
	Alive() error
}

// Workload names the pods whose container the kubelet stand-in runs and
// how: Start gets the container as the pod gives it and applies the
// world's test-only additions (additions.go).
type Workload struct {
	Namespace string
	Selector  string // label selector of the pods
	Container string
	// Entrypoint is the image's, for a container that names no command
	// (the operator's Deployment relies on the MCO image's entrypoint).
	Entrypoint []string
	// Restart starts the container again when its process exits, as the
	// kubelet does under the pods' restartPolicy Always (the default of
	// Deployments' pods): tandem's controller exits to apply changed
	// settings (docs/controller-settings.md). A node's daemon is not
	// restarted this way: its process is the simulated node's, which
	// restarts it itself across reboots.
	Restart bool
	Start   func(ctx context.Context, c Container) (Process, error)
}

// Kubelet stands in for the kubelet of every node for some workloads:
// kwok marks their pods Running, and this runs the pods' containers as host
// processes, started when a pod runs and stopped when it goes (a DaemonSet
// or Deployment rolled to a new template replaces its pods, and so the
// processes).
type Kubelet struct {
	Kube      kubernetes.Interface
	Dir       string // per-pod directories (materialized volumes)
	Workloads []Workload
	// Identity, when set, gives each pod's process its service account's
	// token, as a kubelet does; else processes bring their own credentials.
	Identity *Identity

	mu      sync.Mutex
	running map[types.UID]*podProcess
	// secretsWritten is when the running pods' Secret volumes were last
	// written again (a kubelet updates them as the Secrets change).
	secretsWritten time.Time
}

type podProcess struct {
	pod     string
	started chan struct{} // closed once Start returned
	process Process       // nil if Start failed
}

// start runs w.Start for pod; a failure is logged and retried at the next
// sync, as a kubelet retries a container that failed to start.
func (k *Kubelet) start(ctx context.Context, w Workload, pod *corev1.Pod, pp *podProcess) {
	defer close(pp.started)
	c, err := k.container(ctx, pod, w.Container, w.Entrypoint)
	if err == nil {
		pp.process, err = w.Start(ctx, c)
	}
	if err != nil {
		klog.ErrorS(err, "kubelet stand-in: starting a pod failed", "pod", pp.pod)
		k.mu.Lock()
		if k.running[pod.UID] == pp {
			delete(k.running, pod.UID)
		}
		k.mu.Unlock()
		return
	}
	klog.InfoS("kubelet stand-in: started", "pod", pp.pod, "node", pod.Spec.NodeName, "args", c.Args)
}

// exited is why the pod's process ended, nil while it runs or starts.
func (pp *podProcess) exited() error {
	select {
	case <-pp.started:
	default:
		return nil
	}
	if pp.process == nil {
		return nil
	}
	return pp.process.Alive()
}

// stop stops the pod's process once it started.
func (pp *podProcess) stop() {
	<-pp.started
	if pp.process != nil {
		if err := pp.process.Stop(); err != nil {
			klog.ErrorS(err, "kubelet stand-in: stop", "pod", pp.pod)
		}
	}
}

// Run reconciles every second until ctx ends, then stops every process.
func (k *Kubelet) Run(ctx context.Context) {
	k.mu.Lock()
	if k.running == nil {
		k.running = map[types.UID]*podProcess{}
	}
	k.mu.Unlock()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if err := k.sync(ctx); err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "kubelet stand-in: sync")
		}
		select {
		case <-ctx.Done():
			k.stopAll()
			return
		case <-t.C:
		}
	}
}

// Running names the pods whose processes run, by workload selector.
func (k *Kubelet) Running() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, p := range k.running {
		out = append(out, p.pod)
	}
	return out
}

func (k *Kubelet) sync(ctx context.Context) error {
	want := map[types.UID]bool{}
	refresh := time.Since(k.secretsWritten) >= secretRefresh
	if refresh {
		k.secretsWritten = time.Now()
	}
	for _, w := range k.Workloads {
		pods, err := k.Kube.CoreV1().Pods(w.Namespace).List(ctx, metav1.ListOptions{LabelSelector: w.Selector})
		if err != nil {
			return err
		}
		for i := range pods.Items {
			pod := &pods.Items[i]
			if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning || pod.Spec.NodeName == "" {
				continue
			}
			want[pod.UID] = true
			k.mu.Lock()
			pp, ok := k.running[pod.UID]
			if ok && refresh {
				if _, err := k.writeSecretVolumes(ctx, pod, w.Container); err != nil {
					klog.ErrorS(err, "kubelet stand-in: updating a pod's Secret volumes", "pod", pp.pod)
				}
			}
			if ok && w.Restart {
				if err := pp.exited(); err != nil {
					klog.InfoS("kubelet stand-in: container exited, restarting it", "pod", pp.pod, "exit", err)
					go pp.stop() // reaps what is left of it
					ok = false
				}
			}
			if !ok {
				// Starting may wait (a node's first boot waits for its
				// pool's config): each pod starts on its own, as kubelets do.
				pp := &podProcess{pod: pod.Namespace + "/" + pod.Name, started: make(chan struct{})}
				k.running[pod.UID] = pp
				go k.start(ctx, w, pod.DeepCopy(), pp)
			}
			k.mu.Unlock()
		}
	}
	k.mu.Lock()
	var gone []*podProcess
	for uid, p := range k.running {
		if !want[uid] {
			gone = append(gone, p)
			delete(k.running, uid)
		}
	}
	k.mu.Unlock()
	for _, p := range gone {
		klog.InfoS("kubelet stand-in: pod gone, stopping its process", "pod", p.pod)
		go p.stop() // a pod still starting is stopped once it started
	}
	return nil
}

func (k *Kubelet) stopAll() {
	k.mu.Lock()
	all := k.running
	k.running = map[types.UID]*podProcess{}
	k.mu.Unlock()
	for _, p := range all {
		p.stop()
	}
}

// container resolves the named container of pod.
func (k *Kubelet) container(ctx context.Context, pod *corev1.Pod, name string, entrypoint []string) (Container, error) {
	var spec *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			spec = &pod.Spec.Containers[i]
		}
	}
	if spec == nil {
		return Container{}, fmt.Errorf("no container %q", name)
	}
	env, err := resolveEnv(pod, spec.Env)
	if err != nil {
		return Container{}, err
	}
	mounts, err := k.materialize(ctx, pod, spec)
	if err != nil {
		return Container{}, err
	}
	command := spec.Command
	if len(command) == 0 {
		command = entrypoint
	}
	argv := append(append([]string(nil), command...), spec.Args...)
	if len(argv) == 0 {
		return Container{}, fmt.Errorf("container %q has no command (an image entrypoint is not modelled)", name)
	}
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for i := range argv {
		argv[i] = rewriteMounts(expandVars(argv[i], vars), mounts)
	}
	vols, err := k.writeSecretVolumes(ctx, pod, name)
	if err != nil {
		return Container{}, err
	}
	c := Container{Pod: pod, Image: spec.Image, Command: argv[0], Args: argv[1:], Env: env,
		Volumes: vols, Scratch: filepath.Join(k.Dir, string(pod.UID), "scratch")}
	if err := os.MkdirAll(c.Scratch, 0o700); err != nil {
		return Container{}, err
	}
	if k.Identity != nil {
		c.Secrets = filepath.Join(k.Dir, string(pod.UID), "secrets")
		svc, err := k.Identity.mount(ctx, k, pod, c.Secrets)
		if err != nil {
			return Container{}, err
		}
		c.Env = append(c.Env, svc...)
	}
	return c, nil
}

// resolveEnv gives values and the downward API's pod fields (the MCO's
// daemon takes NODE_NAME from spec.nodeName).
func resolveEnv(pod *corev1.Pod, vars []corev1.EnvVar) ([]string, error) {
	var out []string
	for _, e := range vars {
		v := e.Value
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				return nil, fmt.Errorf("env %s: only values and field references are modelled", e.Name)
			}
			switch e.ValueFrom.FieldRef.FieldPath {
			case "spec.nodeName":
				v = pod.Spec.NodeName
			case "metadata.name":
				v = pod.Name
			case "metadata.namespace":
				v = pod.Namespace
			default:
				return nil, fmt.Errorf("env %s: field %s is not modelled", e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
		}
		out = append(out, e.Name+"="+v)
	}
	return out, nil
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandVars is the kubelet's $(VAR) expansion of command and args; an
// unknown reference stays as written.
func expandVars(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// materialize writes the container's ConfigMap volumes into the pod's
// directory, returning mount path -> host directory.
func (k *Kubelet) materialize(ctx context.Context, pod *corev1.Pod, c *corev1.Container) (map[string]string, error) {
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			cm, err := k.Kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("volume %s: %w", v.Name, err)
			}
			dir := filepath.Join(k.Dir, string(pod.UID), v.Name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			for name, data := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					return nil, err
				}
			}
			mounts[m.MountPath] = dir
		}
	}
	return mounts, nil
}

// rewriteMounts points an argument under a mount at the host's copy.
func rewriteMounts(arg string, mounts map[string]string) string {
	for mp, host := range mounts {
		if i := strings.Index(arg, mp+"/"); i >= 0 {
			return arg[:i] + host + arg[i+len(mp):]
		}
	}
	return arg
}

// secretRefresh is how often the stand-in writes the running pods' Secret
// volumes again: a Secret filled after its pod started (the
// node-bootstrapper-token's token) reaches the process, as a kubelet's
// periodic sync brings it.
const secretRefresh = 10 * time.Second

// writeSecretVolumes writes the named container's Secret volumes into the
// pod's directory, returning mount path -> host directory. A missing
// Secret fails the start, as a kubelet keeps such a pod in
// ContainerCreating. A changed file is replaced whole (written aside,
// then renamed): the process may be reading it.
func (k *Kubelet) writeSecretVolumes(ctx context.Context, pod *corev1.Pod, container string) (map[string]string, error) {
	out := map[string]string{}
	for _, c := range pod.Spec.Containers {
		if c.Name != container {
			continue
		}
		for _, m := range c.VolumeMounts {
			for _, v := range pod.Spec.Volumes {
				if v.Name != m.Name || v.Secret == nil {
					continue
				}
				sec, err := k.Kube.CoreV1().Secrets(pod.Namespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
				if err != nil {
					return nil, fmt.Errorf("secret volume %s: %w", v.Name, err)
				}
				dir := filepath.Join(k.Dir, string(pod.UID), "secret-"+v.Name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, err
				}
				for name, data := range sec.Data {
					if old, err := os.ReadFile(filepath.Join(dir, name)); err == nil && bytes.Equal(old, data) {
						continue // unchanged: a kubelet swaps a volume's files only when they change
					}
					tmp := filepath.Join(dir, "."+name+".tmp")
					if err := os.WriteFile(tmp, data, 0o600); err != nil {
						return nil, err
					}
					if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
						return nil, err
					}
				}
				out[m.MountPath] = dir
			}
		}
	}
	return out, nil
}
