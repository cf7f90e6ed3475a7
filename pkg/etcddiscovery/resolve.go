package etcddiscovery

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// Object is one object as read. Not found is Found false with Err nil; Err
// is any other failure to read it.
type Object struct {
	Found       bool
	Err         error
	Data        map[string][]byte // a ConfigMap's data as bytes, a Secret's data
	Annotations map[string]string
}

// Objects are the objects of one read.
type Objects struct {
	Endpoints, ClientCert, CABundle, ServingCA Object
}

// Reasons of the EtcdLeaderOrdering condition this package gives (besides
// node.EtcdOrderingDiscovered).
const (
	// ReasonNotFound: an object is missing (not OpenShift, or its etcd
	// operator has not written it yet).
	ReasonNotFound = "EtcdObjectsNotFound"
	// ReasonForbidden: the controller may not read an object (RBAC).
	ReasonForbidden = "EtcdObjectsForbidden"
	// ReasonUnreadable: reading failed otherwise (the apiserver did not
	// answer); a passing fault, which changes nothing once a state is known.
	ReasonUnreadable = "EtcdObjectsUnreadable"
	// ReasonInvalid: an object is there but unusable (no member address, a
	// certificate that does not parse, a key that does not match it).
	ReasonInvalid = "EtcdObjectsInvalid"
	// ReasonStale: ordering goes on with the configuration found before,
	// because the objects now have one of the problems above.
	ReasonStale = "EtcdObjectsStale"
)

// Config is a usable etcd configuration found in the objects.
type Config struct {
	// Endpoints are the client URLs, sorted.
	Endpoints []string
	// TLS holds the client certificate and the CA pool.
	TLS *tls.Config
	// CA is the object the CA bundle came from.
	CA Ref
	// ClientCert says which certificate is in use (serial, expiry), so that
	// a rotation shows in the condition.
	ClientCert string
	// Skipped are endpoint entries left out, each saying why.
	Skipped []string
	// fingerprint identifies the content: a new one means a new client.
	fingerprint string
}

// Result is what Resolve found: a Config, or the reason there is none.
type Result struct {
	Config          *Config
	Reason, Message string
}

// Resolve judges one read of the objects.
func Resolve(objs Objects) Result {
	ca, caRef := objs.CABundle, CABundleRef
	if !ca.Found && ca.Err == nil {
		ca, caRef = objs.ServingCA, ServingCARef
	}
	read := []struct {
		ref Ref
		obj Object
	}{{EndpointsRef, objs.Endpoints}, {ClientCertRef, objs.ClientCert}, {caRef, ca}}
	var unreadable, forbidden, missing []string
	for _, r := range read {
		switch {
		case r.obj.Err != nil && (apierrors.IsForbidden(r.obj.Err) || apierrors.IsUnauthorized(r.obj.Err)):
			forbidden = append(forbidden, fmt.Sprintf("%s: %v", r.ref, r.obj.Err))
		case r.obj.Err != nil:
			unreadable = append(unreadable, fmt.Sprintf("%s: %v", r.ref, r.obj.Err))
		case !r.obj.Found:
			name := r.ref.String()
			if r.ref == ServingCARef {
				name = fmt.Sprintf("%s (nor %s)", CABundleRef, ServingCARef)
			}
			missing = append(missing, name+" not found")
		}
	}
	switch {
	case len(unreadable) > 0:
		return Result{Reason: ReasonUnreadable, Message: "reading " + strings.Join(unreadable, "; ")}
	case len(forbidden) > 0:
		return Result{Reason: ReasonForbidden, Message: "not allowed to read " + strings.Join(forbidden, "; ")}
	case len(missing) > 0:
		return Result{Reason: ReasonNotFound, Message: strings.Join(missing, "; ")}
	}

	var problems []string
	urls, skipped, err := EndpointURLs(objs.Endpoints)
	if err != nil {
		problems = append(problems, err.Error())
	}
	tlsCfg, err := ClientTLS(objs.ClientCert.Data, ca.Data, caRef)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return Result{Reason: ReasonInvalid, Message: strings.Join(problems, "; ")}
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(strings.Join(urls, ",")), objs.ClientCert.Data[CertKey], objs.ClientCert.Data[KeyKey], ca.Data[CABundleKey]} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return Result{Config: &Config{Endpoints: urls, TLS: tlsCfg, CA: caRef, Skipped: skipped, ClientCert: describeCert(tlsCfg),
		fingerprint: hex.EncodeToString(h.Sum(nil))}}
}

