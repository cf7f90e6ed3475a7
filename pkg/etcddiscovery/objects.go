package etcddiscovery

// The objects' namespaces, names and keys, as openshift/cluster-etcd-operator
// (release-4.21) writes them and openshift/cluster-kube-apiserver-operator
// (release-4.21) reads them.
const (
	// EndpointsNamespace and EndpointsName: the etcd-endpoints ConfigMap,
	// written by the etcd operator's EtcdEndpointsController
	// (pkg/operator/etcdendpointscontroller/etcdendpointscontroller.go,
	// syncConfigMap: data[fmt.Sprintf("%x", member.ID)] = the IP of the
	// member's first peer URL; learners and "etcd-bootstrap" left out) in its
	// target namespace (pkg/operator/operatorclient/interfaces.go). The
	// kube-apiserver's etcd-servers come from it (library-go
	// pkg/operator/configobserver/etcd/observe_etcd_endpoints.go, used by
	// cluster-kube-apiserver-operator
	// pkg/operator/configobservation/etcdendpoints/observe_etcd_endpoints.go).
	EndpointsNamespace = "openshift-etcd"
	EndpointsName      = "etcd-endpoints"
	// BootstrapIPAnnotation on etcd-endpoints holds the bootstrap member's IP
	// while it is a member; the etcd operator renames the key (a trailing
	// "-") once bootstrap is done (etcdendpointscontroller.go; the key is
	// pkg/etcdcli/etcdcli.go BootstrapIPAnnotationKey).
	BootstrapIPAnnotation = "alpha.installer.openshift.io/etcd-bootstrap"
	// ClientPort is the port of every member's client URL: the etcd
	// operator's own client and the kube-apiserver's observer both build
	// https://IP:2379 (pkg/etcdcli/etcdcli.go endpoints; library-go
	// observe_etcd_endpoints.go).
	ClientPort = "2379"

	// ConfigNamespace is openshift-config, where the etcd operator publishes
	// its client certificate and CA bundle for other components
	// (pkg/operator/resourcesynccontroller/resourcesynccontroller.go:
	// openshift-etcd/etcd-client -> openshift-config/etcd-client,
	// openshift-etcd/etcd-ca-bundle -> openshift-config/etcd-ca-bundle and
	// -> openshift-config/etcd-serving-ca).
	ConfigNamespace = "openshift-config"
	// ClientCertName: the Secret with the etcd client certificate; the
	// kube-apiserver operator copies it for the kube-apiserver's
	// --etcd-certfile/--etcd-keyfile (its
	// pkg/operator/resourcesynccontroller/resourcesynccontroller.go and
	// bindata/assets/config/defaultconfig.yaml: secrets/etcd-client/tls.crt,
	// tls.key). Its certificate is the etcd signer's "etcd-client" (Groups
	// system:etcd, etcd-client; cluster-etcd-operator pkg/tlshelpers/tlshelpers.go).
	ClientCertName = "etcd-client"
	CertKey        = "tls.crt"
	KeyKey         = "tls.key"
	// CABundleName is the CA bundle's current name; ServingCAName the older
	// one that "escaped to almost all control plane operators" and is kept
	// in sync with it (resourcesynccontroller.go); the kube-apiserver reads
	// configmaps/etcd-serving-ca/ca-bundle.crt (defaultconfig.yaml). Either
	// serves; the current name is read first.
	CABundleName  = "etcd-ca-bundle"
	ServingCAName = "etcd-serving-ca"
	CABundleKey   = "ca-bundle.crt"
)

// Ref names one object: kind, namespace and name.
type Ref struct{ Kind, Namespace, Name string }

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// The objects discovery reads.
var (
	EndpointsRef  = Ref{"ConfigMap", EndpointsNamespace, EndpointsName}
	ClientCertRef = Ref{"Secret", ConfigNamespace, ClientCertName}
	CABundleRef   = Ref{"ConfigMap", ConfigNamespace, CABundleName}
	ServingCARef  = Ref{"ConfigMap", ConfigNamespace, ServingCAName}
)
