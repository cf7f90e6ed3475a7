package originmon

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// flakyServer answers 200, or 500 while failing, and counts what it did.
type flakyServer struct {
	*httptest.Server
	failing   atomic.Bool
	ok, conns atomic.Int64

	mu     sync.Mutex
	failed map[string]bool // Audit-IDs answered 500
	seen   []*http.Request
}

func newFlakyServer(t *testing.T) *flakyServer {
	f := &flakyServer{failed: map[string]bool{}}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Clone(context.Background()))
		f.mu.Unlock()
		if f.failing.Load() {
			f.mu.Lock()
			f.failed[r.Header.Get("Audit-ID")] = true
			f.mu.Unlock()
			http.Error(w, "injected failure", http.StatusInternalServerError)
			return
		}
		f.ok.Add(1)
		_, _ = w.Write([]byte(`{"kind":"Namespace"}`))
	}))
	f.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			f.conns.Add(1)
		}
	}
	f.StartTLS()
	t.Cleanup(f.Close)
	return f
}

func (f *flakyServer) failedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.failed)
}

func (f *flakyServer) tlsConfig() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(f.Certificate())
	return &tls.Config{RootCAs: pool}
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// runSampler runs s until the returned stop is called; stop waits (bounded)
// for Run to return.
func runSampler(t *testing.T, ctx context.Context, s *Sampler) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after its context ended")
		}
	}
}

func TestSamplerNewAndReusedConnections(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "reused"}[reuse]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			f := newFlakyServer(t)
			s := NewURLSampler("kube-api-"+name, f.URL+KubeAPIPath, f.tlsConfig(), reuse, 100*time.Millisecond, 2*time.Second)
			stop := runSampler(t, ctx, s)

			waitFor(ctx, t, "3 good answers", func() bool { return f.ok.Load() >= 3 })
			f.failing.Store(true)
			waitFor(ctx, t, "3 failed answers", func() bool { return f.failedCount() >= 3 })
			f.failing.Store(false)
			okBefore := f.ok.Load()
			waitFor(ctx, t, "3 good answers after the failures", func() bool { return f.ok.Load() >= okBefore+3 })
			stop()

			r := s.Result()
			// Exactly the requests the server failed are failed samples:
			// none before the window, all within it.
			var failedIDs []string
			for _, sm := range s.Samples() {
				if sm.Err != "" {
					failedIDs = append(failedIDs, sm.AuditID)
					if !strings.Contains(sm.Err, "500") {
						t.Errorf("failed sample error %q does not name the 500", sm.Err)
					}
				}
			}
			f.mu.Lock()
			for _, id := range failedIDs {
				if !f.failed[id] {
					t.Errorf("sample %s failed but the server answered it 200", id)
				}
			}
			serverFailed := len(f.failed)
			f.mu.Unlock()
			if r.Failed == 0 || r.Failed != serverFailed || len(failedIDs) != r.Failed {
				t.Errorf("Failed = %d (%d ids), server failed %d", r.Failed, len(failedIDs), serverFailed)
			}
			if r.DisruptedSeconds <= 0 || len(r.Intervals) == 0 {
				t.Errorf("disruption %v s over %+v, want some", r.DisruptedSeconds, r.Intervals)
			}

			handled := int(f.ok.Load()) + serverFailed
			conns := int(f.conns.Load())
			t.Logf("%s: samples=%d failed=%d handled=%d conns=%d disrupted=%.1fs", name, r.Samples, r.Failed, handled, conns, r.DisruptedSeconds)
			// The last answer may be dropped: the run can end before the
			// client has read it.
			if handled < 9 || r.Samples < 8 {
				t.Fatalf("only %d requests handled, %d samples", handled, r.Samples)
			}
			if !reuse && conns < handled {
				t.Errorf("new connections: %d TCP connections for %d requests, want one each", conns, handled)
			}
			if reuse && conns > 3 {
				t.Errorf("reused connections: %d TCP connections for %d requests, want one (or few)", conns, handled)
			}
		})
	}
}

func TestSamplerTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	release := make(chan struct{})
	var hung atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	s := NewURLSampler("hang", srv.URL, &tls.Config{RootCAs: pool}, false, 100*time.Millisecond, 300*time.Millisecond)
	stop := runSampler(t, ctx, s)
	waitFor(ctx, t, "2 timed-out samples", func() bool { return s.Result().Failed >= 2 })
	stop()
	for _, sm := range s.Samples() {
		if sm.Err == "" || !strings.Contains(strings.ToLower(sm.Err), "timeout") {
			t.Errorf("sample of a hung server: %q, want a timeout", sm.Err)
		}
	}
}

func TestNewSamplerFromRESTConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	f := newFlakyServer(t)
	cfg := &rest.Config{
		Host:            f.URL,
		BearerToken:     "secret-token",
		TLSClientConfig: rest.TLSClientConfig{CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw})},
	}
	s, err := NewSampler("kube-api-new-connections", cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	stop := runSampler(t, ctx, s)
	waitFor(ctx, t, "a sample", func() bool { return s.Result().Samples >= 1 })
	stop()
	if r := s.Result(); r.Failed != 0 {
		t.Fatalf("result %+v, want no failure", r)
	}
	f.mu.Lock()
	req := f.seen[0]
	f.mu.Unlock()
	if req.URL.Path != KubeAPIPath || req.Header.Get("Authorization") != "Bearer secret-token" ||
		req.Header.Get("Audit-ID") == "" || !strings.Contains(req.UserAgent(), "kube-api-new-connections") {
		t.Fatalf("request %s with headers %v", req.URL, req.Header)
	}
}
