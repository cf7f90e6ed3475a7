package daemon

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// kernelType and extensions: the packages a config layers onto the OS with
// rpm-ostree, as the MCO does (openshift/machine-config-operator, release-4.20
// at afed09939d80: pkg/daemon/update.go switchKernel,
// getKernelPackagesForRelease, queueRevertKernelSwap, generateExtensionsArgs,
// applyExtensions; pkg/controller/common/helpers.go SupportedExtensions,
// GetPackagesForSupportedKernelType, validateExtensions).
//
// A kernel type other than default overrides the default kernel packages
// away and installs its own (`rpm-ostree override remove <default>
// --install <kernel-rt-*>`); going back resets the overrides and uninstalls
// them. Each extension installs its packages. Only what the MCO manages is
// touched: extension packages and kernel-rt-*/kernel-64k-* among the
// layered packages, and kernel/kernel-* among the base removals, so packages
// an admin layered by hand stay.
//
// tandem layers onto the staged, finalization-locked deployment after the
// grant, after the kernel arguments and before kubelet stops; the change is
// derived from what `rpm-ostree status` shows the pending deployment
// requesting, so a crash only repeats the step that remains. After the boot
// the booted deployment must request (and rpm-ostree must have layered) the
// packages, or the update rolls back and starts again.

// ActLayerPackages layers the config's kernel type and extensions onto the
// pending deployment (Packages; ExtensionsImage provides the repository).
const ActLayerPackages ActionKind = "LayerPackages"

// kernelTypePackages are the packages of each kernel type. The realtime
// list leaves out the kernel-rt meta-package on purpose, and carries
// kernel-rt-kvm, which RHEL 10 no longer ships (the MCO drops it there;
// tandem does not tell RHEL releases apart).
var kernelTypePackages = map[string][]string{
	mcfg.KernelTypeDefault:  {"kernel", "kernel-core", "kernel-modules", "kernel-modules-core", "kernel-modules-extra"},
	mcfg.KernelTypeRealtime: {"kernel-rt-core", "kernel-rt-modules", "kernel-rt-modules-extra", "kernel-rt-kvm"},
	mcfg.KernelType64kPages: {"kernel-64k-core", "kernel-64k-modules", "kernel-64k-modules-core", "kernel-64k-modules-extra"},
}

// supportedExtensions are the extensions a MachineConfig may name and their packages.
var supportedExtensions = map[string][]string{
	"two-node-ha":          {"pacemaker", "pcs", "fence-agents-all"},
	"wasm":                 {"crun-wasm"},
	"ipsec":                {"NetworkManager-libreswan", "libreswan"},
	"usbguard":             {"usbguard"},
	"kerberos":             {"krb5-workstation", "libkadm5"},
	"kernel-devel":         {"kernel-devel", "kernel-headers"},
	"sandboxed-containers": {"kata-containers"},
	"sysstat":              {"sysstat"},
}

// Layering is what a config asks rpm-ostree to layer.
type Layering struct {
	// Packages to request (the kernel type's, then the extensions'),
	// BaseRemovals base packages to override away; both sorted, no
	// duplicates.
	Packages     []string `json:"packages,omitempty"`
	BaseRemovals []string `json:"baseRemovals,omitempty"`
}

// Empty tells whether the config layers nothing.
func (l Layering) Empty() bool { return len(l.Packages) == 0 && len(l.BaseRemovals) == 0 }

// ConfigLayering returns the layering of a config's kernelType and
// extensions on a node of architecture goarch (runtime.GOARCH), or why it
// cannot be applied there.
func ConfigLayering(kernelType string, extensions []string, goarch string) (Layering, error) {
	kt := kernelType
	if kt == "" {
		kt = mcfg.KernelTypeDefault
	}
	if _, ok := kernelTypePackages[kt]; !ok {
		return Layering{}, fmt.Errorf("kernelType=%s is invalid", kernelType)
	}
	var invalid []string
	for _, e := range extensions {
		if _, ok := supportedExtensions[e]; !ok {
			invalid = append(invalid, e)
		}
	}
	if len(invalid) > 0 {
		return Layering{}, fmt.Errorf("invalid extensions found: %v", invalid)
	}
	if kt != mcfg.KernelTypeDefault && slices.Contains(extensions, "kernel-devel") {
		return Layering{}, fmt.Errorf("installing kernel-devel extension is not supported with kernelType: %s", kt)
	}
	if kt == mcfg.KernelType64kPages && goarch != "arm64" {
		return Layering{}, fmt.Errorf("64k-pages is only supported for aarch64 architecture")
	}
	var l Layering
	if kt != mcfg.KernelTypeDefault {
		l.BaseRemovals = slices.Clone(kernelTypePackages[mcfg.KernelTypeDefault])
		l.Packages = slices.Clone(kernelTypePackages[kt])
	}
	for _, e := range extensions {
		l.Packages = append(l.Packages, supportedExtensions[e]...)
	}
	l.Packages, l.BaseRemovals = sortedSet(l.Packages), sortedSet(l.BaseRemovals)
	return l, nil
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	sort.Strings(out)
	return slices.Compact(out)
}

// managedPackage tells whether a layered package is the MCO's to remove:
// an extension's, or a kernel-rt/kernel-64k one (queueRevertKernelSwap).
func managedPackage(p string) bool {
	if strings.HasPrefix(p, "kernel-rt-") || strings.HasPrefix(p, "kernel-64k-") {
		return true
	}
	for _, pkgs := range supportedExtensions {
		if slices.Contains(pkgs, p) {
			return true
		}
	}
	return false
}

// managedRemoval tells whether a base removal is the MCO's to reset.
func managedRemoval(p string) bool { return p == "kernel" || strings.HasPrefix(p, "kernel-") }

