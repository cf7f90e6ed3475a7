//go:build integration

package daemon_test

import (
	"slices"
	"strings"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// crashScript is one way a node moves, for TestDaemonCrash.
type crashScript struct {
	name string
	// points restricts the crash points to these hook points of the clean
	// run (every occurrence); nil: every step the clean run took.
	points []string
	// extra crash points that are not hook points (stageMid).
	extra []string
	// prelude crashes (kill -9) happen in every run, the clean one too: they
	// put the daemon on the path the script is about (a rollback).
	prelude []crashPoint
	// drive starts the change on a node installed with config A, waits for
	// the end state and checks it. It must not depend on when (or whether)
	// the crash happens.
	drive func(t *testing.T, r *crashRun)
}

func crashScripts() []crashScript {
	return append([]crashScript{
		{
			// Stage ahead, then the grant: OS, files, a unit and a kernel
			// argument. Every step, and the middle of the pull.
			name:  "update",
			extra: []string{stageMid},
			drive: func(t *testing.T, r *crashRun) { stageGrantToB(t, r) },
		},
		{
			// Kernel arguments and a file, no OS change: the kernel
			// arguments are set on a locked deployment of the booted commit,
			// which is finalized. Hole (c) lives between Finalize.advanced
			// and the reboot. The arguments repeat (hugepages=16 for two
			// page sizes): both must survive the reboot, also when the
			// daemon dies right after `rpm-ostree kargs` (appending again
			// would double them).
			name: "kargs-only",
			points: []string{"WriteFiles", string(daemon.ActApplyKernelArgs), "ApplyKernelArgs.applied", string(daemon.ActStopKubelet),
				string(daemon.ActFinalize), "Finalize.advanced", string(daemon.ActVerify)},
			drive: func(t *testing.T, r *crashRun) {
				r.grant(cfgKargs, r.w.imageA)
				n := waitDone(r, cfgKargs)
				checkDone(t, r, n, cfgKargs)
			},
		},
		{
			// Files only: no deployment to finalize, a plain reboot.
			name:   "files-only",
			points: []string{string(daemon.ActReboot), "Reboot.advanced"},
			drive: func(t *testing.T, r *crashRun) {
				r.grant(cfgFiles, r.w.imageA)
				n := waitDone(r, cfgFiles)
				checkDone(t, r, n, cfgFiles)
			},
		},
		{
			// A rebootRequest (HostMaintenance Reboot) on an idle node.
			name: "reboot-request",
			drive: func(t *testing.T, r *crashRun) {
				r.w.annotate(r.sn.Name, map[string]string{constants.RebootRequestAnnotation: "crash-req"})
				n := r.w.waitFor(r.sn, "lastReboot=crash-req and the record forgotten", updateTimeout, func(n *corev1.Node) bool {
					rec, err := newStoreFor(r.sn).Load()
					return n.Annotations[constants.LastRebootAnnotation] == "crash-req" && err == nil && rec == nil
				})
				if n.Annotations[constants.CurrentConfigAnnotation] != cfgA || n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
					t.Errorf("after the reboot request: %s", describe(n))
				}
				if len(r.sn.Boots()) < 2 {
					t.Errorf("reboot request acknowledged without a boot: %+v", r.sn.Boots())
				}
				if got := bootedImage(t, r.sn); got != r.w.imageA {
					t.Errorf("booted %s, want %s", got, r.w.imageA)
				}
				checkFiles(t, r.sn, nil, ptr(r.w.cfgs[cfgA]))
			},
		},
		{
			// A kill in the middle of writing the files puts the daemon on
			// the rollback path; the crash under test hits the rollback.
			name:    "rollback",
			points:  []string{string(daemon.ActRollbackFiles)},
			prelude: []crashPoint{{"WriteFiles.mid", 1}},
			drive:   func(t *testing.T, r *crashRun) { stageGrantToB(t, r) },
		},
		{
			// A stage withdrawn before the grant: the staged deployment is
			// cleaned up; later the update goes through.
			name:   "cleanup",
			points: []string{string(daemon.ActCleanupStaged)},
			drive: func(t *testing.T, r *crashRun) {
				r.w.annotate(r.sn.Name, map[string]string{constants.StageConfigAnnotation: cfgB})
				r.w.waitFor(r.sn, "stagedConfig="+cfgB, updateTimeout, func(n *corev1.Node) bool {
					return n.Annotations[constants.StagedConfigAnnotation] == cfgB
				})
				r.w.annotate(r.sn.Name, map[string]string{constants.StageConfigAnnotation: cfgA})
				r.w.waitFor(r.sn, "the withdrawn stage cleaned up", updateTimeout, func(*corev1.Node) bool {
					st, _, err := r.sn.Staged()
					return err == nil && st == nil
				})
				if got := bootedImage(t, r.sn); got != r.w.imageA {
					t.Errorf("booted %s after a withdrawn stage, want %s", got, r.w.imageA)
				}
				stageGrantToB(t, r)
			},
		},
		{
			// A config that cannot be applied, then one that does not exist
			// yet: Unreconcilable, Degraded, and Done once it exists.
			name:   "failures",
			points: []string{string(daemon.ActReportUnreconcilable), string(daemon.ActReportDegraded)},
			drive: func(t *testing.T, r *crashRun) {
				r.grant(cfgBad, r.w.imageB)
				r.w.waitFor(r.sn, "Unreconcilable", updateTimeout, func(n *corev1.Node) bool {
					return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateUnreconcilable
				})
				late := "rendered-worker-late-" + r.sn.Name
				r.grant(late, r.w.imageB)
				r.w.waitFor(r.sn, "Degraded", updateTimeout, func(n *corev1.Node) bool {
					return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded
				})
				if n := r.w.node(r.sn.Name); n.Spec.Unschedulable || n.Annotations[constants.DesiredDrainAnnotation] != "" {
					t.Errorf("a bad or missing config drained the node: %s", describe(n))
				}
				r.w.createMC(late, r.w.imageB, r.w.cfgs[cfgB], "tandem.test=1")
				n := waitDone(r, late)
				checkDone(t, r, n, late)
			},
		},
		{
			// A stage that fails (the image is not in the registry): the
			// node stays Done and reports the failure; once the config is
			// withdrawn the daemon clears it, and later the update goes
			// through.
			name:   "stage-failure",
			points: []string{string(daemon.ActClearStageFailure)},
			drive: func(t *testing.T, r *crashRun) {
				r.w.annotate(r.sn.Name, map[string]string{constants.StageConfigAnnotation: cfgUnpullable})
				r.w.waitFor(r.sn, "stageFailure for "+cfgUnpullable, updateTimeout, func(n *corev1.Node) bool {
					f, ok, err := constants.ParseStageFailure(n.Annotations[constants.StageFailureAnnotation])
					return err == nil && ok && f.Config == cfgUnpullable
				})
				if n := r.w.node(r.sn.Name); n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
					t.Errorf("a failed stage changed the node's state: %s", describe(n))
				}
				r.w.annotate(r.sn.Name, map[string]string{constants.StageConfigAnnotation: cfgA})
				r.w.waitFor(r.sn, "the stage failure cleared", updateTimeout, func(n *corev1.Node) bool {
					_, has := n.Annotations[constants.StageFailureAnnotation]
					return !has
				})
				stageGrantToB(t, r)
			},
		},
	}, append(rebootlessCrashScripts(), layeringCrashScripts()...)...)
}

