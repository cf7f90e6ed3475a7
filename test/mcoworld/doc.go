// Package mcoworld is an OpenShift cluster as far as the MCO's own operator
// can tell: a real kube-apiserver with OpenShift's config API (the CRDs and
// the singletons an installed cluster has), a stand-in for the CVO that
// applies the MCO image's /manifests of a release, and a stand-in for the
// kubelet that runs, as host processes, the containers of the pods kwok only
// pretends to run (the operator, tandem's controller, each node's daemon),
// with the command lines and environment of those pods as the operator
// deployed them. The few test-only additions to those command lines are in
// additions.go, and nowhere else.
//
// It needs the fork build (hack/mco/build.sh, make test-mco): the operator
// and every other binary come from it, and the CVO's manifests from the MCO
// source it was built from.
package mcoworld