// EndpointURLs turns the etcd-endpoints ConfigMap into client URLs, as the
// kube-apiserver's observer does (library-go observe_etcd_endpoints.go):
// every data value and the bootstrap annotation is an IP; an entry that is
// not, or a reserved documentation address (192.0.2.0/24, 2001:db8::/32,
// placeholders of clusters before 4.5), is skipped and said so; the URL is
// https://IP:2379 with the IP in canonical form (IPv6 in brackets). The URLs
// come back sorted and unique; no URL at all is an error.
func EndpointURLs(cm Object) (urls, skipped []string, err error) {
	type entry struct{ where, value string }
	var entries []entry
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		entries = append(entries, entry{fmt.Sprintf("key %q", k), string(cm.Data[k])})
	}
	if ip, ok := cm.Annotations[BootstrapIPAnnotation]; ok && ip != "" {
		entries = append(entries, entry{fmt.Sprintf("annotation %s", BootstrapIPAnnotation), ip})
	}
	for _, e := range entries {
		ip := net.ParseIP(e.value)
		switch {
		case ip == nil:
			skipped = append(skipped, fmt.Sprintf("%s: %q is not an IP address", e.where, e.value))
		case reserved(ip):
			skipped = append(skipped, fmt.Sprintf("%s: %s is a reserved documentation address", e.where, ip))
		default:
			u := "https://" + net.JoinHostPort(ip.String(), ClientPort)
			if !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
	}
	slices.Sort(urls)
	if len(urls) == 0 {
		msg := fmt.Sprintf("%s: no etcd member address", EndpointsRef)
		if len(skipped) > 0 {
			msg += " (" + strings.Join(skipped, "; ") + ")"
		}
		return nil, skipped, errors.New(msg)
	}
	return urls, skipped, nil
}

var (
	reservedV4 = &net.IPNet{IP: net.IPv4(192, 0, 2, 0).To4(), Mask: net.CIDRMask(24, 32)}
	reservedV6 = &net.IPNet{IP: net.ParseIP("2001:db8::"), Mask: net.CIDRMask(32, 128)}
)

func reserved(ip net.IP) bool { return reservedV4.Contains(ip) || reservedV6.Contains(ip) }

// ClientTLS builds the client TLS configuration from the etcd-client
// Secret's data and the CA bundle ConfigMap's data (caRef names it in
// errors). Every problem names its object and key.
func ClientTLS(secret, caData map[string][]byte, caRef Ref) (*tls.Config, error) {
	var errs []error
	cert, key := secret[CertKey], secret[KeyKey]
	if len(cert) == 0 {
		errs = append(errs, fmt.Errorf("%s: key %s is missing or empty", ClientCertRef, CertKey))
	}
	if len(key) == 0 {
		errs = append(errs, fmt.Errorf("%s: key %s is missing or empty", ClientCertRef, KeyKey))
	}
	var pair tls.Certificate
	if len(cert) > 0 && len(key) > 0 {
		var err error
		if pair, err = tls.X509KeyPair(cert, key); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s and %s: %w", ClientCertRef, CertKey, KeyKey, err))
		}
	}
	pool := x509.NewCertPool()
	if bundle := caData[CABundleKey]; len(bundle) == 0 {
		errs = append(errs, fmt.Errorf("%s: key %s is missing or empty", caRef, CABundleKey))
	} else if !pool.AppendCertsFromPEM(bundle) {
		errs = append(errs, fmt.Errorf("%s: key %s holds no PEM certificate", caRef, CABundleKey))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// describeCert names the client certificate: serial and expiry.
func describeCert(c *tls.Config) string {
	leaf := c.Certificates[0].Leaf // parsed by tls.X509KeyPair
	if leaf == nil {
		return ""
	}
	return fmt.Sprintf("serial %x, valid until %s", leaf.SerialNumber, leaf.NotAfter.UTC().Format(time.RFC3339))
}

// State is what discovery is using: the configuration (nil: none) and the
// ordering it reports.
type State struct {
	Config   *Config
	Ordering node.EtcdOrdering
}

// Decide is what a read r changes: the next state, and whether the etcd
// client must be rebuilt (a new or changed configuration). A usable read
// replaces the configuration; a problem keeps a configuration found before
// (ordering stays on, ReasonStale) and otherwise turns ordering off; a read
// that failed for a passing fault changes nothing once a state is known.
func Decide(prev State, r Result) (next State, rebuild bool) {
	if c := r.Config; c != nil {
		msg := fmt.Sprintf("etcd at %s (from %s), with the client certificate of %s (%s) and the CA bundle of %s",
			strings.Join(c.Endpoints, ","), EndpointsRef, ClientCertRef, c.ClientCert, c.CA)
		if len(c.Skipped) > 0 {
			msg += "; skipped " + strings.Join(c.Skipped, "; ")
		}
		rebuild = prev.Config == nil || prev.Config.fingerprint != c.fingerprint
		return State{Config: c, Ordering: node.EtcdOrdering{On: true, Reason: node.EtcdOrderingDiscovered, Message: msg}}, rebuild
	}
	if r.Reason == ReasonUnreadable && prev.Ordering.Reason != "" {
		return prev, false
	}
	if prev.Config != nil {
		return State{Config: prev.Config, Ordering: node.EtcdOrdering{On: true, Reason: ReasonStale,
			Message: fmt.Sprintf("ordering goes on with etcd at %s as found before; the objects now: %s",
				strings.Join(prev.Config.Endpoints, ","), r.Message)}}, false
	}
	return State{Ordering: node.EtcdOrdering{Reason: r.Reason, Message: r.Message +
		"; the control plane rolls out without etcd leader ordering (like the MCO) until this is fixed or --etcd-endpoints is given"}}, false
}
