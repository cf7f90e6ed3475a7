package etcddiscovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// DefaultInterval is how often the objects are read again. Members are
// replaced and certificates rotated rarely, and a stale endpoint list still
// reaches the members that remain (the member list gives every member's own
// URL), so a read every quarter minute is plenty; a GET of three small
// objects is nothing to the apiserver.
const DefaultInterval = 15 * time.Second

// Options tune a Source.
type Options struct {
	// Interval between reads; DefaultInterval when 0.
	Interval time.Duration
	// Etcd gives the client's timeouts and MaxLag (its endpoints and TLS
	// come from the objects).
	Etcd etcd.Config
	// Metrics; nil: not recorded.
	Metrics *metrics.EtcdOrdering
}

// Source is the node controller's etcd source on OpenShift: the etcd client
// built from the cluster's objects, rebuilt when they change.
type Source struct {
	kube kubernetes.Interface
	opts Options

	mu        sync.Mutex
	state     State
	client    *etcd.Client
	listeners []func()
}

var _ node.EtcdOrderingSource = (*Source)(nil)

// New returns a source that has read nothing yet (ordering off, reason
// ReasonUnreadable until the first Sync).
func New(kube kubernetes.Interface, opts Options) *Source {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	return &Source{kube: kube, opts: opts, state: State{Ordering: node.EtcdOrdering{Reason: ReasonUnreadable, Message: "the etcd objects have not been read yet"}}}
}

// Run reads the objects every Interval until ctx ends. Call Sync once
// before, so that the first plans see the cluster's etcd.
func (s *Source) Run(ctx context.Context) error {
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			s.Sync(ctx)
		}
	}
}

// Sync reads the objects once and applies what Decide makes of them.
func (s *Source) Sync(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("component", "etcd-discovery")
	r := Resolve(s.read(ctx))
	s.mu.Lock()
	prev := s.state
	next, rebuild := Decide(prev, r)
	var old *etcd.Client
	if rebuild {
		cfg := s.opts.Etcd
		cfg.Endpoints, cfg.TLSConfig = next.Config.Endpoints, next.Config.TLS
		cfg.CAFile, cfg.CertFile, cfg.KeyFile = "", "", ""
		c, err := etcd.New(cfg)
		if err != nil {
			// Cannot happen with endpoints and a TLS config; keep what was.
			s.mu.Unlock()
			logger.Error(err, "Building the etcd client from the cluster's objects failed")
			s.count("error")
			return
		}
		old, s.client = s.client, c
	}
	s.state = next
	listeners := append([]func(){}, s.listeners...)
	s.mu.Unlock()
	if old != nil {
		// A request in flight on the old client fails; the planner holds
		// for that plan and asks the new client on the next.
		_ = old.Close()
	}

	changed := next.Ordering != prev.Ordering
	switch {
	case rebuild:
		logger.Info("Using the cluster's etcd for leader ordering", "endpoints", next.Config.Endpoints, "ca", next.Config.CA.String(),
			"skipped", next.Config.Skipped)
		s.count("reloaded")
	case changed && r.Reason == ReasonUnreadable:
		s.count("error")
	case changed && r.Config == nil:
		s.count("invalid")
	}
	if !changed {
		return
	}
	if next.Ordering.On && next.Ordering.Reason == node.EtcdOrderingDiscovered {
		logger.Info("etcd leader ordering on", "reason", next.Ordering.Reason, "message", next.Ordering.Message)
	} else {
		logger.Error(errors.New(next.Ordering.Message), "etcd leader ordering degraded", "on", next.Ordering.On, "reason", next.Ordering.Reason)
	}
	if m := s.opts.Metrics; m != nil {
		m.Set("openshift", next.Ordering.Reason, next.Ordering.On)
	}
	for _, f := range listeners {
		f()
	}
}

func (s *Source) count(result string) {
	if m := s.opts.Metrics; m != nil {
		m.Reloads.WithLabelValues(result).Inc()
	}
}

// read GETs the objects (a GET each: the RBAC needs only "get" on the named
// objects).
func (s *Source) read(ctx context.Context) Objects {
	return Objects{
		Endpoints:  s.readConfigMap(ctx, EndpointsRef),
		ClientCert: s.readSecret(ctx, ClientCertRef),
		CABundle:   s.readConfigMap(ctx, CABundleRef),
		ServingCA:  s.readConfigMap(ctx, ServingCARef),
	}
}

const readTimeout = 10 * time.Second

func (s *Source) readConfigMap(ctx context.Context, ref Ref) Object {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	cm, err := s.kube.CoreV1().ConfigMaps(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return failed(err)
	}
	data := make(map[string][]byte, len(cm.Data))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	return Object{Found: true, Data: data, Annotations: cm.Annotations}
}

func (s *Source) readSecret(ctx context.Context, ref Ref) Object {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	sec, err := s.kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return failed(err)
	}
	return Object{Found: true, Data: sec.Data, Annotations: sec.Annotations}
}

func failed(err error) Object {
	if apierrors.IsNotFound(err) {
		return Object{}
	}
	return Object{Err: err}
}

// Ordering is the state now.
func (s *Source) Ordering() node.EtcdOrdering {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Ordering
}

// OnOrderingChange registers f, called after every change of Ordering.
func (s *Source) OnOrderingChange(f func()) {
	s.mu.Lock()
	s.listeners = append(s.listeners, f)
	s.mu.Unlock()
}

func (s *Source) current() *etcd.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// errNoClient: the planner asked while no configuration was found (it
// asks only while Ordering is on, so only in a race with a change).
var errNoClient = errors.New("no etcd configuration found in the cluster's objects")

// Facts takes a snapshot with the client of the moment.
func (s *Source) Facts(ctx context.Context) node.EtcdFacts {
	c := s.current()
	if c == nil {
		return etcd.Unreachable(errNoClient)
	}
	return c.Snapshot(ctx)
}

// MoveLeader moves leadership with the client of the moment.
func (s *Source) MoveLeader(ctx context.Context, to string) error {
	c := s.current()
	if c == nil {
		return fmt.Errorf("move etcd leader to %s: %w", to, errNoClient)
	}
	return c.MoveLeader(ctx, to)
}

// Close closes the client.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		return nil
	}
	err := s.client.Close()
	s.client = nil
	return err
}
