package osimage

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Registry is a container registry (go-containerregistry's implementation of
// the distribution protocol) listening on 127.0.0.1 with its blobs on disk, so
// images of several GiB do not sit in memory. Manifests are kept in memory:
// they are small, and a registry started anew is empty.
//
// It is private, as the registries a cluster pulls its OS from are: HTTPS
// with a certificate of its own CA (CAPEM; a client trusts it through its
// certs.d, TrustFiles), and every request authenticated with a bearer token
// that only its credentials obtain (auth.go; AuthJSON is the pull secret).
type Registry struct {
	dir      string
	gate     *blobGate
	auth     *tokenAuth
	pki      *registryPKI
	listener net.Listener
	server   *http.Server
	done     chan struct{}
}

// RegistryOptions configure StartRegistryWith.
type RegistryOptions struct {
	// Hosts are further names (IP addresses or DNS names) clients reach
	// the registry by, put in its certificate besides 127.0.0.1 and
	// localhost: a VM guest's forwarded address.
	Hosts []string
}

// StartRegistry starts a registry on 127.0.0.1 at a random port, storing blobs
// under dir (created if missing). It runs until Close or until ctx is done.
func StartRegistry(ctx context.Context, dir string) (*Registry, error) {
	return StartRegistryWith(ctx, dir, RegistryOptions{})
}

// StartRegistryWith is StartRegistry with options.
func StartRegistryWith(ctx context.Context, dir string, o RegistryOptions) (*Registry, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sha256"), 0o755); err != nil {
		return nil, fmt.Errorf("registry blob dir: %w", err)
	}
	pki, err := newRegistryPKI(o.Hosts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("registry listen: %w", err)
	}
	handler := registry.New(
		registry.WithBlobHandler(&sizeStatBlobs{dir: dir, disk: registry.NewDiskBlobHandler(dir)}),
		registry.Logger(log.New(io.Discard, "", 0)),
	)
	gate := &blobGate{next: handler}
	r := &Registry{
		dir:      dir,
		gate:     gate,
		pki:      pki,
		listener: l,
		done:     make(chan struct{}),
	}
	if r.auth, err = newTokenAuth(r.Host, gate); err != nil {
		_ = l.Close()
		return nil, err
	}
	r.server = &http.Server{Handler: r.auth, TLSConfig: &tls.Config{Certificates: []tls.Certificate{pki.cert}, MinVersion: tls.VersionTLS12},
		ErrorLog: log.New(io.Discard, "", 0)}
	l = tls.NewListener(l, r.server.TLSConfig)
	go func() {
		defer close(r.done)
		_ = r.server.Serve(l)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = r.Close()
		case <-r.done:
		}
	}()
	return r, nil
}

// Host is "127.0.0.1:PORT", the registry part of image references.
func (r *Registry) Host() string { return r.listener.Addr().String() }

// CAPEM is the certificate of the CA that signed the registry's certificate.
func (r *Registry) CAPEM() []byte { return append([]byte(nil), r.pki.caPEM...) }

// Username and Password are the registry's one account.
func (r *Registry) Username() string { return registryUser }

// Password is the account's password (random per registry).
func (r *Registry) Password() string { return r.auth.password }

// AuthJSON is a containers-auth.json(5) document (the format of a cluster's
// pull secret, /var/lib/kubelet/config.json) with the registry's
// credentials under each host ("host:port", the registry part of the image
// references a client pulls); none given: Host().
func (r *Registry) AuthJSON(hosts ...string) []byte {
	if len(hosts) == 0 {
		hosts = []string{r.Host()}
	}
	auths := map[string]map[string]string{}
	for _, h := range hosts {
		auths[h] = map[string]string{"auth": basicAuth(r.Username(), r.Password())}
	}
	b, _ := json.Marshal(map[string]any{"auths": auths})
	return b
}

// TrustFiles are the files that make a host's container tools trust the
// registry when they reach it as host ("host:port"; none given: Host()):
// its CA in /etc/containers/certs.d/<host>/ca.crt (containers-certs.d(5)),
// by absolute path on the host.
func (r *Registry) TrustFiles(hosts ...string) map[string]string {
	if len(hosts) == 0 {
		hosts = []string{r.Host()}
	}
	out := map[string]string{}
	for _, h := range hosts {
		out[path.Join("/etc/containers/certs.d", h, "ca.crt")] = string(r.pki.caPEM)
	}
	return out
}

// ClientTLS is a TLS configuration that trusts the registry's CA, for
// harness clients (pushes, test proxies).
func (r *Registry) ClientTLS() *tls.Config { return r.pki.clientTLS() }

// ServerCertificate is the registry's serving certificate, for a test proxy
// in front of it that clients must trust as they trust the registry.
func (r *Registry) ServerCertificate() tls.Certificate { return r.pki.cert }

// Dir is the directory holding the blobs.
func (r *Registry) Dir() string { return r.dir }

// Close stops the registry. Blobs stay on disk.
func (r *Registry) Close() error {
	err := r.server.Close()
	<-r.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// BlobPath is where the blob with the given digest ("sha256:...") is stored.
func (r *Registry) BlobPath(digest string) (string, error) {
	h, err := v1.NewHash(digest)
	if err != nil {
		return "", fmt.Errorf("blob digest %q: %w", digest, err)
	}
	return filepath.Join(r.dir, h.Algorithm, h.Hex), nil
}

// CorruptBlob flips bytes in the middle of a stored blob, keeping its size, so
// that the registry serves content that no longer matches its digest (what a
// bad disk or a broken mirror does). Tests use it to check that clients verify.
func (r *Registry) CorruptBlob(digest string) error {
	p, err := r.BlobPath(digest)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("corrupt blob: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("corrupt blob %s: empty", digest)
	}
	off := fi.Size() / 2
	buf := make([]byte, min(int64(64), fi.Size()-off))
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for i := range buf {
		buf[i] ^= 0xff
	}
	if _, err := f.WriteAt(buf, off); err != nil {
		return err
	}
	return f.Close()
}

// sizeStatBlobs serves blobs from disk. Unlike the stock disk handler, Stat
// reports the file size without hashing the blob: re-reading a GiB layer on
// every HEAD would compete with the client for CPU, and a corrupted blob must
// reach the client (which has to notice) rather than turn into a 500.
// Uploads are still verified by the registry before they are stored.
type sizeStatBlobs struct {
	dir  string
	disk registry.BlobHandler
}

func (b *sizeStatBlobs) path(h v1.Hash) string { return filepath.Join(b.dir, h.Algorithm, h.Hex) }

func (b *sizeStatBlobs) Stat(_ context.Context, _ string, h v1.Hash) (int64, error) {
	fi, err := os.Stat(b.path(h))
	if errors.Is(err, os.ErrNotExist) {
		return 0, registry.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (b *sizeStatBlobs) Get(_ context.Context, _ string, h v1.Hash) (io.ReadCloser, error) {
	f, err := os.Open(b.path(h))
	if errors.Is(err, os.ErrNotExist) {
		return nil, registry.ErrNotFound
	}
	return f, err
}

func (b *sizeStatBlobs) Put(ctx context.Context, repo string, h v1.Hash, rc io.ReadCloser) error {
	if !strings.HasPrefix(h.Algorithm, "sha") {
		return fmt.Errorf("unsupported digest algorithm %q", h.Algorithm)
	}
	return b.disk.(registry.BlobPutHandler).Put(ctx, repo, h, rc)
}

func (b *sizeStatBlobs) Delete(_ context.Context, _ string, h v1.Hash) error {
	return os.Remove(b.path(h))
}
