package daemon

import (
	"reflect"
	"testing"

	"github.com/tandem-mco/tandem/pkg/constants"
)

const (
	imgA  = "registry.test/os@sha256:aaaa"
	imgB  = "registry.test/os@sha256:bbbb"
	csA   = "a0a0a0a0a0a0a0a0"
	csB   = "b0b0b0b0b0b0b0b0"
	boot  = "boot-1"
	boot2 = "boot-2"
)

var (
	done    = constants.MachineConfigDaemonStateDone
	working = constants.MachineConfigDaemonStateWorking
)

// world builds an Observed: a node running config "a" (image A) with
// config "b" (image B, extra kernel argument) and "c" (image A, files only)
// known to the apiserver.
func world(mut ...func(*Observed)) Observed {
	o := Observed{
		Node:   NodeState{Current: "a", Desired: "a", State: done},
		OS:     OSState{Booted: Deployment{Checksum: csA, Image: imgA}},
		BootID: boot,
		Configs: map[string]ConfigState{
			"a":   {Name: "a", Found: true, Image: imgA, KernelArgs: []string{"quiet"}},
			"b":   {Name: "b", Found: true, Image: imgB, KernelArgs: []string{"quiet", "nosmt"}},
			"c":   {Name: "c", Found: true, Image: imgA, KernelArgs: []string{"quiet"}},
			"bad": {Name: "bad", Found: true, Image: imgB, Invalid: "unsupported: storage.disks"},
		},
	}
	for _, m := range mut {
		m(&o)
	}
	return o
}

func stagedB(locked bool) func(*Observed) {
	return func(o *Observed) { o.OS.Staged = &Deployment{Checksum: csB, Image: imgB, FinalizationLocked: locked} }
}

func node(f func(*NodeState)) func(*Observed) { return func(o *Observed) { f(&o.Node) } }

func record(r Record) func(*Observed) {
	return func(o *Observed) {
		if r.Kind == "" {
			r.Kind = RecordUpdate
		}
		o.Record = &r
	}
}

// grantedB: desiredConfig=b, b staged and reported, Working, drained.
func grantedB(n *NodeState) {
	n.Desired, n.Stage, n.Staged, n.State = "b", "b", "b", working
	n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("b"), constants.DrainRequest("b")
}

var recB = Record{Config: "b", FromConfig: "a", OSChange: true, TargetImage: imgB, TargetChecksum: csB, BootID: boot}

func withPhase(r Record, p Phase) Record { r.Phase = p; return r }

