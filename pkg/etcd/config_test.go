package etcd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// writeCert writes a self-signed certificate and key, usable as CA, server
// and client identity.
func writeCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "etcd-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func TestTLSConfig(t *testing.T) {
	if cfg, err := (Config{}).TLS(); cfg != nil || err != nil {
		t.Fatalf("no credentials: got %v, %v; want plain connections", cfg, err)
	}
	cert, key := writeCert(t, t.TempDir())
	cfg, err := Config{CAFile: cert, CertFile: cert, KeyFile: key}.TLS()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RootCAs == nil || cfg.GetClientCertificate == nil && len(cfg.Certificates) == 0 {
		t.Fatalf("TLS config lacks CA or client certificate: %+v", cfg)
	}
	if _, err := (Config{CAFile: cert, CertFile: "/nonexistent.crt", KeyFile: key}).TLS(); err == nil {
		t.Fatalf("a missing certificate was accepted")
	}
}

func TestBindFlags(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--etcd-endpoints=https://a:2379, https://b:2379", "--etcd-cacert=/ca", "--etcd-request-timeout=3s"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Endpoints, []string{"https://a:2379", "https://b:2379"}) || c.CAFile != "/ca" || c.RequestTimeout != 3*time.Second {
		t.Fatalf("flags parsed to %+v", c)
	}
	if !c.Enabled() || (Config{}).Enabled() {
		t.Fatalf("Enabled wrong")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c     Config
		names []string
	}{
		{Config{}, nil},
		{Config{Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "ca", CertFile: "c", KeyFile: "k"}, nil},
		{Config{Endpoints: []string{"10.0.0.5:2379"}}, []string{"etcd-endpoints"}},
		{Config{Endpoints: []string{"https://10.0.0.5:2379"}, CertFile: "c"}, []string{"etcd-cert"}},
		{Config{CAFile: "ca"}, []string{"etcd-endpoints"}},
	} {
		if got := flagerr.Names(tc.c.Validate()); !slices.Equal(got, tc.names) {
			t.Errorf("%+v: names %v, want %v", tc.c, got, tc.names)
		}
	}
}
