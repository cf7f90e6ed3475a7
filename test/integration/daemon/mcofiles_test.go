//go:build integration

package daemon_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
)

// withCore returns cfg with the core user holding hash (nil: none).
func withCore(cfg ign3types.Config, hash *string) ign3types.Config {
	cfg.Passwd.Users = []ign3types.PasswdUser{{Name: "core", PasswordHash: hash}}
	return cfg
}

func writeUsers(t *testing.T, sn *framework.SimNode, shadow string) {
	t.Helper()
	for p, c := range map[string]string{
		"/etc/passwd": "root:x:0:0::/root:/bin/bash\ncore:x:1000:1000::/var/home/core:/bin/bash\n",
		"/etc/group":  "root:x:0:\ncore:x:1000:\n",
		"/etc/shadow": shadow,
	} {
		if err := os.MkdirAll(filepath.Dir(sn.HostPath(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sn.HostPath(p), []byte(c), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPasswordHashAndForceFile: a passwordHash is applied to /etc/shadow
// without a reboot (the MCO's SSH key policy, None, covers passwd); with
// /run/machine-config-daemon-force present the next change reboots even so,
// and the force file is gone after; the on-disk currentconfig follows each
// update.
func TestPasswordHashAndForceFile(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	h1, h2 := "$6$rounds=4096$salt$firsthash", "$6$rounds=4096$salt$secondhash"
	p1, p2 := withCore(a, &h1), withCore(a, &h2)
	w.createMC("rendered-worker-pw1", w.imageA, p1)
	w.createMC("rendered-worker-pw2", w.imageA, p2)
	sn := w.installNode("passwd", cfgA, a, w.imageA, framework.SimNodeOptions{})
	writeUsers(t, sn, "root:*:19000:0:99999:7:::\ncore:*:19000:0:99999:7:::\n")

	done := func(cfg string) *corev1.Node {
		return w.waitFor(sn, "Done on "+cfg, updateTimeout, func(n *corev1.Node) bool {
			return n.Annotations[constants.CurrentConfigAnnotation] == cfg &&
				n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
		})
	}
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: "rendered-worker-pw1"})
	done("rendered-worker-pw1")
	waitSettled(w, sn)
	if b, _ := os.ReadFile(sn.HostPath("/etc/shadow")); !strings.Contains(string(b), "core:"+h1+":19000:") || !strings.HasPrefix(string(b), "root:*:") {
		t.Errorf("/etc/shadow = %q, want core's hash %s and root untouched", b, h1)
	}
	if boots := sn.Boots(); len(boots) != 1 {
		t.Errorf("a passwordHash change rebooted the node: %+v", boots)
	}
	if odc, _ := os.ReadFile(sn.HostPath(daemon.OnDiskConfigPath)); !strings.Contains(string(odc), `"name":"rendered-worker-pw1"`) {
		t.Errorf("on-disk currentconfig does not name rendered-worker-pw1: %.200s", odc)
	}

	force := sn.HostPath(daemon.ForceFilePath)
	if err := os.MkdirAll(filepath.Dir(force), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(force, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: "rendered-worker-pw2"})
	done("rendered-worker-pw2")
	waitSettled(w, sn)
	if boots := sn.Boots(); len(boots) != 2 || boots[1].Cause != "reboot" {
		t.Errorf("with the force file the change did not reboot once: %+v", boots)
	}
	if _, err := os.Stat(force); !os.IsNotExist(err) {
		t.Errorf("force file left after the update it forced: %v", err)
	}
	if b, _ := os.ReadFile(sn.HostPath("/etc/shadow")); !strings.Contains(string(b), "core:"+h2+":") {
		t.Errorf("/etc/shadow = %q, want %s", b, h2)
	}
	checkNoRecord(t, sn)
}

// TestPasswordHashForAMissingUserIsUnreconcilable: a hash for a user the
// node does not have is reported with a reason, never dropped.
func TestPasswordHashForAMissingUserIsUnreconcilable(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	h := "$6$salt$hash"
	w.createMC("rendered-worker-pw-missing", w.imageA, withCore(a, &h))
	sn := w.installNode("passwd-missing", cfgA, a, w.imageA, framework.SimNodeOptions{})
	writeUsers(t, sn, "root:*:19000:0:99999:7:::\n")
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: "rendered-worker-pw-missing"})
	n := w.waitFor(sn, "Unreconcilable", updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateUnreconcilable
	})
	if r := n.Annotations[constants.ReasonAnnotation]; !strings.Contains(r, "passwordHash of user core") {
		t.Errorf("reason = %q, want it to name the passwordHash of core", r)
	}
	if n.Spec.Unschedulable || n.Annotations[constants.CurrentConfigAnnotation] != cfgA {
		t.Errorf("node moved: %s", describe(n))
	}
}
