// Package templates holds the files tandem lays on nodes. The drop-ins of
// rpm-ostreed.service.d are laid by the daemon itself, at runtime, under
// /run/systemd/system (pkg/iso.LayUnitDropIns); see docs/vm-node.md for why
// they do not travel in the rendered MachineConfig.
package templates

import "embed"

// FS is the templates directory.
//
//go:embed rpm-ostreed.service.d/*.conf udev/*.rules
var FS embed.FS

// Drop-in file names in rpm-ostreed.service.d.
const (
	// StagingIODropIn is laid for every policy: CPU and I/O priority of
	// rpm-ostreed.
	StagingIODropIn = "10-tandem-staging-io.conf"
	// IdleDropIn is laid for the "idle" and "idle-bfq" policies only.
	IdleDropIn = "20-tandem-staging-io-idle.conf"
)
