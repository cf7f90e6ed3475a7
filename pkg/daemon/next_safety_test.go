package daemon

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Tests of the safety rules Next keeps besides the update flow: no reboot
// boots an OS nobody granted (hole (a) of issue 16), a lost kernel argument
// change is not reported Done (hole (c)), and a node whose disk drifted from
// currentConfig is Degraded, as the MCO's on-disk validation has it.

func unlockedB(o *Observed) { stagedB(false)(o) }

// kargsOnly adds config "k": image A (no OS change) with one more kernel
// argument than "a", and "a2": "a" without "quiet".
func kargsOnly(o *Observed) {
	o.Configs["k"] = ConfigState{Name: "k", Found: true, Image: imgA, KernelArgs: []string{"quiet", "nosmt"}}
	o.Configs["h"] = ConfigState{Name: "h", Found: true, Image: imgA, KernelArgs: []string{"quiet", "hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=16"}}
	o.Configs["a2"] = ConfigState{Name: "a2", Found: true, Image: imgA}
}

func cmdline(args ...string) func(*Observed) {
	return func(o *Observed) { o.Cmdline = append([]string{"rw", "root=LABEL=root"}, args...) }
}

func filesDrift(cfg, drift string) func(*Observed) {
	return func(o *Observed) { o.OnDisk = OnDiskCheck{Config: cfg, Drift: drift} }
}

const driftA = "unexpected on-disk state validating against a: "