// PackageChange is a layering change of a deployment.
type PackageChange struct {
	// Install and Uninstall are requested packages to add and drop;
	// Remove and Reset base removals to add and drop.
	Install   []string `json:"install,omitempty"`
	Uninstall []string `json:"uninstall,omitempty"`
	Remove    []string `json:"remove,omitempty"`
	Reset     []string `json:"reset,omitempty"`
}

// Empty tells whether nothing changes.
func (c PackageChange) Empty() bool {
	return len(c.Install)+len(c.Uninstall)+len(c.Remove)+len(c.Reset) == 0
}

func (c PackageChange) String() string {
	var parts []string
	for _, p := range []struct {
		what string
		pkgs []string
	}{{"install", c.Install}, {"uninstall", c.Uninstall}, {"override remove", c.Remove}, {"override reset", c.Reset}} {
		if len(p.pkgs) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.pkgs, " "))
		}
	}
	return strings.Join(parts, "; ")
}

// LayeringChange is what takes a deployment that requests packages and
// removals to want, touching only what the MCO manages.
func LayeringChange(packages, removals []string, want Layering) PackageChange {
	var c PackageChange
	for _, p := range want.Packages {
		if !slices.Contains(packages, p) {
			c.Install = append(c.Install, p)
		}
	}
	for _, p := range sortedSet(packages) {
		if managedPackage(p) && !slices.Contains(want.Packages, p) {
			c.Uninstall = append(c.Uninstall, p)
		}
	}
	for _, p := range want.BaseRemovals {
		if !slices.Contains(removals, p) {
			c.Remove = append(c.Remove, p)
		}
	}
	for _, p := range sortedSet(removals) {
		if managedRemoval(p) && !slices.Contains(want.BaseRemovals, p) {
			c.Reset = append(c.Reset, p)
		}
	}
	return c
}

// pending is the deployment that boots next: the staged one, else the booted.
func (o Observed) pending() Deployment {
	if o.OS.Staged != nil {
		return *o.OS.Staged
	}
	return o.OS.Booted
}

// layerStep is the layering still needed for the update recorded in r
// (nextUpdateRecord, same boot, before kubelet stops), ok=false when the
// pending deployment already requests what the config asks. A config that
// is not found any more is not acted on: its layering is not known.
func layerStep(o Observed, r *Record) (Action, bool) {
	c, ok := o.Configs[r.Config]
	if !ok || !c.Found {
		return Action{}, false
	}
	p := o.pending()
	if st := o.OS.Staged; st != nil && !r.OSChange && st.Checksum != o.OS.Booted.Checksum {
		// Someone else's deployment (another OS) is staged: layering onto
		// it would boot that OS. It goes first; then the booted one is the
		// base (an OS change's own staged deployment was checked before).
		if ch := LayeringChange(o.OS.Booted.Packages, o.OS.Booted.BaseRemovals, c.Layering); ch.Empty() {
			return Action{}, false
		}
		return Action{Kind: ActCleanupStaged, Config: r.Config,
			Reason: fmt.Sprintf("staged deployment %s (%s) is not this update's", short(st.Checksum), st.Image)}, true
	}
	ch := LayeringChange(p.Packages, p.BaseRemovals, c.Layering)
	if ch.Empty() {
		return Action{}, false
	}
	a := Action{Kind: ActLayerPackages, Config: r.Config, Packages: &ch, Reason: ch.String()}
	if len(ch.Install) > 0 {
		a.ExtensionsImage = c.ExtensionsImage
	}
	return a, true
}

// lostLayering tells, after the reboot of an update, whether the booted
// deployment differs from the config's layering: a package it neither
// layered nor requests (a request the base satisfies counts), a managed one
// it still has, a base package it still has or one it should have back.
// "" when it matches, or the config is not known.
func lostLayering(o Observed, r *Record) string {
	c, ok := o.Configs[r.Config]
	if !ok || !c.Found {
		return ""
	}
	b := o.OS.Booted
	have := append(slices.Clone(b.InstalledPackages), b.Packages...)
	removed := append(slices.Clone(b.RemovedPackages), b.BaseRemovals...)
	ch := LayeringChange(have, removed, c.Layering)
	if ch.Empty() {
		return ""
	}
	return fmt.Sprintf("the node booted without the kernel type and extensions of %s (still to %s)", r.Config, ch)
}

// stageRepo is the extensions image to provide while staging c: the MCO
// sets up the repository for every OS update of a node that has or gets
// extensions or another kernel type (the packages are layered again on the
// new base, OCPBUGS-2269); "" when none is needed or known.
func stageRepo(o Observed, c ConfigState) string {
	cur := o.Configs[o.Node.Current]
	if c.ExtensionsImage == "" || (c.Layering.Empty() && cur.Layering.Empty() && len(o.OS.Booted.Packages) == 0) {
		return ""
	}
	return c.ExtensionsImage
}

// layeringProblem says why a config's kernelType and extensions cannot be
// applied on a node of goarch, "" when they can: the MCO's validation, and
// an extensions image to install from when it installs packages.
func layeringProblem(name, kernelType string, extensions []string, extensionsImage, goarch string) (Layering, string) {
	l, err := ConfigLayering(kernelType, extensions, goarch)
	if err != nil {
		return Layering{}, err.Error()
	}
	if len(l.Packages) > 0 && extensionsImage == "" {
		return l, fmt.Sprintf("kernelType %s and extensions %v need packages from the extensions image, and MachineConfig %s names none (spec.baseOSExtensionsContainerImage)",
			orDefault(kernelType), extensions, name)
	}
	return l, ""
}

func orDefault(kt string) string {
	if kt == "" {
		return mcfg.KernelTypeDefault
	}
	return kt
}
