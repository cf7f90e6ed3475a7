package daemon

import (
	"reflect"
	"testing"
)

// The first boot's plan, from the MCO's RunFirstbootCompleteMachineconfig
// (pkg/daemon/daemon.go, release-4.21): an old config holding the booted
// image and those running kernel arguments the new config names; no
// difference removes the file without a reboot; otherwise the OS changes
// (rebase, kernel arguments, extensions and kernel type), the on-disk
// currentconfig, the .bak rename and the reboot.
func TestFirstbootPlan(t *testing.T) {
	rt := Layering{Packages: []string{"kernel-rt-core"}, BaseRemovals: []string{"kernel"}}
	cfg := func(img string, kargs []string, l Layering) ConfigState {
		return ConfigState{Name: "x", Found: true, Image: img, KernelArgs: kargs, Layering: l, ExtensionsImage: "ext@sha256:e"}
	}
	booted := OSState{Booted: Deployment{Checksum: csA, Image: imgA}}
	tail := []Action{{Kind: ActFirstbootWriteFiles, Config: "x"}, {Kind: ActFirstbootStore, Config: "x"}}
	cases := []struct {
		name    string
		o       FirstbootObserved
		want    []Action
		wantErr bool
	}{
		{
			name: "the boot image is the config's and its kernel arguments run: nothing, no reboot",
			o:    FirstbootObserved{Config: cfg(imgA, []string{"quiet"}, Layering{}), OS: booted, Cmdline: []string{"root=/dev/vda", "quiet"}},
			want: []Action{{Kind: ActFirstbootNothing, Config: "x", Reason: "the node runs the config's OS image, kernel arguments and packages"}},
		},
		{
			name: "an older boot image: stage the config's, then store and reboot",
			o:    FirstbootObserved{Config: cfg(imgB, nil, Layering{}), OS: booted, Cmdline: []string{"quiet"}},
			want: append([]Action{{Kind: ActStage, Config: "x", Image: imgB}}, tail...),
		},
		{
			name: "kernel arguments the running kernel lacks are appended, repeats counted; others on the command line stay",
			o: FirstbootObserved{Config: cfg(imgA, []string{"hugepagesz=1G hugepages=16", "hugepagesz=2M hugepages=16"}, Layering{}), OS: booted,
				Cmdline: []string{"root=/dev/vda", "hugepages=16", "extra"}},
			want: append([]Action{{Kind: ActApplyKernelArgs, Config: "x", KernelArgsAppend: []string{"hugepagesz=1G", "hugepagesz=2M", "hugepages=16"}}}, tail...),
		},
		{
			name: "an unknown command line: every kernel argument is set",
			o:    FirstbootObserved{Config: cfg(imgA, []string{"nosmt"}, Layering{}), OS: booted},
			want: append([]Action{{Kind: ActApplyKernelArgs, Config: "x", KernelArgsAppend: []string{"nosmt"}}}, tail...),
		},
		{
			name: "a new image with the realtime kernel: staged with the extensions repository, then layered",
			o:    FirstbootObserved{Config: cfg(imgB, nil, rt), OS: booted},
			want: append([]Action{
				{Kind: ActStage, Config: "x", Image: imgB, ExtensionsImage: "ext@sha256:e"},
				{Kind: ActLayerPackages, Config: "x", Packages: &PackageChange{Install: []string{"kernel-rt-core"}, Remove: []string{"kernel"}},
					Reason: "install kernel-rt-core; override remove kernel", ExtensionsImage: "ext@sha256:e"},
			}, tail...),
		},
		{
			name: "the NIC pins --persist-nics staged are set again on the deployment the plan stages (the cleanup drops its own)",
			o: FirstbootObserved{Config: cfg(imgB, nil, Layering{}), Cmdline: []string{"rd.neednet=1"},
				NICKargs: []string{"ifname=ens3:52:54:00:0a:00:03", "ifname=ens4:52:54:00:0a:00:04"},
				OS:       OSState{Booted: booted.Booted, Staged: &Deployment{Checksum: csA, Image: imgA}}},
			want: append([]Action{
				{Kind: ActCleanupStaged, Config: "x", Reason: "staged deployment " + short(csA) + " (" + imgA + ") is left from an earlier attempt or --persist-nics"},
				{Kind: ActStage, Config: "x", Image: imgB},
				{Kind: ActApplyKernelArgs, Config: "x", KernelArgsAppend: []string{"ifname=ens3:52:54:00:0a:00:03", "ifname=ens4:52:54:00:0a:00:04"}},
			}, tail...),
		},
		{
			name: "NIC pins the kernel runs or the config names are not repeated",
			o: FirstbootObserved{Config: cfg(imgA, []string{"ifname=ens4:52:54:00:0a:00:04"}, Layering{}), OS: booted,
				Cmdline:  []string{"ifname=ens3:52:54:00:0a:00:03"},
				NICKargs: []string{"ifname=ens3:52:54:00:0a:00:03", "ifname=ens4:52:54:00:0a:00:04"}},
			want: append([]Action{{Kind: ActApplyKernelArgs, Config: "x", KernelArgsAppend: []string{"ifname=ens4:52:54:00:0a:00:04"}}}, tail...),
		},
		{
			name: "a deployment an earlier attempt staged goes first",
			o: FirstbootObserved{Config: cfg(imgB, nil, Layering{}),
				OS: OSState{Booted: booted.Booted, Staged: &Deployment{Checksum: csB, Image: imgB, FinalizationLocked: true}}},
			want: append([]Action{
				{Kind: ActCleanupStaged, Config: "x", Reason: "staged deployment b0b0b0b0b0b0 (" + imgB + ") is left from an earlier attempt or --persist-nics"},
				{Kind: ActStage, Config: "x", Image: imgB},
			}, tail...),
		},
		{
			name:    "a config that cannot be applied is an error",
			o:       FirstbootObserved{Config: ConfigState{Name: "x", Found: true, Image: imgB, Invalid: "kernelType=foo is invalid"}, OS: booted},
			wantErr: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FirstbootPlan(c.o)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("plan:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestFirstbootReboot(t *testing.T) {
	booted := Deployment{Checksum: csA, Image: imgA}
	cases := []struct {
		name string
		os   OSState
		want Action
	}{
		{"the plan's locked deployment is finalized", OSState{Booted: booted, Staged: &Deployment{Checksum: csB, FinalizationLocked: true}},
			Action{Kind: ActFinalize, Config: "x", Checksum: csB}},
		{"an unlocked one boots with any reboot", OSState{Booted: booted, Staged: &Deployment{Checksum: csA}},
			Action{Kind: ActReboot, Config: "x", Reason: "Completing firstboot provisioning to x"}},
		{"nothing staged: a plain reboot", OSState{Booted: booted},
			Action{Kind: ActReboot, Config: "x", Reason: "Completing firstboot provisioning to x"}},
	}
	for _, c := range cases {
		if got := FirstbootReboot("x", c.os); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
