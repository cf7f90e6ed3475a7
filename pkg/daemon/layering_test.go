package daemon

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// The MCO's packages (openshift/machine-config-operator release-4.20 at
// afed09939d80, pkg/daemon/update.go getKernelPackagesForRelease and
// pkg/controller/common/helpers.go SupportedExtensions), written out again
// as the oracle of these tests.
var (
	mcoDefaultKernel = []string{"kernel", "kernel-core", "kernel-modules", "kernel-modules-core", "kernel-modules-extra"}
	mcoRealtime      = []string{"kernel-rt-core", "kernel-rt-kvm", "kernel-rt-modules", "kernel-rt-modules-extra"} // sorted
	mcoRealtimeUSB   = []string{"kernel-rt-core", "kernel-rt-kvm", "kernel-rt-modules", "kernel-rt-modules-extra", "usbguard"}
)

func TestConfigLayering(t *testing.T) {
	tests := []struct {
		name       string
		kernelType string
		extensions []string
		arch       string
		want       Layering
		err        string
	}{
		{"nothing", "", nil, "amd64", Layering{}, ""},
		{"default kernel", "default", nil, "amd64", Layering{}, ""},
		{"realtime", "realtime", nil, "amd64", Layering{Packages: mcoRealtime, BaseRemovals: mcoDefaultKernel}, ""},
		{"realtime and usbguard", "realtime", []string{"usbguard"}, "amd64", Layering{Packages: mcoRealtimeUSB, BaseRemovals: mcoDefaultKernel}, ""},
		{"64k-pages on aarch64", "64k-pages", nil, "arm64", Layering{
			Packages:     []string{"kernel-64k-core", "kernel-64k-modules", "kernel-64k-modules-core", "kernel-64k-modules-extra"},
			BaseRemovals: mcoDefaultKernel}, ""},
		{"extensions with several packages, once each", "", []string{"two-node-ha", "ipsec", "kerberos", "ipsec"}, "amd64", Layering{
			Packages: []string{"NetworkManager-libreswan", "fence-agents-all", "krb5-workstation", "libkadm5", "libreswan", "pacemaker", "pcs"}}, ""},
		{"kernel-devel on the default kernel", "", []string{"kernel-devel"}, "amd64", Layering{Packages: []string{"kernel-devel", "kernel-headers"}}, ""},
		{"64k-pages elsewhere", "64k-pages", nil, "amd64", Layering{}, "64k-pages is only supported for aarch64 architecture"},
		{"unknown extension", "", []string{"usbguard", "frobnicator"}, "amd64", Layering{}, "invalid extensions found: [frobnicator]"},
		{"kernel-devel with realtime", "realtime", []string{"kernel-devel"}, "amd64", Layering{}, "installing kernel-devel extension is not supported with kernelType: realtime"},
		{"unknown kernel type", "lowlatency", nil, "amd64", Layering{}, "kernelType=lowlatency is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigLayering(tt.kernelType, tt.extensions, tt.arch)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v %v, want %+v", got, err, tt.want)
			}
		})
	}
}

