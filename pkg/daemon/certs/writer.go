package certs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// Cluster is what the writer needs of the apiserver (pkg/daemon/kube).
type Cluster interface {
	Node(ctx context.Context) (*corev1.Node, error)
	SetAnnotations(ctx context.Context, set map[string]string, remove []string) error
	// ServerCABundle returns ServerCAConfigMap's ServerCAKey; nil, nil
	// when the ConfigMap or the key is not there (yet).
	ServerCABundle(ctx context.Context) ([]byte, error)
	// WatchControllerConfig calls changed with ControllerConfigName each
	// time it is added or updated (nil when deleted), until ctx ends.
	WatchControllerConfig(ctx context.Context, changed func(*mcfgv1.ControllerConfig))
}

// Host restarts the kubelet (pkg/daemon/host).
type Host interface {
	StopKubelet(ctx context.Context) error
	DaemonReload(ctx context.Context) error
	RestartUnit(ctx context.Context, unit string) error
}

// Writer keeps a node's certificates in line with the ControllerConfig.
type Writer struct {
	// Root prefixes every host path ("/" on a node).
	Root    string
	Cluster Cluster
	Host    Host
}

func (w *Writer) hostPath(p string) string { return filepath.Join(w.Root, p) }

// Run syncs on every change of the ControllerConfig, retrying a failed
// sync with the MCO's backoff (a rate-limited queue of one key, as its
// daemon's ccQueue), until ctx ends. It runs beside the update loop, as the
// MCO's certificate writer runs beside its daemon's worker.
func (w *Writer) Run(ctx context.Context) {
	log := klog.FromContext(ctx).WithName("certificates")
	ctx = klog.NewContext(ctx, log)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	var mu sync.Mutex
	var latest *mcfgv1.ControllerConfig
	go func() {
		<-ctx.Done()
		q.ShutDown()
	}()
	go w.Cluster.WatchControllerConfig(ctx, func(cc *mcfgv1.ControllerConfig) {
		mu.Lock()
		latest = cc
		mu.Unlock()
		q.Add(ControllerConfigName)
	})
	for {
		key, quit := q.Get()
		if quit {
			return
		}
		mu.Lock()
		cc := latest
		mu.Unlock()
		if err := w.Sync(ctx, cc); err != nil {
			log.Error(err, "syncing the certificates failed", "retries", q.NumRequeues(key))
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

// Sync brings the node's certificates in line with cc once: read the node
// and the disk, plan, write, restart the kubelet if the plan says so, and
// annotate the node last, so a sync cut short is done again.
func (w *Writer) Sync(ctx context.Context, cc *mcfgv1.ControllerConfig) error {
	if cc == nil {
		return nil
	}
	node, err := w.Cluster.Node(ctx)
	if err != nil {
		return err
	}
	st, err := w.readState(ctx, cc, node.Annotations)
	if err != nil {
		return err
	}
	p, err := PlanSync(cc, st)
	if err != nil {
		return err
	}
	if err := w.perform(ctx, p); err != nil {
		return err
	}
	if len(p.Writes) > 0 {
		klog.FromContext(ctx).Info("Certificates synced from the ControllerConfig", "resourceVersion", cc.ResourceVersion,
			"files", len(p.Writes)+len(p.RegistryWrites), "registriesRemoved", len(p.RemoveDirs), "kubeletRestarted", p.Restart != nil)
	}
	return nil
}

// readState reads what PlanSync needs.
func (w *Writer) readState(ctx context.Context, cc *mcfgv1.ControllerConfig, ann map[string]string) (State, error) {
	st := State{NodeAnnotations: ann, Modes: map[string]os.FileMode{}}
	for _, p := range []string{InternalRegistryPullSecretPath, KubeletCAPath, CloudCAPath, KubeconfigPath, KubeletKubeconfigPath} {
		fi, err := os.Stat(w.hostPath(p))
		switch {
		case err == nil:
			st.Modes[p] = fi.Mode().Perm()
		case !errors.Is(err, fs.ErrNotExist):
			return State{}, fmt.Errorf("reading %s: %w", p, err)
		}
	}
	ents, err := os.ReadDir(w.hostPath(RegistryCertsDir))
	switch {
	case err == nil:
		st.CertsDirExists = true
		for _, e := range ents {
			if e.IsDir() {
				st.CertsDirs = append(st.CertsDirs, e.Name())
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		klog.FromContext(ctx).Info("No registry certificate directory yet; registry bundles are not written", "dir", RegistryCertsDir)
	default:
		return State{}, fmt.Errorf("reading %s: %w", RegistryCertsDir, err)
	}
	if !NeedsServerCA(cc, ann) {
		return st, nil
	}
	if st.ServerCA, err = w.Cluster.ServerCABundle(ctx); err != nil {
		return State{}, err
	}
	if st.ServerCA == nil {
		klog.FromContext(ctx).Info("The rotated server CA is not available; the kubeconfig is left as it is",
			"configMap", ServerCANamespace+"/"+ServerCAConfigMap)
		return st, nil
	}
	if st.Kubeconfig, err = w.readOptional(KubeconfigPath); err != nil {
		return State{}, err
	}
	if st.KubeletKubeconfig, err = w.readOptional(KubeletKubeconfigPath); err != nil {
		return State{}, err
	}
	return st, nil
}

// readOptional reads a host file; nil when it does not exist.
func (w *Writer) readOptional(p string) ([]byte, error) {
	b, err := os.ReadFile(w.hostPath(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return b, nil
}

// perform carries out p: each file replaced atomically and durably, stale
// registry directories removed durably, the kubelet re-bootstrapped, and
// the node annotated.
func (w *Writer) perform(ctx context.Context, p Plan) error {
	for _, f := range p.Writes {
		if err := w.write(f); err != nil {
			return err
		}
	}
	for _, d := range p.RemoveDirs {
		hp := w.hostPath(d)
		if err := os.RemoveAll(hp); err != nil {
			return fmt.Errorf("removing the stale registry certificates %s: %w", d, err)
		}
		if err := files.SyncDir(filepath.Dir(hp)); err != nil {
			return err
		}
	}
	for _, f := range p.RegistryWrites {
		if err := w.write(f); err != nil {
			return err
		}
	}
	if r := p.Restart; r != nil {
		klog.FromContext(ctx).Info("Restarting the kubelet with the rotated server CA")
		if err := w.Host.StopKubelet(ctx); err != nil {
			return fmt.Errorf("re-bootstrapping the kubelet: %w", err)
		}
		if err := w.write(r.Kubeconfig); err != nil {
			return fmt.Errorf("re-bootstrapping the kubelet: %w", err)
		}
		if err := w.Host.DaemonReload(ctx); err != nil {
			return fmt.Errorf("re-bootstrapping the kubelet: %w", err)
		}
		// Restarting a stopped unit starts it (systemctl start kubelet).
		if err := w.Host.RestartUnit(ctx, KubeletUnit); err != nil {
			return fmt.Errorf("re-bootstrapping the kubelet: %w", err)
		}
	}
	if len(p.Annotations) > 0 {
		if err := w.Cluster.SetAnnotations(ctx, p.Annotations, nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) write(f Write) error {
	hp := w.hostPath(f.Path)
	if err := files.MkdirAllDurably(filepath.Dir(hp), DefaultDirMode); err != nil {
		return err
	}
	if err := files.WriteFileAtomic(hp, f.Data, f.Mode, -1, -1); err != nil {
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	return nil
}
