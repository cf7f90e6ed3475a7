//go:build integration

package daemon_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestRebootRequest: a rebootRequest (HostMaintenance Reboot) reboots an
// up-to-date node once and is acknowledged in lastReboot; the OS and the
// files stay as they were.
func TestRebootRequest(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	sn := w.installNode("reboot-request", cfgA, a, w.imageA, framework.SimNodeOptions{})
	w.annotate(sn.Name, map[string]string{constants.RebootRequestAnnotation: "req-1"})
	n := w.waitFor(sn, "lastReboot=req-1", updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.LastRebootAnnotation] == "req-1"
	})
	if boots := sn.Boots(); len(boots) != 2 || boots[1].Cause != "reboot" {
		t.Errorf("boots %+v, want exactly one reboot", boots)
	}
	if n.Annotations[constants.CurrentConfigAnnotation] != cfgA || n.Annotations[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
		t.Errorf("node after the reboot: %s", describe(n))
	}
	if got := bootedImage(t, sn); got != w.imageA {
		t.Errorf("booted %s, want %s", got, w.imageA)
	}
	checkFiles(t, sn, nil, &a)
	w.waitFor(sn, "record forgotten", updateTimeout, func(*corev1.Node) bool {
		r, err := newStoreFor(sn).Load()
		return err == nil && r == nil
	})
	if boots := sn.Boots(); len(boots) != 2 {
		t.Errorf("served request rebooted again: %+v", boots)
	}
}
