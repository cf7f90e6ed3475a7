package daemon

import (
	"strings"

	opv1 "github.com/openshift/api/operator/v1"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// Observed is everything Next needs to pick the daemon's next step. It is
// read fresh on every turn of the loop from durable sources only (the Node
// object, `rpm-ostree status`, the on-disk record and the current boot), so
// the same function picks the right step after a kill -9 or a reboot.
type Observed struct {
	Node NodeState
	OS   OSState
	// BootID identifies the running boot; a different value than the one in
	// the record means the machine rebooted since the record was written.
	BootID string
	// Record is the on-disk record of an update in progress, nil when none.
	Record *Record
	// Configs holds the rendered MachineConfigs named by the node's
	// currentConfig, desiredConfig and stageConfig annotations, by name.
	Configs map[string]ConfigState
	// Diff is what changes from currentConfig to desiredConfig, nil when it
	// is not known (no grant, a config missing or unparsable): the change is
	// then applied with a reboot.
	Diff *mcfg.Diff
	// Policies are the cluster's node disruption policies (MachineConfiguration
	// cluster, or the MCO's built-in defaults without one).
	Policies opv1.NodeDisruptionPolicyClusterStatus
	// ForceFile is set while /run/machine-config-daemon-force exists: the
	// next update reboots whatever it changes, as with the MCO.
	ForceFile bool
	// OnDiskConfig names the config in /etc/machine-config-daemon/currentconfig,
	// "" when the file is absent; the MCO treats it as the truth over the
	// currentConfig annotation. OnDiskConfigValid is false when the files of
	// that config do not match the disk (empty reason when they do).
	OnDiskConfig        string
	OnDiskConfigInvalid string
	// Cmdline is the running kernel's command line split into arguments
	// (/proc/cmdline); nil when the daemon was not given one to read, and
	// then kernel arguments are not checked.
	Cmdline []string
	// OnDisk is the comparison of the files and units on disk with
	// currentConfig, made at daemon start and after every reboot while no
	// update is in progress (and again while it fails).
	OnDisk OnDiskCheck
	// InitialAnnotations are the annotations in node-annotations.json,
	// which the machine-config-server lays on a new node; nil when the
	// file is absent. While it is there the node is bootstrapping (the
	// MCO's getStateAndConfigs).
	InitialAnnotations map[string]string
	// Order is the daemon's configured update order (--update-order), not
	// an observation: it is carried here so that Next stays a pure function
	// of its one input. The zero value is OrderStaged.
	Order UpdateOrder
}

// NodeState is the part of the Node object the protocol uses: the
// annotations of pkg/constants and whether the node is cordoned.
type NodeState struct {
	Current          string
	Desired          string
	Stage            string
	Staged           string
	State            string
	Reason           string
	DesiredDrain     string
	LastAppliedDrain string
	RebootRequest    string
	LastReboot       string
	Unschedulable    bool
	// StageFailure is the config whose background stage failed (the
	// stageFailure annotation), "" when none is reported.
	StageFailure string
}

// OSState is what rpm-ostree reports about the deployments.
type OSState struct {
	Booted Deployment
	// Staged is the staged (pending) deployment, nil when there is none.
	Staged *Deployment
	// Rollback is the deployment a rollback would boot, nil when none. After
	// an update's reboot it tells a boot that fell back (the finalized
	// deployment is there, not booted) from one that never applied it.
	Rollback *Deployment
}

// Deployment is one rpm-ostree deployment as the decision sees it.
type Deployment struct {
	Checksum string
	// Image is the container image reference the deployment came from,
	// normalised by NormalizeImage (no ostree transport prefix).
	Image string
	// FinalizationLocked is true while a staged deployment waits for
	// `rpm-ostree finalize-deployment`.
	FinalizationLocked bool
	// Packages and BaseRemovals are what its origin requests
	// (requested-packages, requested-base-removals: what the next
	// deployment made from it layers); InstalledPackages and
	// RemovedPackages what its commit layered and removed (packages, the
	// names of base-removals). See layering.go.
	Packages          []string
	BaseRemovals      []string
	InstalledPackages []string
	RemovedPackages   []string
}

// ConfigState is what the decision needs to know about one rendered
// MachineConfig. The adapter fills it after parsing and validating it.
type ConfigState struct {
	Name string
	// Found is false when the apiserver has no MachineConfig of that name.
	Found bool
	// Image is the MachineConfig's osImageURL, normalised; empty means "keep
	// the booted OS".
	Image string
	// KernelArgs are the MachineConfig's kernel arguments.
	KernelArgs []string
	// Layering is what its kernelType and extensions layer (layering.go);
	// ExtensionsImage its baseOSExtensionsContainerImage, the repository
	// of the packages.
	Layering        Layering
	ExtensionsImage string
	// Invalid, when not empty, says why the config cannot be applied in place
	// (bad Ignition, unsupported sections, undecodable file contents...).
	Invalid string
}

// ostree transports that may prefix an image reference in rpm-ostree status.
var imageTransports = []string{
	"ostree-unverified-registry:",
	"ostree-unverified-image:docker://",
	"ostree-unverified-image:registry:",
	// The MCO rebases nodes updated from local storage to
	// ostree-unverified-image:containers-storage:<RepoDigest>
	// (pkg/daemon/rpm-ostree.go, release-4.20).
	"ostree-unverified-image:containers-storage:",
	"ostree-image-signed:docker://",
	"ostree-remote-registry:",
	"ostree-remote-image:",
	"docker://",
	"registry:",
}

// NormalizeImage strips an ostree container transport prefix (and, for
// remote-signed references, the remote name) so a MachineConfig's
// osImageURL compares equal to rpm-ostree's container-image-reference.
func NormalizeImage(ref string) string {
	for _, p := range imageTransports {
		if rest, ok := strings.CutPrefix(ref, p); ok {
			if p == "ostree-remote-registry:" || p == "ostree-remote-image:" {
				// ostree-remote-registry:<remote>:<image>
				if _, img, ok := strings.Cut(rest, ":"); ok {
					rest = strings.TrimPrefix(img, "docker://")
				}
			}
			return rest
		}
	}
	return ref
}
