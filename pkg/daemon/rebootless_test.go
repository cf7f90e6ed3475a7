package daemon

import (
	"reflect"
	"testing"

	opv1 "github.com/openshift/api/operator/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

var (
	sshAndRegistries = mcfg.Diff{Passwd: true, Files: []string{"/etc/containers/registries.conf"}, RegistriesConfSafe: true}
	specialAction    = []opv1.NodeDisruptionPolicyStatusAction{{Type: opv1.SpecialStatusAction}}
)

// grantedC: desiredConfig=c (same OS as a) with diff d, the defaults apply.
func grantedC(d *mcfg.Diff, mut ...func(*NodeState)) func(*Observed) {
	return func(o *Observed) {
		o.Node.Desired, o.Node.Stage, o.Node.Staged = "c", "c", "c"
		o.Diff = d
		o.Policies = DefaultClusterPolicies()
		for _, m := range mut {
			m(&o.Node)
		}
	}
}

func recC(p Phase, done int) Record {
	return Record{Config: "c", FromConfig: "a", TargetImage: imgA, BootID: boot, Phase: p,
		Rebootless: true, PostActions: specialAction, ActionsDone: done}
}

func TestNextRebootless(t *testing.T) {
	unsafe := mcfg.Diff{Files: []string{"/etc/containers/registries.conf"}}
	motd := mcfg.Diff{Files: []string{"/etc/motd"}}
	isWorking := func(n *NodeState) { n.State = working }
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		{"unreported: the stage step still says the config needs no OS",
			world(grantedC(&sshAndRegistries, func(n *NodeState) { n.Staged = "" })), Action{Kind: ActReportStaged, Config: "c"}},
		{"empty diff: only currentConfig moves, no Working, no drain",
			world(grantedC(&mcfg.Diff{})), Action{Kind: ActSetDone, Config: "c", Reason: "no change to apply from a"}},
		{"policy change: Working first",
			world(grantedC(&sshAndRegistries)), Action{Kind: ActSetWorking, Config: "c", From: "a", Reason: "disruption policies: Special (reload crio.service)"}},
		{"policy change without drain: files written with the actions",
			world(grantedC(&sshAndRegistries, isWorking)),
			Action{Kind: ActWriteFiles, Config: "c", From: "a", Rebootless: true, PostActions: specialAction, Reason: "disruption policies: Special (reload crio.service)"}},
		{"unsafe registries change: Working and the drain request in one write",
			world(grantedC(&unsafe)), Action{Kind: ActRequestDrain, Config: "c", From: "a", Working: true, Reason: "disruption policies: Special (reload crio.service)"}},
		{"unsafe registries change: drain first",
			world(grantedC(&unsafe, isWorking)), Action{Kind: ActRequestDrain, Config: "c", Reason: "disruption policies: Special (reload crio.service)"}},
		{"unsafe registries change: wait for the drain",
			world(grantedC(&unsafe, isWorking, func(n *NodeState) { n.DesiredDrain = constants.DrainRequest("c") })),
			Action{Kind: ActWait, Reason: "waiting for the drain controller to drain the node (drain-c)"}},
		{"unsafe registries change, drained: write",
			world(grantedC(&unsafe, isWorking, func(n *NodeState) {
				n.DesiredDrain, n.LastAppliedDrain = constants.DrainRequest("c"), constants.DrainRequest("c")
			})),
			Action{Kind: ActWriteFiles, Config: "c", From: "a", Rebootless: true, PostActions: specialAction, Reason: "disruption policies: Special (reload crio.service)"}},
		{"an unlisted file: the reboot path (drain before the write)",
			world(grantedC(&motd, isWorking)), Action{Kind: ActRequestDrain, Config: "c"}},
		{"unknown diff: the reboot path",
			world(grantedC(nil, isWorking)), Action{Kind: ActRequestDrain, Config: "c"}},
		{"force file: the reboot path even for an empty diff",
			world(grantedC(&mcfg.Diff{}, isWorking), func(o *Observed) { o.ForceFile = true }), Action{Kind: ActRequestDrain, Config: "c"}},
		{"an OS change is never rebootless, whatever the diff says",
			world(node(func(n *NodeState) { n.Desired = "b" }), func(o *Observed) { o.Diff = &mcfg.Diff{Passwd: true} }),
			Action{Kind: ActStage, Config: "b", Image: imgB}},

		// The record of a rebootless update.
		{"interrupted write rolls back", world(grantedC(&sshAndRegistries, isWorking), record(recC(PhaseWriting, 0))),
			Action{Kind: ActRollbackFiles, Reason: "the daemon stopped while writing files"}},
		{"files written: the first action", world(grantedC(&sshAndRegistries, isWorking), record(recC(PhaseFilesWritten, 0))),
			Action{Kind: ActPostConfigAction, Config: "c", Index: 0, PostActions: specialAction, Reason: "Special (reload crio.service)"}},
		{"a reboot after the write does not roll back", world(grantedC(&sshAndRegistries, isWorking), record(recC(PhaseFilesWritten, 0)), func(o *Observed) { o.BootID = boot2 }),
			Action{Kind: ActPostConfigAction, Config: "c", Index: 0, PostActions: specialAction, Reason: "Special (reload crio.service)"}},
		{"a new desiredConfig waits for the update to finish", world(grantedC(&sshAndRegistries, isWorking, func(n *NodeState) { n.Desired = "b" }), record(recC(PhaseFilesWritten, 0))),
			Action{Kind: ActPostConfigAction, Config: "c", Index: 0, PostActions: specialAction, Reason: "Special (reload crio.service)"}},
		{"actions done: verify", world(grantedC(&sshAndRegistries, isWorking), record(recC(PhaseFilesWritten, 1))),
			Action{Kind: ActVerify, Config: "c"}},
		{"verified: the uncordon handshake as for any update", world(grantedC(&sshAndRegistries, isWorking), record(recC(PhaseVerified, 1))),
			Action{Kind: ActRequestUncordon, Config: "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Next(tc.obs); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Next =\n  %+v\nwant\n  %+v", got, tc.want)
			}
		})
	}
}