func TestNext(t *testing.T) {
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		// Idle.
		{"idle: nothing to do", world(), Action{Kind: ActWait, Reason: "node runs a"}},
		{"idle: stale staged deployment is discarded", world(stagedB(true)),
			Action{Kind: ActCleanupStaged, Reason: "no config asks for the staged deployment"}},
		{"idle: fresh node without state reports Done", world(node(func(n *NodeState) { n.State = "" })),
			Action{Kind: ActSetDone, Config: "a"}},
		{"idle: cleared failure reports Done", world(node(func(n *NodeState) {
			n.State, n.Reason = constants.MachineConfigDaemonStateDegraded, "boom"
		})), Action{Kind: ActSetDone, Config: "a"}},
		{"idle: no currentConfig, nothing to report", world(node(func(n *NodeState) { *n = NodeState{} })),
			Action{Kind: ActWait, Reason: "node runs "}},
		{"idle: leftover drain after a withdrawn grant is undone", world(node(func(n *NodeState) {
			n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("b"), constants.DrainRequest("b")
		})), Action{Kind: ActRequestUncordon, Config: "a"}},
		{"idle: waits for the uncordon", world(node(func(n *NodeState) {
			n.DesiredDrain, n.LastAppliedDrain = constants.UncordonRequest("a"), constants.DrainRequest("b")
		})), Action{Kind: ActWait, Reason: "waiting for the drain controller (uncordon-a)"}},
		{"idle: reboot request is served", world(node(func(n *NodeState) { n.RebootRequest = "r1" })),
			Action{Kind: ActServeRebootRequest, Token: "r1"}},
		{"idle: served reboot request is ignored", world(node(func(n *NodeState) { n.RebootRequest, n.LastReboot = "r1", "r1" })),
			Action{Kind: ActWait, Reason: "node runs a"}},

		// Stage ahead of the grant.
		{"stage: OS change is staged", world(node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"stage: staged is reported", world(stagedB(true), node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActReportStaged, Config: "b"}},
		{"stage: staged and reported waits for the grant", world(stagedB(true), node(func(n *NodeState) { n.Stage, n.Staged = "b", "b" })),
			Action{Kind: ActWait, Reason: "b is staged; waiting for desiredConfig"}},
		{"stage: unlocked staged deployment is not trusted before the grant", world(stagedB(false), node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActCleanupStaged, Config: "b", Reason: "staged deployment is not finalization-locked"}},
		{"stage: other image staged is discarded", world(
			func(o *Observed) {
				o.OS.Staged = &Deployment{Checksum: "x", Image: "other@sha256:1", FinalizationLocked: true}
			},
			node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActCleanupStaged, Config: "b", Reason: "staged image other@sha256:1 is not " + imgB}},
		{"stage: config without OS change is reported staged at once", world(node(func(n *NodeState) { n.Stage = "c" })),
			Action{Kind: ActReportStaged, Config: "c"}},
		{"stage: a failed stage left Degraded; success clears it", world(stagedB(true), node(func(n *NodeState) {
			n.Stage, n.Staged, n.State, n.Reason = "b", "b", constants.MachineConfigDaemonStateDegraded, "pull failed"
		})), Action{Kind: ActSetDone, Config: "a"}},
		{"stage: Degraded from a failed pull retries the stage", world(node(func(n *NodeState) {
			n.Stage, n.State, n.Reason = "b", constants.MachineConfigDaemonStateDegraded, "pull failed"
		})), Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"stage: invalid config is Unreconcilable", world(node(func(n *NodeState) { n.Stage = "bad" })),
			Action{Kind: ActReportUnreconcilable, Reason: "MachineConfig bad cannot be applied: unsupported: storage.disks"}},
		{"stage: invalid config, already reported", world(node(func(n *NodeState) {
			n.Stage, n.State = "bad", constants.MachineConfigDaemonStateUnreconcilable
			n.Reason = "MachineConfig bad cannot be applied: unsupported: storage.disks"
		})), Action{Kind: ActWait, Reason: "Unreconcilable: MachineConfig bad cannot be applied: unsupported: storage.disks"}},
		{"stage: invalid config, staged deployment is cleaned first", world(stagedB(true), node(func(n *NodeState) { n.Stage = "bad" })),
			Action{Kind: ActCleanupStaged, Config: "bad", Reason: "config cannot be applied"}},
		{"stage: missing MachineConfig is Degraded", world(node(func(n *NodeState) { n.Stage = "nope" })),
			Action{Kind: ActReportDegraded, Reason: `MachineConfig "nope" named by the node's annotations does not exist`}},
		{"stage: reboot request is served before staging", world(node(func(n *NodeState) { n.Stage, n.RebootRequest = "b", "r1" })),
			Action{Kind: ActServeRebootRequest, Token: "r1"}},
		{"stage: leftover drain is undone first", world(node(func(n *NodeState) {
			n.Stage, n.DesiredDrain, n.LastAppliedDrain = "b", constants.DrainRequest("x"), constants.DrainRequest("x")
		})), Action{Kind: ActRequestUncordon, Config: "a"}},

		// Granted.
		{"granted: not staged yet stages first", world(node(func(n *NodeState) { n.Desired = "b" })),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"granted: staged, reports stagedConfig", world(stagedB(true), node(func(n *NodeState) { n.Desired = "b" })),
			Action{Kind: ActReportStaged, Config: "b"}},
		{"granted: state=Working and the drain request in one write", world(stagedB(true), node(func(n *NodeState) { n.Desired, n.Staged = "b", "b" })),
			Action{Kind: ActRequestDrain, Config: "b", From: "a", Working: true}},
		{"granted: drain requested, state not Working (an older daemon's request)", world(stagedB(true), node(func(n *NodeState) {
			n.Desired, n.Staged, n.DesiredDrain = "b", "b", constants.DrainRequest("b")
		})), Action{Kind: ActSetWorking, Config: "b", From: "a"}},
		{"granted: drain requested", world(stagedB(true), node(func(n *NodeState) { n.Desired, n.Staged, n.State = "b", "b", working })),
			Action{Kind: ActRequestDrain, Config: "b"}},
		{"granted: waits for the drain", world(stagedB(true), node(func(n *NodeState) {
			n.Desired, n.Staged, n.State, n.DesiredDrain = "b", "b", working, constants.DrainRequest("b")
		})), Action{Kind: ActWait, Reason: "waiting for the drain controller to drain the node (drain-b)"}},
		{"granted: drained, writes files", world(stagedB(true), node(grantedB)),
			Action{Kind: ActWriteFiles, Config: "b", From: "a", OSChange: true, Image: imgB, Checksum: csB}},
		{"granted: unlocked staged deployment is fine once granted", world(stagedB(false), node(grantedB)),
			Action{Kind: ActWriteFiles, Config: "b", From: "a", OSChange: true, Image: imgB, Checksum: csB}},
		{"granted: pending reboot request rides along", world(stagedB(true), node(grantedB), node(func(n *NodeState) { n.RebootRequest = "r7" })),
			Action{Kind: ActWriteFiles, Config: "b", From: "a", OSChange: true, Image: imgB, Checksum: csB, Token: "r7"}},
		{"granted: files-only config writes without staging", world(node(func(n *NodeState) {
			n.Desired, n.Staged, n.State = "c", "c", working
			n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("c"), constants.DrainRequest("c")
		})), Action{Kind: ActWriteFiles, Config: "c", From: "a", Image: imgA}},
		{"granted: files-only config discards a staged deployment", world(stagedB(true), node(func(n *NodeState) { n.Desired = "c" })),
			Action{Kind: ActCleanupStaged, Config: "c", Reason: "the config needs no OS change"}},
		{"granted: invalid config is Unreconcilable, nothing drained", world(node(func(n *NodeState) { n.Desired = "bad" })),
			Action{Kind: ActReportUnreconcilable, Reason: "MachineConfig bad cannot be applied: unsupported: storage.disks"}},
		{"granted: restage after a power loss rolled back", world(node(grantedB)),
			Action{Kind: ActStage, Config: "b", Image: imgB}},

		// Update record, same boot.
		{"record: interrupted write is rolled back", world(stagedB(true), node(grantedB), record(withPhase(recB, PhaseWriting))),
			Action{Kind: ActRollbackFiles, Reason: "the daemon stopped while writing files"}},
		{"record: files written, kernel args next", world(stagedB(true), node(grantedB), record(withPhase(recB, PhaseFilesWritten))),
			Action{Kind: ActApplyKernelArgs, Config: "b", From: "a", KernelArgsAppend: []string{"quiet", "nosmt"}, KernelArgsDelete: []string{"quiet"}}},
		{"record: files written, no kernel args change stops kubelet", world(node(func(n *NodeState) { n.Desired = "c" }),
			record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseFilesWritten})),
			Action{Kind: ActStopKubelet, Config: "c"}},
		{"record: kernel args applied, stop kubelet", world(stagedB(true), node(grantedB), record(withPhase(recB, PhaseKernelArgs))),
			Action{Kind: ActStopKubelet, Config: "b"}},
		{"record: kubelet stopped, finalize", world(stagedB(true), node(grantedB), record(withPhase(recB, PhaseKubeletStopped))),
			Action{Kind: ActFinalize, Config: "b", Checksum: csB}},
		{"record: kubelet stopped, unlocked staged deployment reboots", world(stagedB(false), node(grantedB), record(withPhase(recB, PhaseKubeletStopped))),
			Action{Kind: ActReboot, Config: "b"}},
		{"record: files-only update reboots", world(node(func(n *NodeState) { n.Desired = "c" }),
			record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseKubeletStopped})),
			Action{Kind: ActReboot, Config: "c"}},
		{"record: files-only update with kernel args finalizes the kargs deployment", world(node(func(n *NodeState) { n.Desired = "c" }),
			func(o *Observed) { o.OS.Staged = &Deployment{Checksum: csA, Image: imgA, FinalizationLocked: true} },
			record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseKubeletStopped})),
			Action{Kind: ActFinalize, Config: "c", Checksum: csA}},
		{"record: killed after finalize, still locked, finalize again", world(stagedB(true), node(grantedB), record(withPhase(recB, PhaseRebooting))),
			Action{Kind: ActFinalize, Config: "b", Checksum: csB}},
		{"record: killed after finalize, unlocked, ask for the reboot again", world(stagedB(false), node(grantedB), record(withPhase(recB, PhaseRebooting))),
			Action{Kind: ActReboot, Config: "b"}},
		{"record: grant withdrawn before the reboot rolls back", world(stagedB(true), node(grantedB), node(func(n *NodeState) { n.Desired = "a" }),
			record(withPhase(recB, PhaseFilesWritten))),
			Action{Kind: ActRollbackFiles, Reason: `desiredConfig changed to "a" before the reboot`}},
		{"record: grant withdrawn after finalize carries on", world(stagedB(false), node(grantedB), node(func(n *NodeState) { n.Desired = "a" }),
			record(withPhase(recB, PhaseRebooting))),
			Action{Kind: ActReboot, Config: "b"}},
		{"record: staged deployment vanished before the reboot rolls back", world(node(grantedB), record(withPhase(recB, PhaseKubeletStopped))),
			Action{Kind: ActRollbackFiles, Reason: "the staged deployment b0b0b0b0b0b0 disappeared before the reboot"}},

		// Update record, after a boot.
		{"boot: power loss before finalize rolls back", world(node(grantedB), record(withPhase(recB, PhaseKubeletStopped)),
			func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActRollbackFiles, Reason: "the node rebooted before the update asked for a reboot"}},
		{"boot: power loss with a files-only update rolls back too", world(node(func(n *NodeState) { n.Desired = "c" }),
			record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseFilesWritten}), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActRollbackFiles, Reason: "the node rebooted before the update asked for a reboot"}},
		{"boot: finalize did not take (old OS booted) rolls back", world(node(grantedB), record(withPhase(recB, PhaseRebooting)),
			func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActRollbackFiles, Reason: "booted a0a0a0a0a0a0 instead of the finalized deployment b0b0b0b0b0b0"}},
		{"boot: new OS failed to boot and fell back (finalized deployment is the rollback): Degraded, no retry",
			world(node(grantedB), record(withPhase(recB, PhaseRebooting)), func(o *Observed) {
				o.BootID, o.OS.Rollback = boot2, &Deployment{Checksum: csB, Image: imgB}
			}),
			Action{Kind: ActReportDegraded, Reason: "unexpected on-disk state validating against b: booted a0a0a0a0a0a0, not the finalized deployment b0b0b0b0b0b0 (" + recB.TargetImage + "): the new OS failed to boot and the node fell back"}},
		{"boot: fell back and reported: wait", world(node(grantedB), node(func(n *NodeState) {
			n.State = constants.MachineConfigDaemonStateDegraded
			n.Reason = "unexpected on-disk state validating against b: booted a0a0a0a0a0a0, not the finalized deployment b0b0b0b0b0b0 (" + recB.TargetImage + "): the new OS failed to boot and the node fell back"
		}), record(withPhase(recB, PhaseRebooting)), func(o *Observed) {
			o.BootID, o.OS.Rollback = boot2, &Deployment{Checksum: csB, Image: imgB}
		}), Action{Kind: ActWait, Reason: "Degraded: unexpected on-disk state validating against b: booted a0a0a0a0a0a0, not the finalized deployment b0b0b0b0b0b0 (" + recB.TargetImage + "): the new OS failed to boot and the node fell back"}},
		{"boot: new OS booted, verify", world(node(grantedB), record(withPhase(recB, PhaseRebooting)), func(o *Observed) {
			o.BootID, o.OS.Booted = boot2, Deployment{Checksum: csB, Image: imgB}
		}), Action{Kind: ActVerify, Config: "b"}},
		{"boot: files-only update rebooted, verify", world(node(func(n *NodeState) { n.Desired = "c" }),
			record(Record{Config: "c", FromConfig: "a", BootID: boot, Phase: PhaseRebooting}), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActVerify, Config: "c"}},

		// Completion.
		{"done: verified, request uncordon", world(node(grantedB), record(withPhase(recB, PhaseVerified)), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActRequestUncordon, Config: "b"}},
		{"done: waits for the uncordon", world(node(grantedB), node(func(n *NodeState) { n.DesiredDrain = constants.UncordonRequest("b") }),
			record(withPhase(recB, PhaseVerified))),
			Action{Kind: ActWait, Reason: "waiting for the drain controller to uncordon the node (uncordon-b)"}},
		{"done: uncordoned, set Done", world(node(grantedB), node(func(n *NodeState) {
			n.DesiredDrain, n.LastAppliedDrain = constants.UncordonRequest("b"), constants.UncordonRequest("b")
		}), record(withPhase(recB, PhaseVerified))), Action{Kind: ActSetDone, Config: "b"}},
		{"done: set Done with the reboot token", world(node(grantedB), node(func(n *NodeState) {
			n.DesiredDrain, n.LastAppliedDrain, n.RebootRequest = constants.UncordonRequest("b"), constants.UncordonRequest("b"), "r7"
		}), record(func() Record { r := withPhase(recB, PhaseVerified); r.RebootToken = "r7"; return r }())),
			Action{Kind: ActSetDone, Config: "b", Token: "r7"}},
		{"done: Done reported, clear the record", world(node(func(n *NodeState) {
			n.Current, n.Desired, n.Staged, n.State = "b", "b", "b", done
			n.DesiredDrain, n.LastAppliedDrain = constants.UncordonRequest("b"), constants.UncordonRequest("b")
		}), record(withPhase(recB, PhaseVerified))), Action{Kind: ActClearRecord, Config: "b"}},

		// Reboot requests.
		{"reboot: recorded, same boot, reboot", world(node(func(n *NodeState) { n.RebootRequest = "r1" }),
			record(Record{Kind: RecordReboot, RebootToken: "r1", BootID: boot, Phase: PhaseRebooting})),
			Action{Kind: ActReboot, Token: "r1"}},
		{"reboot: rebooted, acknowledge", world(node(func(n *NodeState) { n.RebootRequest = "r1" }),
			record(Record{Kind: RecordReboot, RebootToken: "r1", BootID: boot, Phase: PhaseRebooting}), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActAckReboot, Token: "r1"}},
		{"reboot: acknowledged, clear", world(node(func(n *NodeState) { n.RebootRequest, n.LastReboot = "r1", "r1" }),
			record(Record{Kind: RecordReboot, RebootToken: "r1", BootID: boot, Phase: PhaseRebooting}), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActClearRecord, Token: "r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Next(tt.obs)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

// TestNextNeverFinalizesWithoutGrant walks every phase and boot combination
// and checks the safety rule: finalize-deployment is only ever asked for the
// config in desiredConfig, and only for the deployment staged for it.
func TestNextNeverFinalizesWithoutGrant(t *testing.T) {
	phases := []Phase{PhaseWriting, PhaseFilesWritten, PhaseKernelArgs, PhaseKubeletStopped, PhaseRebooting, PhaseVerified}
	for _, p := range phases {
		for _, desired := range []string{"a", "b"} {
			for _, locked := range []bool{true, false} {
				o := world(stagedB(locked), node(grantedB), node(func(n *NodeState) { n.Desired = desired }), record(withPhase(recB, p)))
				a := Next(o)
				if a.Kind == ActFinalize && (desired != "b" && !p.AtLeast(PhaseRebooting) || a.Checksum != csB) {
					t.Errorf("phase %s desired %s: finalize without a grant: %v", p, desired, a)
				}
			}
		}
	}
	// Without a record nothing is ever finalized, whatever the annotations.
	for _, n := range []NodeState{
		{Current: "a", Desired: "a", Stage: "b", Staged: "b", State: done},
		{Current: "a", Desired: "b", Stage: "b", Staged: "b", State: working, DesiredDrain: "drain-b", LastAppliedDrain: "drain-b"},
	} {
		o := world(stagedB(true), func(o *Observed) { o.Node = n })
		if a := Next(o); a.Kind == ActFinalize || a.Kind == ActReboot {
			t.Errorf("node %+v: %v without a record", n, a)
		}
	}
}

// TestKernelArgsEdit: the MCO's generateKargs (release-4.21
// pkg/daemon/update.go): delete every old argument if present, append
// every new one, repeated ones included, entries split on spaces; nothing
// when the lists are equal.
func TestKernelArgsEdit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		from, to      []string
		wantAdd, wDel []string
	}{
		{"equal", []string{"quiet"}, []string{"quiet"}, nil, nil},
		{"none", nil, nil, nil, nil},
		{"repeated arguments kept", nil, []string{"hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=16"},
			[]string{"hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"}, nil},
		{"all old deleted, all new appended", []string{"quiet", "a=1", "x x"}, []string{"quiet", "a=2", "x"},
			[]string{"quiet", "a=2", "x"}, []string{"quiet", "a=1", "x", "x"}},
		{"reordered", []string{"a", "b"}, []string{"b", "a"}, []string{"b", "a"}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			add, del := KernelArgsEdit(tc.from, tc.to)
			if !reflect.DeepEqual(add, tc.wantAdd) || !reflect.DeepEqual(del, tc.wDel) {
				t.Fatalf("add=%q del=%q, want add=%q del=%q", add, del, tc.wantAdd, tc.wDel)
			}
		})
	}
}

