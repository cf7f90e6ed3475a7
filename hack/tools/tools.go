//go:build tools

// Package tools pins the test-only binaries that tandem's tests start:
// a real kube-apiserver, kube-controller-manager and kube-scheduler, etcd,
// kwok and controller-gen. They need k8s.io/kubernetes, which the main
// module must not depend on, hence this separate module.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
