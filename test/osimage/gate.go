package osimage

import (
	"net/http"
	"strings"
	"sync"
)

// blobGate holds one blob download, so a test can act while a client is in
// the middle of a pull (some blobs fetched, the next one not yet).
type blobGate struct {
	mu   sync.Mutex
	arm  *gateArm
	next http.Handler
	// refusing answers every manifest and blob GET 503 (RefusePulls).
	refusing bool
}

type gateArm struct {
	left    int // blob GETs to let through before holding one
	held    chan struct{}
	release chan struct{}
	once    sync.Once
}

func (g *blobGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	refusing := g.refusing
	g.mu.Unlock()
	if refusing && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(strings.Contains(r.URL.Path, "/manifests/") || strings.Contains(r.URL.Path, "/blobs/")) {
		// As a registry in an outage answers (the distribution spec's
		// error body, code UNAVAILABLE): every client's pull fails.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"errors":[{"code":"UNAVAILABLE","message":"registry outage (test)"}]}`))
		return
	}
	if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/sha256:") {
		g.mu.Lock()
		a := g.arm
		hold := false
		if a != nil {
			if a.left == 0 {
				g.arm, hold = nil, true
			} else {
				a.left--
			}
		}
		g.mu.Unlock()
		if hold {
			close(a.held)
			select {
			case <-a.release:
			case <-r.Context().Done():
				return // the client is gone (killed, powered off)
			}
		}
	}
	g.next.ServeHTTP(w, r)
}

// HoldBlobGet makes the registry hold the blob download that comes after
// the next skip ones: held is closed when that request arrives, and it is
// answered once release is called (or its client goes away). Only one hold
// is armed at a time; arming again replaces it.
func (r *Registry) HoldBlobGet(skip int) (held <-chan struct{}, release func()) {
	a := &gateArm{left: skip, held: make(chan struct{}), release: make(chan struct{})}
	r.gate.mu.Lock()
	r.gate.arm = a
	r.gate.mu.Unlock()
	return a.held, func() {
		a.once.Do(func() { close(a.release) })
		r.gate.mu.Lock()
		if r.gate.arm == a {
			r.gate.arm = nil
		}
		r.gate.mu.Unlock()
	}
}

// RefusePulls makes the registry answer every manifest and blob request
// 503 until the returned function is called: an outage that fails every
// node's pull at once.
func (r *Registry) RefusePulls() (restore func()) {
	r.gate.mu.Lock()
	r.gate.refusing = true
	r.gate.mu.Unlock()
	return func() {
		r.gate.mu.Lock()
		r.gate.refusing = false
		r.gate.mu.Unlock()
	}
}
