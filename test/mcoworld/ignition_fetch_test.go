package mcoworld

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/test/pki"
)

// A server with its own CA, answering /config/worker with codes, then a
// config; FetchPointed must trust only the pointer's CA, send Ignition's
// Accept header, retry 5xx and connection failures, give up on 4xx, and
// stop at its context's end saying what it last got (coreos/ignition
// internal/resource/http.go, as cited in ignition_fetch.go).
func TestFetchPointed(t *testing.T) {
	ca, err := pki.NewCA("mcs-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(pki.Leaf{CommonName: "mcs", IPs: []net.IP{net.ParseIP("127.0.0.1")}, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	const config = `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/x","contents":{"source":"data:,served"}}]}}`
	for _, tc := range []struct {
		name   string
		codes  []int // answered in order, then 200 with the config
		ca     []byte
		bound  time.Duration
		want   string // "" = the config, else in the error
		visits int
	}{
		{name: "served", ca: ca.CertPEM, bound: time.Minute, visits: 1},
		{name: "5xx retried", codes: []int{500, 503}, ca: ca.CertPEM, bound: time.Minute, visits: 3},
		{name: "4xx ends", codes: []int{404}, ca: ca.CertPEM, bound: time.Minute, want: "Not Found", visits: 1},
		{name: "another CA", ca: other.CertPEM, bound: 2 * time.Second, want: "x509", visits: 0},
		{name: "bounded", codes: []int{500, 500, 500, 500, 500, 500, 500, 500}, ca: ca.CertPEM, bound: time.Second, want: "Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var visits atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(visits.Add(1))
				if r.URL.Path != "/config/worker" || !strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.coreos.ignition+json;version=3.5.0") {
					http.Error(w, "bad request "+r.URL.Path+" "+r.Header.Get("Accept"), http.StatusBadRequest)
					return
				}
				if n <= len(tc.codes) {
					http.Error(w, "code", tc.codes[n-1])
					return
				}
				fmt.Fprint(w, config)
			}))
			cert, err := tlsPair(pair)
			if err != nil {
				t.Fatal(err)
			}
			srv.TLS = cert
			srv.StartTLS()
			defer srv.Close()
			pointer := fmt.Sprintf(`{"ignition":{"version":"3.5.0","config":{"merge":[{"source":"https://127.0.0.1:22623/config/worker"}]},"security":{"tls":{"certificateAuthorities":[{"source":%q}]}}}}`, dataURL(tc.ca))
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, srv.Listener.Addr().String())
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.bound)
			defer cancel()
			got, err := FetchPointed(ctx, []byte(pointer), dial)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("FetchPointed: %v", err)
			case tc.want == "":
				files, ferr := IgnitionFiles(got)
				if ferr != nil || string(files["/etc/x"]) != "served" {
					t.Fatalf("merged %s (%v), want the served file", got, ferr)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("FetchPointed: %v, want an error saying %q", err, tc.want)
			}
			if tc.visits > 0 && int(visits.Load()) != tc.visits {
				t.Errorf("%d requests, want %d", visits.Load(), tc.visits)
			}
		})
	}
}

func tlsPair(p pki.Pair) (*tls.Config, error) {
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}}, nil
}