func TestNextOnDiskConfig(t *testing.T) {
	odc := func(name, invalid string) func(*Observed) {
		return func(o *Observed) { o.OnDiskConfig, o.OnDiskConfigInvalid = name, invalid }
	}
	tests := []struct {
		name string
		obs  Observed
		want Action
	}{
		{"agrees with the annotation: nothing", world(odc("a", "")), Action{Kind: ActWait, Reason: "node runs a"}},
		{"names another config that the disk holds: adopted",
			world(odc("c", ""), node(func(n *NodeState) { n.Desired = "c"; n.State = working })),
			Action{Kind: ActAdoptOnDiskConfig, Config: "c", Reason: "on-disk currentconfig c overrides currentConfig a"}},
		{"names neither the current nor the desired config: left to the annotation",
			world(odc("c", "")), Action{Kind: ActWait, Reason: "node runs a"}},
		{"the disk does not hold it: Degraded",
			world(odc("c", "content mismatch for file /etc/x"), node(func(n *NodeState) { n.Desired = "c" })),
			Action{Kind: ActReportDegraded, Reason: "unexpected on-disk state validating against c: content mismatch for file /etc/x"}},
		{"the force file skips the check",
			world(odc("c", "content mismatch for file /etc/x"), node(func(n *NodeState) { n.Desired = "c" }), func(o *Observed) { o.ForceFile = true }),
			Action{Kind: ActAdoptOnDiskConfig, Config: "c", Reason: "on-disk currentconfig c overrides currentConfig a"}},
		{"an update in progress is the record's to finish",
			world(odc("b", ""), node(grantedB), stagedB(true), record(withPhase(recB, PhaseKubeletStopped))),
			Action{Kind: ActFinalize, Config: "b", Checksum: csB}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Next(tc.obs); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Next =\n  %+v\nwant\n  %+v", got, tc.want)
			}
		})
	}
}
