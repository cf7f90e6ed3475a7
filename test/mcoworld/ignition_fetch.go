package mcoworld

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// What Ignition sends and how it retries when it fetches a config
// (coreos/ignition internal/resource/url.go configHeaders and
// internal/resource/http.go, read at commit 02595999): the spec version it
// speaks in Accept (the machine-config-server answers in that version,
// pkg/server/api.go, release-4.21), identity encoding; a failed request or
// a 5xx answer is retried after 200 ms, doubling up to 5 s, with no total
// timeout (the world bounds it); a 4xx answer ends the fetch.
const (
	ignitionAccept        = "application/vnd.coreos.ignition+json;version=3.5.0, */*;q=0.1"
	ignitionUserAgent     = "Ignition/tandem-world" // the server only logs it
	ignitionFirstBackoff  = 200 * time.Millisecond
	ignitionMaxBackoff    = 5 * time.Second
	ignitionHeaderTimeout = 10 * time.Second
)

// DialFunc connects to addr ("host:port" as the config names it): the
// world's way to the load balancer in front of api-int:22623.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// FetchPointed is a first boot's Ignition fetch from the pointer config the
// installer gives a machine (its user data): it trusts only the pointer's
// certificate authorities, fetches each config the pointer merges, retrying
// as Ignition does until ctx ends, and returns the merged config. Nothing
// is laid here: a fetch that fails leaves the machine untouched.
func FetchPointed(ctx context.Context, pointer []byte, dial DialFunc) ([]byte, error) {
	cfg, _, err := ign3.ParseCompatibleVersion(pointer)
	if err != nil {
		return nil, fmt.Errorf("the pointer config: %w", err)
	}
	pool := x509.NewCertPool()
	for _, ca := range cfg.Ignition.Security.TLS.CertificateAuthorities {
		pem, err := ignitionContents(ca)
		if err != nil {
			return nil, fmt.Errorf("the pointer's CA: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the pointer's CA %.40q is not PEM", *ca.Source)
		}
	}
	client := &http.Client{Transport: &http.Transport{DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: pool},
		ResponseHeaderTimeout: ignitionHeaderTimeout, TLSHandshakeTimeout: 10 * time.Second}}
	defer client.CloseIdleConnections()
	merged := ign3types.Config{Ignition: ign3types.Ignition{Version: cfg.Ignition.Version}}
	if len(cfg.Ignition.Config.Merge) == 0 {
		return nil, fmt.Errorf("the pointer config merges no config")
	}
	for _, src := range cfg.Ignition.Config.Merge {
		if src.Source == nil {
			return nil, fmt.Errorf("the pointer config merges a config without a source")
		}
		raw, err := fetchConfig(ctx, client, *src.Source)
		if err != nil {
			return nil, err
		}
		child, _, err := ign3.ParseCompatibleVersion(raw)
		if err != nil {
			return nil, fmt.Errorf("the config from %s: %w", *src.Source, err)
		}
		merged = ign3.Merge(merged, child)
	}
	return json.Marshal(merged)
}

// fetchConfig GETs one config, retrying as Ignition does until ctx ends;
// the error then says what the last attempt got.
func fetchConfig(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	backoff := ignitionFirstBackoff
	for attempt := 1; ; attempt++ {
		body, status, err := get(ctx, client, u)
		switch {
		case err == nil && status == http.StatusOK:
			return body, nil
		case err == nil && status < 500:
			return nil, fmt.Errorf("GET %s: %s (%s)", u, http.StatusText(status), body)
		case err == nil:
			err = fmt.Errorf("%s", http.StatusText(status))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("GET %s: no config after %d attempts, the last: %w", u, attempt, err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, ignitionMaxBackoff)
	}
}

func get(ctx context.Context, client *http.Client, u string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", ignitionUserAgent)
	req.Header.Set("Accept", ignitionAccept)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return body, resp.StatusCode, err
}
