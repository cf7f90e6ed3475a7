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
	missingDigest := "sha256:" + strings.Repeat("0", 64)

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
		{"unpullable-image", w.registry.Host() + "/os@" + missingDigest, ignition(nil, nil), constants.MachineConfigDaemonStateDegraded, "Stage failed"},
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

func ptr[T any](v T) *T { return &v }
