package osdouble

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// Gate is a registry proxy on loopback that holds every layer download
// until Open: a pull through it stays in progress, at a known point, for as
// long as a test needs (no sleeps, no races with the pull's speed).
type Gate struct {
	srv     *http.Server
	ln      net.Listener
	open    chan struct{}
	once    sync.Once
	waiting chan struct{}
	wonce   sync.Once
}

// NewGate proxies to the registry at upstream ("127.0.0.1:port").
func NewGate(upstream string) (*Gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &Gate{ln: ln, open: make(chan struct{}), waiting: make(chan struct{})}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: upstream})
	g.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/blobs/sha256:") && r.Method == http.MethodGet && !g.isOpen() {
			g.wonce.Do(func() { close(g.waiting) })
			select {
			case <-g.open:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	})}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// Host is the proxy's "127.0.0.1:port": use it in place of the registry's.
func (g *Gate) Host() string { return g.ln.Addr().String() }

// Ref rewrites an image reference of the upstream registry to go through the gate.
func (g *Gate) Ref(ref string) string {
	_, rest, _ := strings.Cut(ref, "/")
	return g.Host() + "/" + rest
}

// Waiting is closed once a download is held.
func (g *Gate) Waiting() <-chan struct{} { return g.waiting }

// Open lets every held and future download through.
func (g *Gate) Open() { g.once.Do(func() { close(g.open) }) }

func (g *Gate) isOpen() bool {
	select {
	case <-g.open:
		return true
	default:
		return false
	}
}

// Close opens the gate and stops the proxy.
func (g *Gate) Close() error {
	g.Open()
	return g.srv.Shutdown(context.Background())
}
