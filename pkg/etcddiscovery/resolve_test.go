package etcddiscovery

import (
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	testpki "github.com/tandem-mco/tandem/test/pki"
)

// pki is a CA and a client certificate it signed, as PEM.
type pki struct{ caPEM, certPEM, keyPEM []byte }

// newPKI makes what the etcd operator's signer makes: a CA, and a client
// certificate CN=etcd-client, O=system:etcd,etcd-client (cluster-etcd-operator
// release-4.21 pkg/tlshelpers/tlshelpers.go).
func newPKI(t *testing.T) pki {
	t.Helper()
	ca, err := testpki.NewCA("etcd-signer")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ca.Issue(testpki.Leaf{CommonName: "etcd-client", Organization: []string{"system:etcd", "etcd-client"}, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	return pki{caPEM: ca.CertPEM, certPEM: c.CertPEM, keyPEM: c.KeyPEM}
}

func bytesOf(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

// The etcd-endpoints ConfigMap as the etcd operator writes it (member ID in
// hex -> IP of its first peer URL; etcdendpointscontroller.go, release-4.21),
// judged by the kube-apiserver observer's rules (library-go
// observe_etcd_endpoints.go): the URLs are what the kube-apiserver's
// etcd-servers would be, without its added localhost.
func TestEndpointURLs(t *testing.T) {
	for _, tc := range []struct {
		name        string
		data        map[string]string
		annotations map[string]string
		want        []string
		skipped     int
		err         string
	}{
		{name: "three members",
			data: map[string]string{"3a5fd43e2b6c11f8": "10.0.0.5", "8f2a7e16b0d94c21": "10.0.0.7", "c41e9b0a5d3f7e62": "10.0.0.6"},
			want: []string{"https://10.0.0.5:2379", "https://10.0.0.6:2379", "https://10.0.0.7:2379"}},
		{name: "bootstrap member still there",
			data:        map[string]string{"3a5fd43e2b6c11f8": "10.0.0.5"},
			annotations: map[string]string{BootstrapIPAnnotation: "10.0.0.4"},
			want:        []string{"https://10.0.0.4:2379", "https://10.0.0.5:2379"}},
		{name: "bootstrap done: the renamed annotation is not read",
			data:        map[string]string{"3a5fd43e2b6c11f8": "10.0.0.5"},
			annotations: map[string]string{BootstrapIPAnnotation + "-": "10.0.0.4"},
			want:        []string{"https://10.0.0.5:2379"}},
		{name: "IPv6 in brackets, canonical form",
			data: map[string]string{"3a5fd43e2b6c11f8": "fd2e:6f44:5dd8:c956:0:0:0:14", "8f2a7e16b0d94c21": "fd2e:6f44:5dd8:c956::15"},
			want: []string{"https://[fd2e:6f44:5dd8:c956::14]:2379", "https://[fd2e:6f44:5dd8:c956::15]:2379"}},
		{name: "the operator's fallback from the nodes: node names as keys",
			data: map[string]string{"master-0": "10.0.0.1", "master-1": "10.0.0.2", "master-2": "10.0.0.3"},
			want: []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"}},
		{name: "one IP under two keys counts once",
			data: map[string]string{"master-0": "10.0.0.1", "3a5fd43e2b6c11f8": "10.0.0.1"},
			want: []string{"https://10.0.0.1:2379"}},
		{name: "a hostname and a reserved placeholder are skipped, the rest used",
			data: map[string]string{"3a5fd43e2b6c11f8": "10.0.0.5", "8f2a7e16b0d94c21": "etcd-1.example.com", "c41e9b0a5d3f7e62": "192.0.2.7"},
			want: []string{"https://10.0.0.5:2379"}, skipped: 2},
		{name: "nothing usable", data: map[string]string{"8f2a7e16b0d94c21": "etcd-1.example.com", "x": "2001:db8::1"},
			skipped: 2, err: `ConfigMap openshift-etcd/etcd-endpoints: no etcd member address (key "8f2a7e16b0d94c21": "etcd-1.example.com" is not an IP address; key "x": 2001:db8::1 is a reserved documentation address)`},
		{name: "empty", data: map[string]string{}, err: "ConfigMap openshift-etcd/etcd-endpoints: no etcd member address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			urls, skipped, err := EndpointURLs(Object{Found: true, Data: bytesOf(tc.data), Annotations: tc.annotations})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(urls, tc.want) {
				t.Errorf("urls = %v, want %v", urls, tc.want)
			}
			if len(skipped) != tc.skipped {
				t.Errorf("skipped = %q, want %d entries", skipped, tc.skipped)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	p, other := newPKI(t), newPKI(t)
	endpoints := Object{Found: true, Data: bytesOf(map[string]string{"3a5fd43e2b6c11f8": "10.0.0.5", "8f2a7e16b0d94c21": "10.0.0.6"})}
	client := Object{Found: true, Data: map[string][]byte{CertKey: p.certPEM, KeyKey: p.keyPEM}}
	ca := Object{Found: true, Data: map[string][]byte{CABundleKey: p.caPEM}}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, ClientCertName, errors.New("RBAC: no rule"))
	for _, tc := range []struct {
		name     string
		objs     Objects
		reason   string // "" when usable
		contains string
		caFrom   Ref
	}{
		{name: "every object, current CA name", objs: Objects{Endpoints: endpoints, ClientCert: client, CABundle: ca}, caFrom: CABundleRef},
		{name: "only the older CA name", objs: Objects{Endpoints: endpoints, ClientCert: client, ServingCA: ca}, caFrom: ServingCARef},
		{name: "both CA names: the current one is read", objs: Objects{Endpoints: endpoints, ClientCert: client, CABundle: ca,
			ServingCA: Object{Found: true, Data: map[string][]byte{CABundleKey: []byte("garbage")}}}, caFrom: CABundleRef},
		{name: "not OpenShift: nothing there", objs: Objects{}, reason: ReasonNotFound,
			contains: "ConfigMap openshift-etcd/etcd-endpoints not found; Secret openshift-config/etcd-client not found; ConfigMap openshift-config/etcd-ca-bundle (nor ConfigMap openshift-config/etcd-serving-ca) not found"},
		{name: "no CA bundle under either name", objs: Objects{Endpoints: endpoints, ClientCert: client}, reason: ReasonNotFound,
			contains: "etcd-ca-bundle (nor ConfigMap openshift-config/etcd-serving-ca) not found"},
		{name: "forbidden wins over missing", objs: Objects{ClientCert: Object{Err: forbidden}}, reason: ReasonForbidden,
			contains: "not allowed to read Secret openshift-config/etcd-client"},
		{name: "the apiserver did not answer", objs: Objects{Endpoints: endpoints, ClientCert: Object{Err: errors.New("connection refused")}, CABundle: ca},
			reason: ReasonUnreadable, contains: "reading Secret openshift-config/etcd-client: connection refused"},
		{name: "certificate and key of different pairs", objs: Objects{Endpoints: endpoints, CABundle: ca,
			ClientCert: Object{Found: true, Data: map[string][]byte{CertKey: p.certPEM, KeyKey: other.keyPEM}}},
			reason: ReasonInvalid, contains: "Secret openshift-config/etcd-client: tls.crt and tls.key: tls: private key does not match public key"},
		{name: "key missing", objs: Objects{Endpoints: endpoints, CABundle: ca, ClientCert: Object{Found: true, Data: map[string][]byte{CertKey: p.certPEM}}},
			reason: ReasonInvalid, contains: "Secret openshift-config/etcd-client: key tls.key is missing or empty"},
		{name: "CA bundle without a certificate", objs: Objects{Endpoints: endpoints, ClientCert: client,
			CABundle: Object{Found: true, Data: map[string][]byte{CABundleKey: []byte("not pem")}}},
			reason: ReasonInvalid, contains: "ConfigMap openshift-config/etcd-ca-bundle: key ca-bundle.crt holds no PEM certificate"},
		{name: "no member address", objs: Objects{Endpoints: Object{Found: true, Data: bytesOf(map[string]string{"a": "etcd-0"})}, ClientCert: client, CABundle: ca},
			reason: ReasonInvalid, contains: "no etcd member address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Resolve(tc.objs)
			if tc.reason == "" {
				if r.Config == nil {
					t.Fatalf("no config: %s: %s", r.Reason, r.Message)
				}
				if r.Config.CA != tc.caFrom {
					t.Errorf("CA from %s, want %s", r.Config.CA, tc.caFrom)
				}
				if len(r.Config.TLS.Certificates) != 1 || r.Config.TLS.RootCAs == nil {
					t.Errorf("TLS config lacks the client certificate or the CA pool")
				}
				if !strings.HasPrefix(r.Config.ClientCert, "serial ") {
					t.Errorf("client certificate described as %q", r.Config.ClientCert)
				}
				if !slices.Equal(r.Config.Endpoints, []string{"https://10.0.0.5:2379", "https://10.0.0.6:2379"}) {
					t.Errorf("endpoints = %v", r.Config.Endpoints)
				}
				return
			}
			if r.Config != nil || r.Reason != tc.reason || !strings.Contains(r.Message, tc.contains) {
				t.Fatalf("got config=%v reason=%s message=%q; want reason %s containing %q", r.Config != nil, r.Reason, r.Message, tc.reason, tc.contains)
			}
		})
	}
}

// Decide's policy (doc.go): never drop ordering because the objects went
// bad once it is on; rebuild the client only when the content changed.
func TestDecide(t *testing.T) {
	p, rotated := newPKI(t), newPKI(t)
	objs := func(k pki, ips ...string) Objects {
		data := map[string]string{}
		for i, ip := range ips {
			data[string(rune('a'+i))] = ip
		}
		return Objects{Endpoints: Object{Found: true, Data: bytesOf(data)},
			ClientCert: Object{Found: true, Data: map[string][]byte{CertKey: k.certPEM, KeyKey: k.keyPEM}},
			CABundle:   Object{Found: true, Data: map[string][]byte{CABundleKey: k.caPEM}}}
	}
	good := Resolve(objs(p, "10.0.0.5", "10.0.0.6", "10.0.0.7"))
	missing := Resolve(Objects{})
	invalid := Resolve(objs(p, "etcd-0"))
	unreadable := Result{Reason: ReasonUnreadable, Message: "reading ...: timeout"}
	start := New(nil, Options{}).state

	type step struct {
		read    Result
		on      bool
		reason  string
		rebuild bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"found at start", []step{{good, true, node.EtcdOrderingDiscovered, true}}},
		{"the same objects again: no new client", []step{{good, true, node.EtcdOrderingDiscovered, true}, {Resolve(objs(p, "10.0.0.7", "10.0.0.6", "10.0.0.5")), true, node.EtcdOrderingDiscovered, false}}},
		{"a member replaced: new client", []step{{good, true, node.EtcdOrderingDiscovered, true}, {Resolve(objs(p, "10.0.0.5", "10.0.0.6", "10.0.0.8")), true, node.EtcdOrderingDiscovered, true}}},
		{"certificates rotated: new client", []step{{good, true, node.EtcdOrderingDiscovered, true}, {Resolve(objs(rotated, "10.0.0.5", "10.0.0.6", "10.0.0.7")), true, node.EtcdOrderingDiscovered, true}}},
		{"not OpenShift: off", []step{{missing, false, ReasonNotFound, false}}},
		{"malformed at start: off", []step{{invalid, false, ReasonInvalid, false}}},
		{"apiserver down at start: off until read", []step{{unreadable, false, ReasonUnreadable, false}, {good, true, node.EtcdOrderingDiscovered, true}}},
		{"objects appear later: on", []step{{missing, false, ReasonNotFound, false}, {good, true, node.EtcdOrderingDiscovered, true}}},
		{"objects deleted later: stays on, warns", []step{{good, true, node.EtcdOrderingDiscovered, true}, {missing, true, ReasonStale, false}, {good, true, node.EtcdOrderingDiscovered, false}}},
		{"objects broken later: stays on, warns", []step{{good, true, node.EtcdOrderingDiscovered, true}, {invalid, true, ReasonStale, false}}},
		{"a passing fault changes nothing", []step{{good, true, node.EtcdOrderingDiscovered, true}, {unreadable, true, node.EtcdOrderingDiscovered, false}}},
		{"a passing fault while off keeps off's reason", []step{{missing, false, ReasonNotFound, false}, {unreadable, false, ReasonNotFound, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := start
			for i, s := range tc.steps {
				var rebuild bool
				st, rebuild = Decide(st, s.read)
				if st.Ordering.On != s.on || st.Ordering.Reason != s.reason || rebuild != s.rebuild {
					t.Fatalf("step %d: on=%v reason=%s rebuild=%v (%s); want on=%v reason=%s rebuild=%v",
						i, st.Ordering.On, st.Ordering.Reason, rebuild, st.Ordering.Message, s.on, s.reason, s.rebuild)
				}
				if st.Ordering.On != (st.Config != nil) {
					t.Fatalf("step %d: ordering on=%v with config %v", i, st.Ordering.On, st.Config != nil)
				}
			}
		})
	}
}