func TestLayeringChange(t *testing.T) {
	rt := Layering{Packages: mcoRealtimeUSB, BaseRemovals: mcoDefaultKernel}
	tests := []struct {
		name               string
		packages, removals []string
		want               Layering
		change             PackageChange
	}{
		{"plain to realtime and usbguard", nil, nil, rt, PackageChange{Install: mcoRealtimeUSB, Remove: mcoDefaultKernel}},
		{"already there", mcoRealtimeUSB, mcoDefaultKernel, rt, PackageChange{}},
		{"back to default: reset and uninstall", mcoRealtimeUSB, mcoDefaultKernel, Layering{},
			PackageChange{Uninstall: mcoRealtimeUSB, Reset: mcoDefaultKernel}},
		{"an admin's own packages and overrides stay", []string{"strace", "usbguard"}, []string{"moby-engine"}, Layering{},
			PackageChange{Uninstall: []string{"usbguard"}}},
		{"one extension for another", []string{"usbguard"}, nil, Layering{Packages: []string{"sysstat"}},
			PackageChange{Install: []string{"sysstat"}, Uninstall: []string{"usbguard"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LayeringChange(tt.packages, tt.removals, tt.want); !reflect.DeepEqual(got, tt.change) {
				t.Errorf("got %+v, want %+v", got, tt.change)
			}
		})
	}
}

const extImg = "registry.test/extensions@sha256:eeee"

// rtConfigs adds config "rt" (image A, realtime, usbguard), "rtb" (the same
// on image B) and "plain" (image B, default kernel), all with an extensions
// image.
func rtConfigs(o *Observed) {
	rt := Layering{Packages: mcoRealtimeUSB, BaseRemovals: mcoDefaultKernel}
	o.Configs["rt"] = ConfigState{Name: "rt", Found: true, Image: imgA, KernelArgs: []string{"quiet"}, Layering: rt, ExtensionsImage: extImg}
	o.Configs["rtb"] = ConfigState{Name: "rtb", Found: true, Image: imgB, KernelArgs: []string{"quiet"}, Layering: rt, ExtensionsImage: extImg}
	o.Configs["plain"] = ConfigState{Name: "plain", Found: true, Image: imgB, KernelArgs: []string{"quiet"}, ExtensionsImage: extImg}
}

// realtime makes a deployment request and carry the realtime kernel and usbguard.
func realtime(d *Deployment) {
	d.Packages, d.BaseRemovals = mcoRealtimeUSB, mcoDefaultKernel
	d.InstalledPackages, d.RemovedPackages = mcoRealtimeUSB, mcoDefaultKernel
}

func granted(cfg string) func(*NodeState) {
	return func(n *NodeState) {
		n.Desired, n.Staged, n.State = cfg, cfg, working
		n.DesiredDrain, n.LastAppliedDrain = "drain-"+cfg, "drain-"+cfg
	}
}

func TestNextLayering(t *testing.T) {
	recRT := Record{Config: "rt", FromConfig: "a", TargetImage: imgA, BootID: boot}
	recRTB := Record{Config: "rtb", FromConfig: "rt", OSChange: true, TargetImage: imgB, TargetChecksum: csB, BootID: boot}
	recPlain := Record{Config: "plain", FromConfig: "rtb", OSChange: true, TargetImage: imgB, TargetChecksum: csB, BootID: boot}
	layeredOnA := func(locked bool) func(*Observed) {
		return func(o *Observed) {
			d := Deployment{Checksum: csA, Image: imgA, FinalizationLocked: locked}
			realtime(&d)
			o.OS.Staged = &d
		}
	}
	rtChange := &PackageChange{Install: mcoRealtimeUSB, Remove: mcoDefaultKernel}
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		{"kernel type change: nothing to stage, reported ready", world(rtConfigs, node(func(n *NodeState) { n.Desired = "rt" })),
			Action{Kind: ActReportStaged, Config: "rt"}},
		{"kernel type change: the ordinary reboot path", world(rtConfigs, node(func(n *NodeState) { n.Desired, n.Staged = "rt", "rt" })),
			Action{Kind: ActRequestDrain, Config: "rt", From: "a", Working: true}},
		{"a known diff with only the kernel type still reboots", world(rtConfigs, node(func(n *NodeState) { n.Desired, n.Staged = "rt", "rt" }),
			func(o *Observed) {
				o.Diff, o.Policies = &mcfg.Diff{KernelType: true, Extensions: true}, DefaultClusterPolicies()
			}),
			Action{Kind: ActRequestDrain, Config: "rt", From: "a", Working: true}},
		{"drained: the files are written first", world(rtConfigs, node(granted("rt"))),
			Action{Kind: ActWriteFiles, Config: "rt", From: "a", Image: imgA}},
		{"files written: layered onto a new deployment of the booted commit", world(rtConfigs, node(granted("rt")), record(withPhase(recRT, PhaseFilesWritten))),
			Action{Kind: ActLayerPackages, Config: "rt", Packages: rtChange, ExtensionsImage: extImg, Reason: rtChange.String()}},
		{"layered and locked: kubelet stops", world(rtConfigs, node(granted("rt")), layeredOnA(true), record(withPhase(recRT, PhaseKernelArgs))),
			Action{Kind: ActStopKubelet, Config: "rt"}},
		{"killed mid-layering, half done: the rest", world(rtConfigs, node(granted("rt")), record(withPhase(recRT, PhaseFilesWritten)), func(o *Observed) {
			o.OS.Staged = &Deployment{Checksum: csA, Image: imgA, FinalizationLocked: true, Packages: mcoRealtime, BaseRemovals: mcoDefaultKernel}
		}), Action{Kind: ActLayerPackages, Config: "rt", Packages: &PackageChange{Install: []string{"usbguard"}}, ExtensionsImage: extImg,
			Reason: "install usbguard"}},
		{"another OS staged meanwhile: it goes before anything is layered", world(rtConfigs, node(granted("rt")), stagedB(true), record(withPhase(recRT, PhaseFilesWritten))),
			Action{Kind: ActCleanupStaged, Config: "rt", Reason: "staged deployment b0b0b0b0b0b0 (" + imgB + ") is not this update's"}},
		{"kubelet stopped: the layered deployment is finalized", world(rtConfigs, node(granted("rt")), layeredOnA(true), record(withPhase(recRT, PhaseKubeletStopped))),
			Action{Kind: ActFinalize, Config: "rt", Checksum: csA}},
		{"after the reboot: layered, verified", world(rtConfigs, node(granted("rt")), record(withPhase(recRT, PhaseRebooting)), func(o *Observed) {
			o.BootID = boot2
			realtime(&o.OS.Booted)
		}), Action{Kind: ActVerify, Config: "rt"}},
		{"a power loss lost the layered deployment: roll back and do it again", world(rtConfigs, node(granted("rt")), record(withPhase(recRT, PhaseRebooting)),
			func(o *Observed) { o.BootID = boot2 }),
			rollback("the node booted without the kernel type and extensions of rt (still to install kernel-rt-core kernel-rt-kvm kernel-rt-modules kernel-rt-modules-extra usbguard; override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra)")},
		{"OS change: the stage carries the booted layering, nothing to add", world(rtConfigs, node(granted("rtb")), record(withPhase(recRTB, PhaseKernelArgs)), func(o *Observed) {
			o.Node.Current = "rt"
			realtime(&o.OS.Booted)
			d := Deployment{Checksum: csB, Image: imgB, FinalizationLocked: true}
			realtime(&d)
			o.OS.Staged = &d
		}), Action{Kind: ActStopKubelet, Config: "rtb"}},
		{"back to the default kernel: reset and uninstall, no repository needed", world(rtConfigs, node(granted("plain")), record(withPhase(recPlain, PhaseKernelArgs)), func(o *Observed) {
			o.Node.Current = "rtb"
			d := Deployment{Checksum: csB, Image: imgB, FinalizationLocked: true}
			realtime(&d)
			o.OS.Staged = &d
		}), Action{Kind: ActLayerPackages, Config: "plain", Packages: &PackageChange{Uninstall: mcoRealtimeUSB, Reset: mcoDefaultKernel},
			Reason: (&PackageChange{Uninstall: mcoRealtimeUSB, Reset: mcoDefaultKernel}).String()}},
		{"stage for a node with layered packages: the repository too", world(rtConfigs, node(func(n *NodeState) { n.Current, n.Desired, n.Stage = "rt", "rt", "plain" }),
			func(o *Observed) { realtime(&o.OS.Booted) }),
			Action{Kind: ActStage, Config: "plain", Image: imgB, ExtensionsImage: extImg}},
		{"stage without layering anywhere: no repository", world(rtConfigs, node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"grant withdrawn after layering: roll back, then the locked layered deployment goes", world(rtConfigs,
			node(func(n *NodeState) { n.Desired, n.State = "a", working }), layeredOnA(true), record(withPhase(recRT, PhaseKernelArgs))),
			rollback(`desiredConfig changed to "a" before the reboot`)},
		{"bad kernel type or extension: Unreconcilable, nothing touched", world(node(func(n *NodeState) { n.Desired = "ext" }), func(o *Observed) {
			o.Configs["ext"] = ConfigState{Name: "ext", Found: true, Image: imgA, Invalid: "invalid extensions found: [frobnicator]"}
		}), Action{Kind: ActReportUnreconcilable, Reason: "MachineConfig ext cannot be applied: invalid extensions found: [frobnicator]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Next(tt.obs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Next:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLayeringProblem(t *testing.T) {
	if _, bad := layeringProblem("rendered-worker-x", "realtime", nil, "", "amd64"); !strings.Contains(bad, "names none (spec.baseOSExtensionsContainerImage)") {
		t.Errorf("realtime without an extensions image: %q", bad)
	}
	if _, bad := layeringProblem("x", mcfg.KernelTypeDefault, nil, "", "amd64"); bad != "" {
		t.Errorf("default kernel without an extensions image: %q", bad)
	}
	if l, bad := layeringProblem("x", "realtime", []string{"usbguard"}, extImg, "amd64"); bad != "" || l.Empty() {
		t.Errorf("realtime with an image: %+v %q", l, bad)
	}
}