func TestNextSafety(t *testing.T) {
	recK := Record{Config: "k", FromConfig: "a", TargetImage: imgA, BootID: boot, Phase: PhaseRebooting,
		BootKernelArgs: []string{"rw", "root=LABEL=root", "quiet"}}
	recA2 := Record{Config: "a2", FromConfig: "a", TargetImage: imgA, BootID: boot, Phase: PhaseRebooting,
		BootKernelArgs: []string{"rw", "root=LABEL=root", "quiet"}}
	recH := Record{Config: "h", FromConfig: "a", TargetImage: imgA, BootID: boot, Phase: PhaseRebooting,
		BootKernelArgs: []string{"rw", "root=LABEL=root", "quiet"}}
	recHNoBoot := recH
	recHNoBoot.BootKernelArgs = nil
	rebooted := func(o *Observed) { o.BootID = boot2 }
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		// (a) An ungranted OS must not boot with a requested reboot.
		{"a: idle, unlocked staged deployment is discarded before the reboot request", world(unlockedB, node(func(n *NodeState) { n.RebootRequest = "r1" })),
			Action{Kind: ActCleanupStaged, Reason: "no config asks for the staged deployment"}},
		{"a: idle, locked staged deployment is discarded before the reboot request", world(stagedB(true), node(func(n *NodeState) { n.RebootRequest = "r1" })),
			Action{Kind: ActCleanupStaged, Reason: "no config asks for the staged deployment"}},
		{"a: stage, unlocked staged deployment is discarded before the reboot request", world(unlockedB, node(func(n *NodeState) { n.Stage, n.RebootRequest = "b", "r1" })),
			Action{Kind: ActCleanupStaged, Reason: "unlocked staged deployment b0b0b0b0b0b0 (" + imgB + ") would boot with the requested reboot"}},
		{"a: stage, a locked staged deployment does not boot, the reboot is served", world(stagedB(true), node(func(n *NodeState) { n.Stage, n.RebootRequest = "b", "r1" })),
			Action{Kind: ActServeRebootRequest, Token: "r1"}},
		{"a: reboot record, unlocked staged deployment appeared: discarded before the reboot", world(unlockedB, node(func(n *NodeState) { n.RebootRequest = "r1" }),
			record(Record{Kind: RecordReboot, RebootToken: "r1", BootID: boot, Phase: PhaseRebooting})),
			Action{Kind: ActCleanupStaged, Reason: "unlocked staged deployment b0b0b0b0b0b0 (" + imgB + ") would boot with the requested reboot"}},
		{"a: update record, a foreign unlocked staged deployment is discarded before the reboot", world(node(func(n *NodeState) { n.Desired = "c" }),
			unlockedB, record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseKubeletStopped})),
			Action{Kind: ActCleanupStaged, Config: "c", Reason: "staged deployment b0b0b0b0b0b0 (" + imgB + ") is not this update's"}},
		{"a: update record, a foreign locked staged deployment is not finalized", world(node(func(n *NodeState) { n.Desired = "c" }),
			stagedB(true), record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseRebooting})),
			Action{Kind: ActCleanupStaged, Config: "c", Reason: "staged deployment b0b0b0b0b0b0 (" + imgB + ") is not this update's"}},

		// (c) A kernel-argument change lost to a power loss is applied again.
		{"c: kargs-only update, power loss past Rebooting, argument missing: roll back and retry", world(kargsOnly, cmdline("quiet"),
			node(func(n *NodeState) { n.Desired = "k" }), record(recK), rebooted),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of k (missing [nosmt])"}},
		{"c: kargs-only update booted with the argument: verify", world(kargsOnly, cmdline("quiet", "nosmt"),
			node(func(n *NodeState) { n.Desired = "k" }), record(recK), rebooted),
			Action{Kind: ActVerify, Config: "k"}},
		{"c: kargs deletion lost: roll back and retry", world(kargsOnly, cmdline("quiet"),
			node(func(n *NodeState) { n.Desired = "a2" }), record(recA2), rebooted),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of a2 (still has [quiet])"}},
		{"c: kargs deletion took: verify", world(kargsOnly, cmdline(),
			node(func(n *NodeState) { n.Desired = "a2" }), record(recA2), rebooted),
			Action{Kind: ActVerify, Config: "a2"}},
		{"c: OS and kargs update booted the OS but not the argument: roll back", world(cmdline("quiet"), node(grantedB),
			record(withPhase(recB, PhaseRebooting)), func(o *Observed) {
				o.BootID, o.OS.Booted = boot2, Deployment{Checksum: csB, Image: imgB}
			}),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of b (missing [nosmt])"}},
		// Repeated arguments are counted: a second hugepages=16 lost (what
		// --append-if-missing does) is a lost change, found by presence
		// alone it would not be.
		{"c: repeated argument lost: roll back and retry", world(kargsOnly, cmdline("quiet", "hugepagesz=1G", "hugepages=16", "hugepagesz=2M"),
			node(func(n *NodeState) { n.Desired = "h" }), record(recH), rebooted),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of h (missing [hugepages=16])"}},
		{"c: repeated arguments all there: verify", world(kargsOnly, cmdline("quiet", "hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"),
			node(func(n *NodeState) { n.Desired = "h" }), record(recH), rebooted),
			Action{Kind: ActVerify, Config: "h"}},
		{"c: an argument the base also carries is counted with it", world(kargsOnly, cmdline("hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"),
			node(func(n *NodeState) { n.Desired = "h" }), record(recH), rebooted),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of h (missing [quiet])"}},
		{"c: repeated argument lost, no boot record: still counted", world(kargsOnly, cmdline("quiet", "hugepagesz=1G", "hugepages=16", "hugepagesz=2M"),
			node(func(n *NodeState) { n.Desired = "h" }), record(recHNoBoot), rebooted),
			Action{Kind: ActRollbackFiles, Reason: "the node booted without the kernel arguments of h (missing [hugepages=16])"}},
		{"c: command line unknown: verify as before", world(kargsOnly, node(func(n *NodeState) { n.Desired = "k" }), record(recK), rebooted),
			Action{Kind: ActVerify, Config: "k"}},

		// On-disk validation against currentConfig.
		{"disk: runs its config", world(cmdline("quiet"), filesDrift("a", "")),
			Action{Kind: ActWait, Reason: "node runs a"}},
		{"disk: booted another OS", world(cmdline("quiet"), func(o *Observed) { o.OS.Booted = Deployment{Checksum: csB, Image: imgB} }),
			Action{Kind: ActReportDegraded, Reason: driftA + fmt.Sprintf("expected target osImageURL %q, have %q", imgA, imgB)}},
		{"disk: kernel argument missing", world(cmdline()),
			Action{Kind: ActReportDegraded, Reason: driftA + "missing expected kernel arguments: [quiet]"}},
		{"disk: a file differs", world(cmdline("quiet"), filesDrift("a", "/etc/x has mode 600, want 644")),
			Action{Kind: ActReportDegraded, Reason: driftA + "/etc/x has mode 600, want 644"}},
		{"disk: every problem is named", world(cmdline(), filesDrift("a", "/etc/x: no such file"), func(o *Observed) { o.OS.Booted.Image = imgB }),
			Action{Kind: ActReportDegraded, Reason: driftA + fmt.Sprintf("expected target osImageURL %q, have %q; ", imgA, imgB) +
				"missing expected kernel arguments: [quiet]; /etc/x: no such file"}},
		{"disk: drift already reported waits", world(cmdline(), node(func(n *NodeState) {
			n.State, n.Reason = constants.MachineConfigDaemonStateDegraded, driftA+"missing expected kernel arguments: [quiet]"
		})), Action{Kind: ActWait, Reason: "Degraded: " + driftA + "missing expected kernel arguments: [quiet]"}},
		{"disk: drift repaired clears Degraded", world(cmdline("quiet"), filesDrift("a", ""), node(func(n *NodeState) {
			n.State, n.Reason = constants.MachineConfigDaemonStateDegraded, driftA+"/etc/x: no such file"
		})), Action{Kind: ActSetDone, Config: "a"}},
		{"disk: a comparison with another config is not about currentConfig", world(cmdline("quiet"), filesDrift("b", "/etc/x: no such file")),
			Action{Kind: ActWait, Reason: "node runs a"}},
		{"disk: no update onto a drifted node", world(cmdline(), node(func(n *NodeState) { n.Desired = "b" })),
			Action{Kind: ActReportDegraded, Reason: driftA + "missing expected kernel arguments: [quiet]"}},
		{"disk: no staging on a drifted node", world(cmdline(), node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActReportDegraded, Reason: driftA + "missing expected kernel arguments: [quiet]"}},
		{"disk: a drifted node still serves a reboot request", world(cmdline(), node(func(n *NodeState) { n.RebootRequest = "r1" })),
			Action{Kind: ActServeRebootRequest, Token: "r1"}},
		{"disk: an update in progress is judged by its record", world(cmdline(), node(grantedB), record(withPhase(recB, PhaseVerified)),
			func(o *Observed) { o.BootID, o.OS.Booted = boot2, Deployment{Checksum: csB, Image: imgB} }),
			Action{Kind: ActRequestUncordon, Config: "b"}},
		{"disk: a missing currentConfig is not validated", world(cmdline(), node(func(n *NodeState) { n.Current, n.Desired = "gone", "gone" })),
			Action{Kind: ActWait, Reason: "node runs gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Next(tt.obs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

// TestNextNeverBootsAnUngrantedOS walks node states, staged deployments and
// records, and checks hole (a)'s rule on every answer: a step that reboots
// (ServeRebootRequest, Reboot, Finalize) never runs while an unlocked staged
// deployment exists that the update being applied did not stage, and a
// Finalize only ever names the update's own deployment.
func TestNextNeverBootsAnUngrantedOS(t *testing.T) {
	stagings := map[string]func(*Observed){
		"none":     func(*Observed) {},
		"locked":   stagedB(true),
		"unlocked": stagedB(false),
	}
	records := map[string]*Record{"none": nil,
		"reboot": {Kind: RecordReboot, RebootToken: "r1", BootID: boot, Phase: PhaseRebooting},
	}
	for _, p := range []Phase{PhaseFilesWritten, PhaseKernelArgs, PhaseKubeletStopped, PhaseRebooting} {
		rb := withPhase(recB, p)
		rb.Kind = RecordUpdate
		records["b-"+string(p)] = &rb
		rc := Record{Kind: RecordUpdate, Config: "c", FromConfig: "a", TargetImage: imgA, BootID: boot, Phase: p}
		records["c-"+string(p)] = &rc
	}
	checked, reboots := 0, 0
	for _, desired := range []string{"a", "b", "c"} {
		for _, stage := range []string{"", "b", "c"} {
			for _, req := range []string{"", "r1"} {
				for sname, st := range stagings {
					for rname, rec := range records {
						o := world(st, node(func(n *NodeState) {
							n.Desired, n.Stage, n.RebootRequest = desired, stage, req
							if desired != "a" {
								n.State, n.Staged = working, desired
								n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest(desired), constants.DrainRequest(desired)
							}
						}))
						if rec != nil {
							r := *rec
							o.Record = &r
						}
						a := Next(o)
						checked++
						s := o.OS.Staged
						ours := o.Record != nil && o.Record.Kind == RecordUpdate && s != nil &&
							((o.Record.OSChange && s.Checksum == o.Record.TargetChecksum) || (!o.Record.OSChange && s.Checksum == o.OS.Booted.Checksum))
						switch a.Kind {
						case ActServeRebootRequest, ActReboot, ActFinalize:
							reboots++
							if s != nil && !s.FinalizationLocked && !ours {
								t.Errorf("desired=%s stage=%s req=%q staged=%s record=%s: %v would boot the ungranted staged deployment", desired, stage, req, sname, rname, a)
							}
							if a.Kind == ActFinalize && !ours {
								t.Errorf("desired=%s stage=%s req=%q staged=%s record=%s: %v finalizes a deployment the update did not stage", desired, stage, req, sname, rname, a)
							}
						}
					}
				}
			}
		}
	}
	if reboots == 0 {
		t.Fatalf("none of %d states reboots: the walk does not reach the rule", checked)
	}
}

func TestSplitKernelArgs(t *testing.T) {
	got := SplitKernelArgs([]string{"a=1 b", ` c="x y" `, ""})
	if want := []string{"a=1", "b", `c="x y"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("SplitKernelArgs = %q, want %q", got, want)
	}
	if got := ParseCmdline("BOOT_IMAGE=/vmlinuz rw  quiet\n"); !reflect.DeepEqual(got, []string{"BOOT_IMAGE=/vmlinuz", "rw", "quiet"}) {
		t.Errorf("ParseCmdline = %q", got)
	}
	if got := ParseCmdline(""); got == nil || len(got) != 0 {
		t.Errorf("ParseCmdline of an empty line = %#v, want an empty, known command line", got)
	}
}
