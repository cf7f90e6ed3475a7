package originmon

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// Origin's kube-api disruption backend, read from openshift/origin
// pkg/monitortests/kubeapiserver/disruptionlegacyapiservers/monitortest.go
// (commit a96df2d80ddf3429a6ed24ad0f3f412667fe1189, backend "kube-api") and
// pkg/monitor/backenddisruption/disruption_backend_sampler.go (commit
// 60c17c53896047fc967a5d06dd0bc1bfc0133e5f, NewAPIServerBackend).
const (
	// KubeAPIPath is what the "kube-api" backend GETs.
	KubeAPIPath = "/api/v1/namespaces/default"
	// KubeAPITimeout bounds each request: "Kube-apiserver allows 34s
	// timeout for api requests. We want to match it here."
	KubeAPITimeout = 34 * time.Second
	// DefaultTimeout is origin's timeout for samplers given none.
	DefaultTimeout = 20 * time.Second
)

// Sampler GETs one URL every period, as origin's BackendSampler does, over
// new connections (keep-alives off: one TCP and TLS handshake per request,
// so it sees a backend that refuses connections) or over one reused
// connection (sees a backend that drops the connections it holds).
type Sampler struct {
	name, url       string
	period, timeout time.Duration
	client          *http.Client

	mu    sync.Mutex
	slots []slot // in start order
}

type slot struct {
	s             Sample
	done, dropped bool
}

// NewSampler samples origin's "kube-api" backend of cfg's server: GET
// KubeAPIPath every OriginPeriod, each bounded by KubeAPITimeout. Like
// origin it takes cfg's TLS (CA, client certificate) into its own
// transport, so that it alone decides whether connections are reused, and
// authenticates as cfg does (origin handles bearer tokens; the client-go
// wrappers used here also cover basic auth, exec plugins and impersonation).
func NewSampler(name string, cfg *rest.Config, reuse bool) (*Sampler, error) {
	tc, err := cfg.TransportConfig()
	if err != nil {
		return nil, fmt.Errorf("sampler %s: transport config: %w", name, err)
	}
	tlsConfig, err := transport.TLSConfigFor(tc)
	if err != nil {
		return nil, fmt.Errorf("sampler %s: TLS config: %w", name, err)
	}
	u, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("sampler %s: server URL: %w", name, err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + KubeAPIPath
	s := NewURLSampler(name, u.String(), tlsConfig, reuse, OriginPeriod, KubeAPITimeout)
	if tc.UserAgent == "" {
		// Origin names its samplers' requests the same way, so they can be
		// told apart in the audit log.
		tc.UserAgent = "tandem-originmon-backend-sampler-" + name
	}
	if s.client.Transport, err = transport.HTTPWrappersForConfig(tc, s.client.Transport); err != nil {
		return nil, fmt.Errorf("sampler %s: auth: %w", name, err)
	}
	return s, nil
}

// NewURLSampler samples url every period, each request bounded by timeout
// (DefaultTimeout if not positive). A nil tlsConfig means Go's defaults,
// which verify the server: origin would skip verification, but every
// caller here has the cluster's CA.
func NewURLSampler(name, url string, tlsConfig *tls.Config, reuse bool, period, timeout time.Duration) *Sampler {
	if period <= 0 {
		period = OriginPeriod
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// Origin gives each phase (dial, TLS handshake, response headers) 4/5
	// of the whole, so a stuck phase shows as its own error, not as the
	// overall timeout.
	part := timeout * 4 / 5
	dialer := &net.Dialer{Timeout: part}
	if !reuse {
		dialer.KeepAlive = -1
	}
	// A custom dialer and TLS config keep Go on HTTP/1.1, as origin's
	// transport is: "reused" is one keep-alive connection, not h2 streams.
	rt := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tlsConfig,
		DisableKeepAlives:     !reuse,
		TLSHandshakeTimeout:   part,
		IdleConnTimeout:       part,
		ResponseHeaderTimeout: part,
		ExpectContinueTimeout: part,
		Proxy:                 http.ProxyFromEnvironment,
	}
	return &Sampler{name: name, url: url, period: period, timeout: timeout,
		client: &http.Client{Transport: rt, Timeout: timeout}}
}

// Name is the sampler's name.
func (s *Sampler) Name() string { return s.name }

// Run samples every period until ctx ends, then waits for the requests in
// flight, which ctx cancels. As in origin a request does not wait for the
// one before it: a server that hangs must not slow the sampling, so up to
// 1.5×timeout/period requests may overlap. Call it once.
func (s *Sampler) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(s.period)
	defer tick.Stop()
	for ctx.Err() == nil {
		i := s.begin()
		wg.Go(func() { s.finish(ctx, i) })
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

func (s *Sampler) begin() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots = append(s.slots, slot{s: Sample{At: time.Now(), AuditID: uuid.NewString()}})
	return len(s.slots) - 1
}

func (s *Sampler) finish(ctx context.Context, i int) {
	s.mu.Lock()
	id := s.slots[i].s.AuditID
	s.mu.Unlock()
	err := s.probe(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	// A request cut short by the end of the run says nothing about the
	// server. (Origin reports it as a success, and its consumer has
	// usually stopped reading by then.)
	if ctx.Err() != nil {
		s.slots[i].dropped = true
		return
	}
	if err != nil {
		s.slots[i].s.Err = err.Error()
	}
	s.slots[i].done = true
}

// probe GETs the URL once. Origin's verdict: an error from the request or
// from reading the body fails, and so does a status outside 200–399.
func (s *Sampler) probe(ctx context.Context, auditID string) error {
	// Origin's backstop, longer than the client's timeout, in case a phase
	// escapes it.
	ctx, cancel := context.WithTimeout(ctx, s.timeout*3/2)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Audit-ID", auditID)
	resp, err := s.client.Do(req)
	if err != nil {
		return err // the error text keys the intervals: keep origin's
	}
	defer resp.Body.Close()
	// Read it all, as origin does: a body left unread would also keep the
	// reused connection from being reused.
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading body: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 399 {
		return fmt.Errorf("error running request: %s: %.512s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