// hugepagesKargs reserve huge pages of two sizes: hugepages= applies to the
// hugepagesz= before it, so both hugepages=16 must stay, in order. One
// argument per entry, as a MachineConfig may list them.
var hugepagesKargs = []string{"hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"}

// Configs of the crash scripts besides A and B (standardConfigs).
const (
	cfgKargs = "rendered-worker-crash-kargs"
	cfgFiles = "rendered-worker-crash-files"
	cfgBad   = "rendered-worker-crash-bad"
	// cfgUnpullable names an image the registry does not have.
	cfgUnpullable = "rendered-worker-crash-unpullable"
)

// crashConfigs creates the scripts' configs: kernel arguments plus a file on
// A's image; a file only; and one with storage.disks (cannot be applied).
func (w *world) crashConfigs() {
	a := w.cfgs[cfgA]
	k := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=k\n", 0o644}, {"/etc/tandem-test/k.conf", "k\n", 0o600}}, nil)
	w.createMC(cfgKargs, w.imageA, k, append([]string{"tandem.test=1", "tandem.kargs=2"}, hugepagesKargs...)...)
	f := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=f\n", 0o644}, {"/etc/tandem-test/f.conf", "f\n", 0o600}}, nil)
	w.createMC(cfgFiles, w.imageA, f)
	bad := a
	bad.Storage.Disks = append(bad.Storage.Disks, diskWipe("/dev/vdb"))
	w.createMC(cfgBad, w.imageB, bad)
	w.createMC(cfgUnpullable, w.registry.Host()+"/os@sha256:"+strings.Repeat("0", 64), a)
}

