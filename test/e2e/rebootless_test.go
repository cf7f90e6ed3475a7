//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	opv1 "github.com/openshift/api/operator/v1"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/nodemeta"
	"github.com/tandem-mco/tandem/pkg/daemon"
)

// TestRebootlessChanges: an SSH key, the pull secret and a safe
// registries.conf change roll across the pool without a reboot or a drain,
// each carried out with its node disruption policy action (the SSH policy is
// an admin's Restart of sshd.service, read from MachineConfiguration
// cluster's status; registries.conf is the MCO's Special: a crio reload).
// Then a change no policy covers (an unlisted file) still reboots every
// node once, drained.
func TestRebootlessChanges(t *testing.T) {
	s := newAdoptScene(t, 3)
	rendered := s.installMCOState([]*mcfgv1.MachineConfig{
		baseMC(baseRegistries),
		pullSecretMC(s.pullSecret("b2xkOnNlY3JldA==")),
		sshKeyMC("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOld admin@example.com"),
	})
	s.createMachineConfiguration()
	s.startTandem()
	s.waitFor("every daemon idle on "+rendered, sceneWait, func() (bool, string) { return s.daemonsIdleOn(rendered) })

	newKey := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINew admin@example.com"
	newSecret := s.pullSecret("bmV3OnNlY3JldA==")
	mirror := "\n[[registry.mirror]]\nlocation = 'mirror.example.com/openshift-release-dev'\npull-from-mirror = 'digest-only'\n"
	changes := []struct {
		what string
		mc   *mcfgv1.MachineConfig
	}{
		{"SSH key", sshKeyMC(newKey)},
		{"pull secret", pullSecretMC(newSecret)},
		{"registries.conf (a digest-only mirror)", baseMC(baseRegistries + mirror)},
	}
	current, done := rendered, 0
	for _, c := range changes {
		current = s.rollOut(c.what, c.mc, current)
		done++
	}
	reboots, drains := s.reboots(), s.watch.count()
	fmt.Printf("rebootless: changes=%d reboots=%d drains=%d\n", done, reboots, drains)
	if reboots != 0 || drains != 0 {
		t.Errorf("rebootless changes disrupted nodes: reboots=%d drains=%d", reboots, drains)
	}
	// The MCO's UpdateInProgress taint: on nodes waiting for their turn (one
	// at a time here), gone once every node has its grant.
	if got := s.watch.taintedNodes(); got == 0 {
		t.Errorf("no node was seen with the UpdateInProgress taint during the rollouts")
	}
	for _, name := range s.names {
		for _, tn := range s.node(name).Spec.Taints {
			if tn.MatchTaint(&nodemeta.UpdateInProgressTaint) {
				t.Errorf("node %s keeps the UpdateInProgress taint after the rollout", name)
			}
		}
	}
	for _, name := range s.names {
		if got := s.hostFile(name, "/home/core/.ssh/authorized_keys.d/ignition"); got != newKey+"\n" {
			t.Errorf("node %s authorized_keys = %q", name, got)
		}
		if got := s.hostFile(name, "/var/lib/kubelet/config.json"); got != newSecret {
			t.Errorf("node %s pull secret = %q", name, got)
		}
		if got := s.hostFile(name, "/etc/containers/registries.conf"); !strings.Contains(got, "mirror.example.com") {
			t.Errorf("node %s registries.conf = %q", name, got)
		}
		log := s.hostFile(name, "/../unit-actions.log") // the harness host's record, beside the node root
		if !strings.Contains(log, "restart sshd.service") || !strings.Contains(log, "reload crio.service") {
			t.Errorf("node %s unit actions (want the SSH policy's restart and crio's reload):\n%s", name, log)
		}
	}

	// An unlisted file needs a reboot: every node reboots once, drained.
	motd := sceneMC("50-worker-motd", filesIgn(ignFile{"/etc/motd", "hello\n", 0o644}))
	if _, err := s.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(s.ctx, motd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.waitRolledOut("an unlisted file", current)
	if got := s.reboots(); got != len(s.names) {
		t.Errorf("an unlisted file: %d reboots, want one per node (%d)", got, len(s.names))
	}
	if got := s.watch.count(); got < len(s.names) {
		t.Errorf("an unlisted file: %d drains, want every node drained", got)
	}
	for _, name := range s.names {
		if got := s.hostFile(name, "/etc/motd"); got != "hello\n" {
			t.Errorf("node %s /etc/motd = %q", name, got)
		}
	}
}

// createMachineConfiguration makes MachineConfiguration cluster as the MCO's
// operator keeps it: an admin's SSH key policy in the spec and the merged
// policies in the status.
func (s *adoptScene) createMachineConfiguration() {
	t := s.t
	op, err := operatorclientset.NewForConfig(s.cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	spec := opv1.NodeDisruptionPolicyConfig{SSHKey: opv1.NodeDisruptionPolicySpecSSHKey{Actions: []opv1.NodeDisruptionPolicySpecAction{
		{Type: opv1.RestartSpecAction, Restart: &opv1.RestartService{ServiceName: "sshd.service"}}}}}
	mc := &opv1.MachineConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	mc.Spec.ManagementState = "Managed"
	mc.Spec.NodeDisruptionPolicy = spec
	created, err := op.OperatorV1().MachineConfigurations().Create(s.ctx, mc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating MachineConfiguration cluster: %v", err)
	}
	created.Status.ObservedGeneration = created.Generation
	created.Status.NodeDisruptionPolicyStatus.ClusterPolicies = daemon.MergeClusterPolicies(spec)
	if _, err := op.OperatorV1().MachineConfigurations().UpdateStatus(s.ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("MachineConfiguration status: %v", err)
	}
}

// rollOut replaces (or creates) mc and waits until every node runs the
// pool's next rendered config; it returns that config's name.
func (s *adoptScene) rollOut(what string, mc *mcfgv1.MachineConfig, from string) string {
	t := s.t
	api := s.cp.MCO.MachineconfigurationV1().MachineConfigs()
	old, err := api.Get(s.ctx, mc.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old.Spec = mc.Spec
	if _, err := api.Update(s.ctx, old, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return s.waitRolledOut(what, from)
}

// waitRolledOut waits for the pool to target a config other than from and
// for every node to be Done on it with its daemon idle.
func (s *adoptScene) waitRolledOut(what, from string) string {
	var target string
	s.waitFor(what+": the pool targets a new rendered config", sceneWait, func() (bool, string) {
		target = s.pool().Spec.Configuration.Name
		return target != from, "pool targets " + target
	})
	s.waitFor(what+": every node Done on "+target, sceneWait, func() (bool, string) {
		for _, name := range s.names {
			a := s.node(name).Annotations
			if a[constants.CurrentConfigAnnotation] != target || a[constants.StateAnnotation] != constants.MachineConfigDaemonStateDone {
				return false, fmt.Sprintf("node %s current=%s state=%s reason=%s", name, a[constants.CurrentConfigAnnotation], a[constants.StateAnnotation], a[constants.ReasonAnnotation])
			}
		}
		return s.daemonsIdleOn(target)
	})
	return target
}
