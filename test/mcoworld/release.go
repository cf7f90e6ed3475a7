package mcoworld

import (
	"crypto/sha256"
	"fmt"
)

// imageTags are the MCO image's image-references tags its manifests name
// (install/image-references at the pinned commit).
var imageTags = []string{
	"machine-config-operator", "pod", "oauth-proxy", "kube-rbac-proxy", "rhel-coreos", "rhel-coreos-extensions",
	"rhel10-coreos", "rhel10-coreos-extensions", "keepalived-ipfailover", "coredns", "haproxy-router",
	"baremetal-runtimecfg", "docker-registry",
}

// NewRelease is release version with a digest pull spec for every image
// the MCO's manifests name, in registry; os and extensions, when given,
// are the OS images nodes are to run (rhel-coreos, rhel-coreos-extensions).
func NewRelease(version, registry, os, extensions string) Release {
	r := Release{Version: version, Images: map[string]string{}, Image: digestRef(registry, "release", version)}
	for _, tag := range imageTags {
		r.Images[tag] = digestRef(registry, tag, version)
	}
	if os != "" {
		r.Images["rhel-coreos"] = os
	}
	if extensions != "" {
		r.Images["rhel-coreos-extensions"] = extensions
	}
	return r
}

// digestRef is a by-digest pull spec that names the image and version:
// never pulled, only rendered (the world's kubelets are kwok's).
func digestRef(registry, name, version string) string {
	return fmt.Sprintf("%s/%s@sha256:%x", registry, name, sha256.Sum256([]byte(name+"@"+version)))
}
