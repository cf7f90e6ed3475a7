//go:build integration

package daemon_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestBadMachineConfig: configs the daemon cannot apply leave the node's
// files and booted OS unchanged, nothing staged, the node not drained, and
// a reason a person can act on in the `reason` annotation and the
// MachineConfigNode.
func TestBadMachineConfig(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()

	disks := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=bad\n", 0o644}}, nil)
	disks.Storage.Disks = []ign3types.Disk{{Device: "/dev/vdb", WipeTable: ptr(true)}}
	fsys := ignition(nil, nil)
	fsys.Storage.Filesystems = []ign3types.Filesystem{{Device: "/dev/vdc", Format: ptr("xfs"), Path: ptr("/var/data")}}
	remote := ignition(nil, nil)
	remote.Storage.Files = []ign3types.File{{Node: ign3types.Node{Path: "/etc/tandem-test/remote.conf"},
		FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: ptr("https://config.invalid/remote.conf")}}}}

	cases := []struct {
		name, image string
		cfg         any
		state       string
		reason      string // substring a person can act on
	}{
		{"disks", w.imageB, disks, constants.MachineConfigDaemonStateUnreconcilable, "storage.disks"},
		{"filesystems", w.imageB, fsys, constants.MachineConfigDaemonStateUnreconcilable, "storage.filesystems"},
		{"invalid-ignition", w.imageB, json.RawMessage(`{"ignition":{"version":"9.9.9"}}`), constants.MachineConfigDaemonStateUnreconcilable, "version"},
		{"remote-file", w.imageB, remote, constants.MachineConfigDaemonStateUnreconcilable, "only data: URLs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfgName := "rendered-worker-bad-" + tc.name
			w.createMC(cfgName, tc.image, tc.cfg)
			sn := w.installNode("bad-"+tc.name, cfgA, a, w.imageA, framework.SimNodeOptions{})
			w.annotate(sn.Name, map[string]string{
				constants.StageConfigAnnotation:   cfgName,
				constants.DesiredConfigAnnotation: cfgName,
			})
			n := w.waitFor(sn, "state="+tc.state, updateTimeout, func(n *corev1.Node) bool {
				return n.Annotations[constants.StateAnnotation] == tc.state
			})
			reason := n.Annotations[constants.ReasonAnnotation]
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not mention %q", reason, tc.reason)
			}
			t.Logf("%s: state=%s reason=%q", tc.name, tc.state, reason)
			// Give the daemon time to do something wrong, then check nothing happened.
			time.Sleep(time.Second)
			n = w.node(sn.Name)
			if n.Spec.Unschedulable || n.Annotations[constants.DesiredDrainAnnotation] != "" {
				t.Errorf("bad config drained the node: %s", describe(n))
			}
			if n.Annotations[constants.CurrentConfigAnnotation] != cfgA || n.Annotations[constants.StagedConfigAnnotation] == cfgName {
				t.Errorf("bad config reported as staged or current: %s", describe(n))
			}
			if got := bootedImage(t, sn); got != w.imageA {
				t.Errorf("booted %s, want %s", got, w.imageA)
			}
			if st, _, err := sn.Staged(); err != nil || st != nil {
				t.Errorf("staged deployment left for a bad config: %+v %v", st, err)
			}
			checkFiles(t, sn, nil, &a)
			m := w.mcn(sn.Name)
			c := condition(m, mcfgv1.MachineConfigNodeNodeDegraded)
			if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, tc.reason) {
				t.Errorf("MachineConfigNode NodeDegraded: %+v", c)
			}
		})
	}
}

// TestUnpullableImageStageFails: an image the registry does not have fails
// the stage, which touched nothing: the node stays Done and in service
// (not Degraded, not drained), with the failure on the stageFailure
// annotation and the MachineConfigNode's StageFailed condition, retried
// (attempts grow) until the config is withdrawn, which clears it.
func TestUnpullableImageStageFails(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	missing := w.registry.Host() + "/os@sha256:" + strings.Repeat("0", 64)
	cfgName := "rendered-worker-unpullable"
	w.createMC(cfgName, missing, ignition(nil, nil))
	sn := w.installNode("unpullable", cfgA, a, w.imageA, framework.SimNodeOptions{})
	w.annotate(sn.Name, map[string]string{
		constants.StageConfigAnnotation:   cfgName,
		constants.DesiredConfigAnnotation: cfgName,
	})
	var f constants.StageFailure
	n := w.waitFor(sn, "a stage failure retried at least twice", updateTimeout, func(n *corev1.Node) bool {
		got, ok, err := constants.ParseStageFailure(n.Annotations[constants.StageFailureAnnotation])
		f = got
		return err == nil && ok && got.Attempts >= 2
	})
	t.Logf("unpullable-image: state=%s stageFailure=%+v", n.Annotations[constants.StateAnnotation], f)
	if f.Config != cfgName || !strings.Contains(f.Reason, strings.Repeat("0", 12)) {
		t.Errorf("stage failure %+v does not name %s and the missing image", f, cfgName)
	}
	if st := n.Annotations[constants.StateAnnotation]; st != constants.MachineConfigDaemonStateDone {
		t.Errorf("state=%s, want Done: a failed stage leaves the node in service", st)
	}
	if n.Spec.Unschedulable || n.Annotations[constants.DesiredDrainAnnotation] != "" {
		t.Errorf("a failed stage drained the node: %s", describe(n))
	}
	if got := bootedImage(t, sn); got != w.imageA {
		t.Errorf("booted %s, want %s", got, w.imageA)
	}
	checkFiles(t, sn, nil, &a)
	m := w.mcn(sn.Name)
	if c := condition(m, mcfgv1.StateProgress(daemon.ConditionStageFailed)); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, cfgName) {
		t.Errorf("MachineConfigNode StageFailed: %+v", c)
	}
	if c := condition(m, mcfgv1.MachineConfigNodeNodeDegraded); c != nil && c.Status == metav1.ConditionTrue {
		t.Errorf("MachineConfigNode NodeDegraded: %+v", c)
	}
	// The controller's part: the grant goes back; the daemon then clears
	// the failure of a config it no longer stages.
	w.annotate(sn.Name, map[string]string{
		constants.StageConfigAnnotation:   cfgA,
		constants.DesiredConfigAnnotation: cfgA,
	})
	w.waitFor(sn, "the stage failure cleared", updateTimeout, func(n *corev1.Node) bool {
		_, has := n.Annotations[constants.StageFailureAnnotation]
		return !has
	})
	// The conditions follow the annotations (pkg/daemon/report.go): wait.
	var c *metav1.Condition
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		c = condition(w.mcn(sn.Name), mcfgv1.StateProgress(daemon.ConditionStageFailed))
		if c != nil && c.Status == metav1.ConditionFalse {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MachineConfigNode StageFailed a minute after the withdrawal: %+v", c)
		}
	}
	t.Logf("after the withdrawal: StageFailed=%s %s: %s", c.Status, c.Reason, c.Message)
}

func ptr[T any](v T) *T { return &v }
