// Package manifests embeds the CRDs tandem needs in a cluster: the vendored
// openshift/api machineconfiguration CRDs and tandem's own, so test control
// planes and the local runner install them without knowing the source tree.
package manifests

import "embed"

// CRDs holds crds/openshift/*.yaml and crds/tandem/*.yaml.
//
//go:embed crds
var CRDs embed.FS
