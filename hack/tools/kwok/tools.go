//go:build tools

// Package kwok pins the kwok binary in its own module: kwok v0.7.0 needs
// k8s.io/apimachinery v0.33, while the kube-apiserver module is on v0.34.
package kwok

import _ "sigs.k8s.io/kwok/cmd/kwok"
