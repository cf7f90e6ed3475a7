//go:build integration

package daemon_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// rpmOstree runs the rpm-ostree double on a simulated node, as an admin on
// the node (or another tool) would.
func (w *world) runRPMOstree(sn *framework.SimNode, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.rpmOstree, args...)
	cmd.Env = append(os.Environ(), osdouble.EnvSysroot+"="+sn.Sysroot, osdouble.EnvRun+"="+sn.Run,
		osdouble.EnvRebootFile+"="+filepath.Join(sn.Dir, "reboot-request"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("rpm-ostree %v on %s: %v\n%s", args, sn.Name, err, out)
	}
	return string(out)
}

// bootWatch records every boot of a node into an image other than allowed.
type bootWatch struct {
	mu      sync.Mutex
	allowed []string
	bad     []string
}

func (b *bootWatch) onBoot(ev framework.BootEvent) {
	img := daemon.NormalizeImage(ev.Booted.Origin)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.allowed, img) {
		b.bad = append(b.bad, fmt.Sprintf("%s boot into %s", ev.Cause, img))
	}
}

func (b *bootWatch) check(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.bad {
		t.Errorf("ungranted OS booted: %s", s)
	}
}

// TestRebootRequestNeverBootsAnUngrantedOS is hole (a) of issue 16: a
// rebootRequest served while an unlocked staged deployment exists (staged by
// someone else, or by an rpm-ostree whose status does not show the lock)
// must not boot that OS, which nobody granted. The daemon is held while the
// deployment is staged and the request is made, then restarted, so it sees
// both at once. Once idle, and once while staging its own stageConfig.
func TestRebootRequestNeverBootsAnUngrantedOS(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	for _, tc := range []struct {
		name  string
		stage string
	}{{"idle", ""}, {"staging", cfgB}} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.in(t)
			watch := &bootWatch{allowed: []string{w.imageA}}
			sn := w.installNode("ungranted-boot-"+tc.name, cfgA, a, w.imageA, framework.SimNodeOptions{Hooked: true, OnBoot: watch.onBoot})
			held := sn.HoldAt(string(daemon.ActWait), 1)
			select {
			case <-held:
			case <-time.After(updateTimeout):
				t.Fatalf("daemon never went idle; steps %v\n%s", sn.Steps(), sn.DaemonLogTail())
			}
			w.runRPMOstree(sn, "rebase", "ostree-unverified-registry:"+w.imageB)
			if st, locked, err := sn.Staged(); err != nil || st == nil || locked {
				t.Fatalf("setting up an unlocked staged deployment: %+v locked=%v %v", st, locked, err)
			}
			kv := map[string]string{constants.RebootRequestAnnotation: "req-" + tc.name}
			if tc.stage != "" {
				kv[constants.StageConfigAnnotation] = tc.stage
			}
			w.annotate(sn.Name, kv)
			if err := sn.KillDaemon(); err != nil {
				t.Fatal(err)
			}
			w.waitFor(sn, "lastReboot=req-"+tc.name, updateTimeout, func(n *corev1.Node) bool {
				return n.Annotations[constants.LastRebootAnnotation] == "req-"+tc.name
			})
			watch.check(t)
			if got := bootedImage(t, sn); got != w.imageA {
				t.Errorf("booted %s after the reboot request, want %s", got, w.imageA)
			}
			if tc.stage != "" {
				// The daemon stages its own, locked, afterwards.
				w.waitFor(sn, "stagedConfig="+tc.stage, updateTimeout, func(n *corev1.Node) bool {
					return n.Annotations[constants.StagedConfigAnnotation] == tc.stage
				})
				if st, locked, err := sn.Staged(); err != nil || st == nil || !locked {
					t.Errorf("after the reboot: staged %+v locked=%v %v, want %s locked", st, locked, err, w.imageB)
				}
			}
			if n := w.node(sn.Name); n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
				t.Errorf("node after the reboot: %s", describe(n))
			}
		})
	}
}

// TestKernelArgsSurvivePowerLoss is hole (c) of issue 16: a kernel-argument
// only update whose node loses power between recording the reboot and
// finalizing boots the old arguments. The daemon must apply them again, not
// report Done without them.
func TestKernelArgsSurvivePowerLoss(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	k := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=1\n", 0o644}, {"/etc/tandem-test/only-in-a.conf", "gone in b\n", 0o600}}, nil)
	w.createMC("rendered-worker-kargs", w.imageA, k, "tandem.kargs=1")
	sn := w.installNode("kargs-power-loss", cfgA, a, w.imageA, framework.SimNodeOptions{Hooked: true})
	held := sn.HoldAt("Finalize.advanced", 1)
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: "rendered-worker-kargs"})
	select {
	case <-held:
	case <-time.After(updateTimeout):
		t.Fatalf("daemon never reached Finalize.advanced; steps %v\n%s", sn.Steps(), sn.DaemonLogTail())
	}
	if err := sn.PowerCycle(); err != nil {
		t.Fatal(err)
	}
	w.waitFor(sn, "Done on rendered-worker-kargs", updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == "rendered-worker-kargs" &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone &&
			n.Annotations[constants.LastAppliedDrainAnnotation] == constants.UncordonRequest("rendered-worker-kargs")
	})
	d, err := sn.Booted()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Kargs, "tandem.kargs=1") {
		t.Errorf("Done on rendered-worker-kargs, but the booted deployment has kernel arguments %v", d.Kargs)
	}
	boots := sn.Boots()
	if len(boots) != 3 || boots[1].Cause != "power-loss" || boots[2].Cause != "reboot" {
		t.Errorf("boots %+v: want start, the power loss and one reboot that applied the arguments", boots)
	}
	checkFiles(t, sn, &a, &k)
	waitSettled(w, sn)
	checkNoRecord(t, sn)
}

// TestOnDiskDriftIsDegraded: at every daemon start the disk is compared with
// currentConfig, as the MCO does; a changed file marks the node Degraded
// with the MCO's message, no update is applied on top of it, and once the
// file is repaired the node is Done and the held update goes through.
func TestOnDiskDriftIsDegraded(t *testing.T) {
	w := newWorld(t)
	a, b := w.standardConfigs()
	sn := w.installNode("on-disk-drift", cfgA, a, w.imageA, framework.SimNodeOptions{})
	w.waitFor(sn, "Done on "+cfgA, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	path := sn.HostPath("/etc/tandem-test/app.conf")
	if err := os.WriteFile(path, []byte("version=edited-by-hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sn.KillDaemon(); err != nil { // a daemon start
		t.Fatal(err)
	}
	want := "unexpected on-disk state validating against " + cfgA
	n := w.waitFor(sn, "Degraded: "+want, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDegraded &&
			strings.Contains(n.Annotations[constants.ReasonAnnotation], want)
	})
	if r := n.Annotations[constants.ReasonAnnotation]; !strings.Contains(r, "/etc/tandem-test/app.conf") {
		t.Errorf("reason %q does not name the drifted file", r)
	}
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: cfgB})
	time.Sleep(3 * time.Second) // a resync or two: time to do something wrong
	n = w.node(sn.Name)
	if n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDegraded || n.Spec.Unschedulable ||
		n.Annotations[constants.DesiredDrainAnnotation] != "" {
		t.Fatalf("the update went onto a drifted node: %s", describe(n))
	}
	if st, _, _ := sn.Staged(); st != nil {
		t.Errorf("staged %s on a drifted node", st.Origin)
	}
	if err := os.WriteFile(path, []byte("version=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n = w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	checkUpdated(t, w, sn, n, &a, &b)
}