func TestNormalizeImage(t *testing.T) {
	for in, want := range map[string]string{
		"ostree-unverified-registry:" + imgA:                 imgA,
		"ostree-unverified-image:docker://" + imgA:           imgA,
		"ostree-remote-registry:fedora:" + imgA:              imgA,
		"ostree-remote-image:fedora:docker://" + imgA:        imgA,
		"ostree-unverified-image:containers-storage:" + imgA: imgA,
		imgA: imgA,
	} {
		if got := NormalizeImage(in); got != want {
			t.Errorf("NormalizeImage(%q) = %q, want %q", in, got, want)
		}
	}
}

// stock runs the observation under the stock MCO order.
func stock(o *Observed) { o.Order = OrderStock }

// TestNextStockOrder is the stock MCO order (--update-order=stock, the
// baseline of bench-disruption): drain first, stage after the drain is
// acknowledged, stageConfig ignored, stagedConfig never reported.
func TestNextStockOrder(t *testing.T) {
	drainedB := func(n *NodeState) {
		n.Desired, n.State = "b", working
		n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("b"), constants.DrainRequest("b")
	}
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		{"stageConfig is ignored", world(stock, node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActWait, Reason: "node runs a"}},
		{"a staged deployment is not kept for stageConfig", world(stock, stagedB(true), node(func(n *NodeState) { n.Stage = "b" })),
			Action{Kind: ActCleanupStaged, Reason: "no config asks for the staged deployment"}},
		{"grant: Working first, no stage", world(stock, node(func(n *NodeState) { n.Desired = "b" })),
			Action{Kind: ActSetWorking, Config: "b", From: "a"}},
		{"grant: drain before the stage", world(stock, node(func(n *NodeState) { n.Desired, n.State = "b", working })),
			Action{Kind: ActRequestDrain, Config: "b"}},
		{"grant: waits for the drain without staging", world(stock, node(func(n *NodeState) {
			n.Desired, n.State, n.DesiredDrain = "b", working, constants.DrainRequest("b")
		})), Action{Kind: ActWait, Reason: "waiting for the drain controller to drain the node (drain-b)"}},
		{"drained: stages", world(stock, node(drainedB)),
			Action{Kind: ActStage, Config: "b", Image: imgB}},
		{"drained and staged: writes files without reporting stagedConfig", world(stock, stagedB(true), node(drainedB)),
			Action{Kind: ActWriteFiles, Config: "b", From: "a", OSChange: true, Image: imgB, Checksum: csB}},
		{"drained: a staged deployment of another image is discarded", world(stock, node(drainedB), func(o *Observed) {
			o.OS.Staged = &Deployment{Checksum: "x", Image: "other@sha256:1", FinalizationLocked: true}
		}), Action{Kind: ActCleanupStaged, Config: "b", Reason: "staged image other@sha256:1 is not " + imgB}},
		{"drained: files-only config writes at once", world(stock, node(func(n *NodeState) {
			n.Desired, n.State = "c", working
			n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("c"), constants.DrainRequest("c")
		})), Action{Kind: ActWriteFiles, Config: "c", From: "a", Image: imgA}},
		{"grant: invalid config is Unreconcilable, nothing drained", world(stock, node(func(n *NodeState) { n.Desired = "bad" })),
			Action{Kind: ActReportUnreconcilable, Reason: "MachineConfig bad cannot be applied: unsupported: storage.disks"}},
		{"record: the rest of the update is the same", world(stock, stagedB(true), node(drainedB), record(withPhase(recB, PhaseKubeletStopped))),
			Action{Kind: ActFinalize, Config: "b", Checksum: csB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Next(tt.obs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

// TestNextStockNeverStagesBeforeTheDrain walks node states in the stock
// order and checks that the only way to ActStage is an acknowledged drain
// for desiredConfig, and that stagedConfig is never reported.
func TestNextStockNeverStagesBeforeTheDrain(t *testing.T) {
	drains := []string{"", constants.DrainRequest("b"), constants.UncordonRequest("a")}
	stagings := []func(*Observed){func(*Observed) {}, stagedB(true), stagedB(false)}
	staged := 0
	for _, desired := range []string{"a", "b", "c"} {
		for _, stage := range []string{"", "b", "c"} {
			for _, state := range []string{done, working, ""} {
				for _, want := range drains {
					for _, applied := range drains {
						for _, st := range stagings {
							o := world(stock, st, node(func(n *NodeState) {
								n.Desired, n.Stage, n.State, n.DesiredDrain, n.LastAppliedDrain = desired, stage, state, want, applied
							}))
							a := Next(o)
							drained := want == constants.DrainRequest(desired) && applied == want
							if a.Kind == ActStage {
								staged++
								if !drained {
									t.Errorf("stock order staged before the drain: %+v -> %v", o.Node, a)
								}
							}
							if a.Kind == ActReportStaged {
								t.Errorf("stock order reported stagedConfig: %+v -> %v", o.Node, a)
							}
						}
					}
				}
			}
		}
	}
	if staged == 0 {
		t.Fatal("no state staged at all: the walk does not reach the drained grant")
	}
}

func TestParseUpdateOrder(t *testing.T) {
	for in, want := range map[string]UpdateOrder{"": OrderStaged, "staged": OrderStaged, "stock": OrderStock} {
		if got, err := ParseUpdateOrder(in); err != nil || got != want {
			t.Errorf("ParseUpdateOrder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseUpdateOrder("sideways"); err == nil {
		t.Error("ParseUpdateOrder accepted an unknown order")
	}
}
