package osdouble

import (
	"context"
	"crypto/tls"
	"io"
	"log"
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

// GateUpstream is the registry a Gate stands in front of
// (*osimage.Registry): the gate serves the registry's own certificate, so a
// node trusts it as it trusts the registry, and passes the client's bearer
// token through (a client asks the registry's token endpoint for it, and
// needs credentials for the gate's host:port in its auth file).
type GateUpstream interface {
	Host() string
	ServerCertificate() tls.Certificate
	ClientTLS() *tls.Config
}

// NewGate proxies to the registry upstream.
func NewGate(upstream GateUpstream) (*Gate, error) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ln := tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{upstream.ServerCertificate()}, MinVersion: tls.VersionTLS12})
	g := &Gate{ln: ln, open: make(chan struct{}), waiting: make(chan struct{})}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "https", Host: upstream.Host()})
	proxy.Transport = &http.Transport{TLSClientConfig: upstream.ClientTLS()}
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	g.srv = &http.Server{ErrorLog: log.New(io.Discard, "", 0), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
