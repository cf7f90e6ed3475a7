package etcd

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// Config says how to reach etcd.
type Config struct {
	// Endpoints are client URLs (https://host:2379). Empty: no etcd source,
	// the controller rolls the control plane out like the MCO.
	Endpoints []string
	// TLS client credentials; all empty means plain connections.
	CAFile, CertFile, KeyFile string
	// TLSConfig, when set, is used instead of the files: credentials read
	// from the cluster's objects (pkg/etcddiscovery) rather than a mount.
	TLSConfig *tls.Config
	// DialTimeout bounds connecting; RequestTimeout bounds each request.
	DialTimeout    time.Duration
	RequestTimeout time.Duration
	// MaxLag is how far (in raft entries) a member's applied index may trail
	// the leader's index and still count as healthy; a member catching up
	// after a reboot is not healthy yet.
	MaxLag uint64
}

// Defaults for the zero values.
const (
	DefaultDialTimeout    = 2 * time.Second
	DefaultRequestTimeout = 2 * time.Second
	DefaultMaxLag         = 1000
)

// BindFlags registers the config's flags on fs.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.Func("etcd-endpoints", "comma-separated etcd client URLs; empty disables etcd leader ordering", func(s string) error {
		for _, e := range strings.Split(s, ",") {
			if e = strings.TrimSpace(e); e != "" {
				c.Endpoints = append(c.Endpoints, e)
			}
		}
		return nil
	})
	fs.StringVar(&c.CAFile, "etcd-cacert", "", "CA bundle to verify etcd's serving certificates")
	fs.StringVar(&c.CertFile, "etcd-cert", "", "client certificate for etcd")
	fs.StringVar(&c.KeyFile, "etcd-key", "", "client key for etcd")
	fs.DurationVar(&c.DialTimeout, "etcd-dial-timeout", DefaultDialTimeout, "timeout to connect to etcd")
	fs.DurationVar(&c.RequestTimeout, "etcd-request-timeout", DefaultRequestTimeout, "timeout of each etcd request")
}

// Validate checks the flags' values without touching the files: each
// endpoint a URL with a scheme and host, the certificate and key given
// together. Errors name their flag (flagerr).
func (c Config) Validate() error {
	var errs []error
	for _, e := range c.Endpoints {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, flagerr.New("etcd-endpoints", "%q is not an http:// or https:// URL", e))
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		errs = append(errs, flagerr.New("etcd-cert", "--etcd-cert and --etcd-key go together"))
	}
	if !c.Enabled() && (c.CAFile != "" || c.CertFile != "" || c.KeyFile != "") {
		errs = append(errs, flagerr.New("etcd-endpoints", "--etcd-cacert, --etcd-cert and --etcd-key need --etcd-endpoints"))
	}
	return errors.Join(errs...)
}

// Enabled reports whether an etcd source is configured.
func (c Config) Enabled() bool { return len(c.Endpoints) > 0 }

// TLS builds the client TLS config; nil when no credentials are set.
func (c Config) TLS() (*tls.Config, error) {
	if c.TLSConfig != nil {
		return c.TLSConfig.Clone(), nil
	}
	if c.CAFile == "" && c.CertFile == "" && c.KeyFile == "" {
		return nil, nil
	}
	info := transport.TLSInfo{CertFile: c.CertFile, KeyFile: c.KeyFile, TrustedCAFile: c.CAFile}
	cfg, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("etcd client TLS: %w", err)
	}
	return cfg, nil
}

func (c Config) withDefaults() Config {
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MaxLag == 0 {
		c.MaxLag = DefaultMaxLag
	}
	return c
}

// clientConfig is the clientv3 config for endpoints.
func (c Config) clientConfig(endpoints []string) (clientv3.Config, error) {
	tlsCfg, err := c.TLS()
	if err != nil {
		return clientv3.Config{}, err
	}
	return clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: c.DialTimeout,
		TLS:         tlsCfg,
		Logger:      zap.NewNop(),
	}, nil
}
