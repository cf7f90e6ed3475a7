//go:build integration

package daemon_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
)

const updateTimeout = 2 * time.Minute

// requireStagedAtCordon fails the test if the node is cordoned while the
// target OS is not staged and finalization-locked.
func requireStagedAtCordon(w *world, sn *framework.SimNode) {
	w.drainer.setOnCordon(sn.Name, func(n *corev1.Node) error {
		st, locked, err := sn.Staged()
		if err != nil {
			return err
		}
		if st == nil || !locked || daemon.NormalizeImage(st.Origin) != w.imageB {
			return fmt.Errorf("node %s cordoned before %s was staged and locked (staged=%v locked=%v)", sn.Name, w.imageB, st, locked)
		}
		if n.Annotations[constants.StagedConfigAnnotation] != cfgB {
			return fmt.Errorf("node %s cordoned before it reported stagedConfig=%s", sn.Name, cfgB)
		}
		return nil
	})
}

// TestStageThenGrantToDone: stageConfig stages the new OS locked while the
// node keeps running; only the grant (desiredConfig) drains, writes the
// files and reboots into it; the node ends Done, uncordoned, on image B
// with B's files.
func TestStageThenGrantToDone(t *testing.T) {
	w := newWorld(t)
	a, b := w.standardConfigs()
	sn := w.installNode("stage-then-grant", cfgA, a, w.imageA, framework.SimNodeOptions{})
	requireStagedAtCordon(w, sn)

	w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfgB})
	n := w.waitFor(sn, "stagedConfig="+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StagedConfigAnnotation] == cfgB
	})
	if n.Spec.Unschedulable || n.Annotations[constants.DesiredDrainAnnotation] != "" {
		t.Fatalf("staging disrupted the node: %s", describe(n))
	}
	st, locked, err := sn.Staged()
	if err != nil || st == nil || !locked {
		t.Fatalf("after stagedConfig: staged=%v locked=%v err=%v", st, locked, err)
	}
	if got := bootedImage(t, sn); got != w.imageA {
		t.Fatalf("booted %s before the grant, want %s", got, w.imageA)
	}
	w.waitCondition(sn.Name, mcfgv1.MachineConfigNodeImagePulledFromRegistry, metav1.ConditionTrue, 10*time.Second)
	// Nothing happens without the grant.
	time.Sleep(time.Second)
	if n := w.node(sn.Name); n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone || n.Spec.Unschedulable {
		t.Fatalf("node moved without a grant: %s", describe(n))
	}
	checkFiles(t, sn, nil, &a)

	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: cfgB})
	n = w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	checkUpdated(t, w, sn, n, &a, &b)
	if boots := sn.Boots(); len(boots) != 2 || boots[1].Cause != "reboot" {
		t.Errorf("boots: %+v, want the initial one and one reboot", boots)
	}
}

// TestGrantStagesBeforeDraining: a grant without a stage request still
// stages first; the drain comes after the stage.
func TestGrantStagesBeforeDraining(t *testing.T) {
	w := newWorld(t)
	a, b := w.standardConfigs()
	sn := w.installNode("grant-first", cfgA, a, w.imageA, framework.SimNodeOptions{})
	requireStagedAtCordon(w, sn)
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: cfgB})
	n := w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	checkUpdated(t, w, sn, n, &a, &b)
	if ev := w.drainer.eventsOf(sn.Name); len(ev.Cordons) == 0 || len(ev.Uncordons) == 0 {
		t.Errorf("drain handshake not used: %+v", ev)
	}
}

// TestFilesOnlyConfig: a config without an OS change goes through the
// same drain/write/reboot path, without staging.
func TestFilesOnlyConfig(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	c := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=3\n", 0o644}}, nil)
	w.createMC("rendered-worker-c", w.imageA, c)
	sn := w.installNode("files-only", cfgA, a, w.imageA, framework.SimNodeOptions{})
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: "rendered-worker-c"})
	n := w.waitFor(sn, "Done on rendered-worker-c", updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == "rendered-worker-c" &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
	})
	waitSettled(w, sn)
	if n.Spec.Unschedulable {
		t.Errorf("left cordoned: %s", describe(n))
	}
	if got := bootedImage(t, sn); got != w.imageA {
		t.Errorf("booted %s, want %s", got, w.imageA)
	}
	checkFiles(t, sn, &a, &c)
	checkNoRecord(t, sn)
	if boots := sn.Boots(); len(boots) != 2 {
		t.Errorf("boots: %+v, want one reboot", boots)
	}
	if _, err := os.Stat(sn.HostPath("/etc/tandem-test/only-in-a.conf")); !os.IsNotExist(err) {
		t.Errorf("file of the old config not removed: %v", err)
	}
}

// checkUpdated verifies a node that finished the update to B.
func checkUpdated(t *testing.T, w *world, sn *framework.SimNode, n *corev1.Node, a, b any) {
	t.Helper()
	waitSettled(w, sn)
	if n.Spec.Unschedulable {
		t.Errorf("node left cordoned: %s", describe(n))
	}
	if n.Annotations[constants.ReasonAnnotation] != "" {
		t.Errorf("reason left: %s", describe(n))
	}
	if got := bootedImage(t, sn); got != w.imageB {
		t.Errorf("booted %s, want %s", got, w.imageB)
	}
	if st, _, err := sn.Staged(); err != nil || st != nil {
		t.Errorf("staged deployment left: %v %v", st, err)
	}
	d, err := sn.Booted()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range d.Kargs {
		found = found || k == "tandem.test=1"
	}
	if !found {
		t.Errorf("kernel argument tandem.test=1 missing from the booted deployment: %v", d.Kargs)
	}
	ai, bi := toIgn(a), toIgn(b)
	checkFiles(t, sn, ai, bi)
	checkNoRecord(t, sn)
	m := w.mcn(sn.Name)
	if c := condition(m, mcfgv1.MachineConfigNodeUpdated); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("MachineConfigNode Updated: %+v", c)
	}
	if m.Status.ConfigVersion == nil || m.Status.ConfigVersion.Current != cfgB {
		t.Errorf("MachineConfigNode configVersion: %+v", m.Status.ConfigVersion)
	}
}

// waitSettled waits until the daemon forgot the finished update and
// reported it on the MachineConfigNode (the steps after state=Done).
func waitSettled(w *world, sn *framework.SimNode) {
	w.t.Helper()
	err := framework.Await(context.Background(), "node "+sn.Name+" to settle (record forgotten, MachineConfigNode Updated)", time.Minute,
		20*time.Millisecond, func(ctx context.Context) (bool, string, error) {
			r, err := daemon.NewStore(sn.Root).Load()
			if err != nil || r != nil {
				return false, fmt.Sprintf("record %+v (%v)", r, err), nil
			}
			m, err := w.cp.MCO.MachineconfigurationV1().MachineConfigNodes().Get(ctx, sn.Name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			c := condition(m, mcfgv1.MachineConfigNodeUpdated)
			return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("MachineConfigNode Updated condition %+v", c), nil
		})
	if err != nil {
		w.t.Fatalf("%v\ndaemon log tail:\n%s", err, sn.DaemonLogTail())
	}
}
