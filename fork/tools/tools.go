//go:build tools

// Package tools pins the MCO's own binaries that the MCO image carries
// unchanged (cmd/machine-config-operator, -server, machine-os-builder,
// apiserver-watcher) and the stock daemon and controller the takeover test
// runs, so `go mod tidy` keeps their dependencies in this module.
package tools

import (
	_ "github.com/openshift/machine-config-operator/cmd/apiserver-watcher"
	_ "github.com/openshift/machine-config-operator/cmd/machine-config-controller"
	_ "github.com/openshift/machine-config-operator/cmd/machine-config-daemon"
	_ "github.com/openshift/machine-config-operator/cmd/machine-config-operator"
	_ "github.com/openshift/machine-config-operator/cmd/machine-config-server"
	_ "github.com/openshift/machine-config-operator/cmd/machine-os-builder"
	_ "github.com/tandem-mco/tandem/cmd/machine-config-daemon"
)
