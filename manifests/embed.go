// Package manifests embeds tandem's own CRDs, so test control planes and
// the local runner install them without knowing the source tree (the
// openshift/api CRDs beside them are read from that module:
// test/framework/openshift_crds.go).
package manifests

import "embed"

// CRDs holds crds/tandem/*.yaml.
//
//go:embed crds
var CRDs embed.FS