// stageGrantToB stages B ahead, lets the stand-in controller grant it once
// staged, and checks the node ends on B.
func stageGrantToB(t *testing.T, r *crashRun) {
	requireStagedAtCordon(r.w, r.sn)
	r.w.drainer.autoGrant(r.sn.Name, true)
	r.w.annotate(r.sn.Name, map[string]string{constants.StageConfigAnnotation: cfgB})
	n := waitDone(r, cfgB)
	checkDone(t, r, n, cfgB)
}

// waitDone waits until the node runs cfg, Done and uncordoned.
func waitDone(r *crashRun, cfg string) *corev1.Node {
	return r.w.waitFor(r.sn, "Done on "+cfg, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfg &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone &&
			n.Annotations[constants.LastAppliedDrainAnnotation] == constants.UncordonRequest(cfg)
	})
}

// checkDone is the oracle of a finished update from A to cfg: written from
// the config itself (its files, its image, its kernel arguments), not from
// what the daemon reports.
func checkDone(t *testing.T, r *crashRun, n *corev1.Node, cfg string) {
	t.Helper()
	w, sn := r.w, r.sn
	waitSettled(w, sn)
	if n.Spec.Unschedulable {
		t.Errorf("node left cordoned: %s", describe(n))
	}
	if n.Annotations[constants.ReasonAnnotation] != "" {
		t.Errorf("reason left: %s", describe(n))
	}
	if got := bootedImage(t, sn); got != w.imageOf[cfg] {
		t.Errorf("booted %s, want %s", got, w.imageOf[cfg])
	}
	if st, _, err := sn.Staged(); err != nil || st != nil {
		t.Errorf("staged deployment left: %v %v", st, err)
	}
	d, err := sn.Booted()
	if err != nil {
		t.Fatal(err)
	}
	mc, err := w.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(t.Context(), cfg, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A has no kernel arguments: the node boots the ones it was installed
	// with, then the config's, each as often and in the order the config
	// has them (what the MCO's delete-then-append edit leaves).
	want := osdouble.DefaultKargs()
	for _, e := range mc.Spec.KernelArguments {
		want = append(want, strings.Fields(e)...)
	}
	if !slices.Equal(d.Kargs, want) {
		t.Errorf("the booted deployment's kernel arguments %q, want %q (the install's, then %s's)", d.Kargs, want, cfg)
	}
	checkFiles(t, sn, ptr(w.cfgs[cfgA]), ptr(w.cfgs[cfg]))
	checkNoRecord(t, sn)
}

func diskWipe(dev string) ign3types.Disk { return ign3types.Disk{Device: dev, WipeTable: ptr(true)} }
