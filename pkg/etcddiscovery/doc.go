// Package etcddiscovery finds the control plane's etcd on an OpenShift
// cluster from the cluster's own objects, as OpenShift's components that
// talk to etcd do, so that tandem's controller orders the control plane's
// disruptions by etcd leadership with no flags: the MCO's operator starts it
// with only its own arguments (manifests/machineconfigcontroller/deployment.yaml
// of openshift/machine-config-operator, release-4.21).
//
// The objects (see objects.go for each one's source):
//
//   - ConfigMap openshift-etcd/etcd-endpoints: one data entry per voting
//     member, its ID in hex -> its IP; the annotation
//     alpha.installer.openshift.io/etcd-bootstrap carries the bootstrap
//     member's IP while it exists. Each IP is a client URL https://IP:2379.
//   - Secret openshift-config/etcd-client: the etcd client certificate
//     (tls.crt, tls.key) the kube-apiserver uses.
//   - ConfigMap openshift-config/etcd-ca-bundle, or its older name
//     etcd-serving-ca: the CA bundle (ca-bundle.crt) that verifies etcd's
//     serving certificates.
//
// Reading them is I/O (Source); judging what was read (Resolve) and what to
// do about it (Decide) are pure functions with table tests.
//
// The policy: objects missing, unreadable (forbidden) or malformed before any
// usable configuration was found mean no leader ordering, said in the
// control-plane pool's EtcdLeaderOrdering condition, an event, a log line and
// tandem_mcc_etcd_leader_ordering; the pool then rolls out like the MCO's. Once
// a usable configuration was found, a later problem with the objects keeps it
// (ordering stays on, the condition warns): a protection is never dropped
// because an object went bad. A configuration that parses but does not reach
// etcd (a wrong CA, an expired certificate, etcd down) is not this package's
// to judge: the planner holds the control plane's disruptions while etcd is
// unreachable (DisruptionHeld EtcdUnreachable, with the TLS error), as it
// does with flags, since that cannot be told apart from an etcd in trouble.
package etcddiscovery
