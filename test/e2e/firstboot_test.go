//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// TestANewNodeJoins (issue 27, "A new node joins"): a cluster tandem runs
// gets a worker mid-life. The node comes up as the MCO's install leaves it
// (openshift/machine-config-operator release-4.21): Ignition wrote the
// rendered config's files, the machine-config-server's
// /etc/ignition-machine-config-encapsulated.json (the rendered config, its
// Ignition emptied: pkg/server/server.go appendEncapsulated) and
// /etc/machine-config-daemon/node-annotations.json (currentConfig =
// desiredConfig = the rendered config, state Done: getNodeAnnotation), and
// it boots an older boot image. Its first boot runs
// firstboot-complete-machineconfig (the machine-config-daemon-firstboot
// unit), which must bring the OS to the config and reboot; then the daemon
// starts on a Node without MCO annotations. It joins when its Node is Done
// on the pool's config, the pool counts it updated, it boots the config's
// image and its disk holds what the MCO leaves (the .bak files and the
// cluster's config as the on-disk currentconfig).
func TestANewNodeJoins(t *testing.T) {
	s := newAdoptScene(t, 1)
	s.installMCOState([]*mcfgv1.MachineConfig{
		baseMC(baseRegistries),
		pullSecretMC(s.pullSecret("b2xkOnNlY3JldA==")),
		sshKeyMC("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOld admin@example.com"),
	})
	s.startTandem()
	s.waitFor("the pool settled with its first node", sceneWait, func() (bool, string) {
		p := s.pool()
		return p.Status.UpdatedMachineCount == 1 && p.Status.MachineCount == 1,
			fmt.Sprintf("machines=%d updated=%d", p.Status.MachineCount, p.Status.UpdatedMachineCount)
	})
	target := s.pool().Spec.Configuration.Name
	rendered, err := s.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(s.ctx, target, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	const name = "worker-new"
	bootImage := s.newImage(7)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	s.layDisk(root, rendered)
	encapsulated := rendered.DeepCopy()
	encapsulated.Spec.Config = runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.5.0"}}`)}
	writeJSON(t, filepath.Join(root, daemon.EncapsulatedConfigPath), encapsulated)
	writeJSON(t, filepath.Join(root, daemon.InitialAnnotationsPath), map[string]string{
		constants.CurrentConfigAnnotation: target, constants.DesiredConfigAnnotation: target,
		constants.StateAnnotation: constants.MachineConfigDaemonStateDone,
	})
	nmstatectl, err := framework.BuildNmstatectlDouble(s.ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := s.reg.TrustFiles() // the installer trusts the registry's CA
	files["/usr/lib/os-release"] = framework.RHCOS96OSRelease
	node := framework.KwokNode(name, map[string]string{constants.NodeRoleLabelPrefix + scenePool: ""})
	if _, err := s.cp.Kube.CoreV1().Nodes().Create(s.ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating node %s: %v", name, err)
	}
	sim := framework.NewSimNode(t, framework.SimNodeOptions{
		Name: name, Dir: dir, Kubeconfig: s.cp.KubeconfigPath, Firstboot: true,
		DaemonBinary: s.bins.daemon, RPMOstreeBinary: s.bins.rpmOstree, InitialImage: bootImage,
		Files: files, NmstatectlBinary: nmstatectl, NICs: nodeNICs,
		// Initrd networking (static IPs given as kernel arguments), where
		// nmstate also pins the names by ifname= kernel arguments.
		InitialKargs: append(osdouble.DefaultKargs(), "rd.neednet=1"),
	})
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "firstboot.log"))
			t.Logf("firstboot log tail:\n%s\ndaemon log tail:\n%s", tail(string(b), 3000), tail(sim.DaemonLog(), 3000))
		}
	})

	joined := 0
	s.waitFor(name+" Done on "+target+" and counted by the pool", sceneWait, func() (bool, string) {
		if err := sim.Err(); err != nil {
			t.Fatal(err)
		}
		n, p := s.node(name), s.pool()
		a := n.Annotations
		ok := a[constants.CurrentConfigAnnotation] == target && a[constants.DesiredConfigAnnotation] == target &&
			a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone &&
			p.Status.MachineCount == 2 && p.Status.UpdatedMachineCount == 2 && p.Status.DegradedMachineCount == 0
		return ok, fmt.Sprintf("node %v; pool machines=%d updated=%d degraded=%d", a, p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.DegradedMachineCount)
	})
	booted, err := sim.Booted()
	if err != nil {
		t.Fatal(err)
	}
	boots := sim.Boots()
	nicsPinned := checkNICsPinned(t, sim, booted.Kargs)
	onDisk := map[string]bool{}
	for _, p := range []string{daemon.EncapsulatedConfigPath, daemon.EncapsulatedConfigBakPath, daemon.InitialAnnotationsPath, daemon.InitialAnnotationsBakPath} {
		_, err := os.Stat(filepath.Join(root, p))
		onDisk[p] = err == nil
	}
	var current mcfgv1.MachineConfig
	b, err := os.ReadFile(filepath.Join(root, daemon.OnDiskConfigPath))
	if err == nil {
		err = json.Unmarshal(b, &current)
	}
	switch {
	case booted.Origin == "" || !sameImage(booted.Origin, rendered.Spec.OSImageURL):
		t.Errorf("%s boots %q, want the config's %s", name, booted.Origin, rendered.Spec.OSImageURL)
	case len(boots) != 2 || boots[1].Cause != "reboot":
		t.Errorf("%s booted %d times (%+v), want its first boot and the reboot firstboot asked for", name, len(boots), boots)
	case onDisk[daemon.EncapsulatedConfigPath] || !onDisk[daemon.EncapsulatedConfigBakPath]:
		t.Errorf("the encapsulated config is not renamed to .bak: %v", onDisk)
	case onDisk[daemon.InitialAnnotationsPath] || !onDisk[daemon.InitialAnnotationsBakPath]:
		t.Errorf("node-annotations.json is not renamed to node-annotation.json.bak: %v", onDisk)
	case err != nil || current.Name != target || string(current.Spec.Config.Raw) != string(rendered.Spec.Config.Raw):
		t.Errorf("the on-disk currentconfig is not the cluster's %s (err %v, name %q)", target, err, current.Name)
	default:
		joined++
	}
	el := "missing"
	if nicsPinned {
		el = "ok"
	}
	fmt.Printf("firstboot: nodes=1 joined=%d os=rhcos-9.6 persist_nics=%s\n", joined, el)
}

// nodeNICs are the new node's Ethernet NICs, as the nmstatectl double sees them.
const nodeNICs = "ens3=52:54:00:0a:00:03,ens4=52:54:00:0a:00:04"

// checkNICsPinned checks the first line of the firstboot unit on an EL 9
// host (SimNode.CheckNICsPinned) and that the node boots with nmstate's
// ifname= kernel arguments (its initrd networking: rd.neednet).
func checkNICsPinned(t *testing.T, sim *framework.SimNode, kargs []string) bool {
	t.Helper()
	ok := true
	if err := sim.CheckNICsPinned(nodeNICs); err != nil {
		t.Error(err)
		ok = false
	}
	for _, nic := range strings.Split(nodeNICs, ",") {
		name, mac, _ := strings.Cut(nic, "=")
		if want := "ifname=" + name + ":" + mac; !slices.Contains(kargs, want) {
			t.Errorf("the node boots with %q, without %s", kargs, want)
			ok = false
		}
	}
	return ok
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameImage compares a deployment's origin with an osImageURL as the
// daemon does (transport prefixes stripped).
func sameImage(origin, osImageURL string) bool {
	return daemon.NormalizeImage(origin) == daemon.NormalizeImage(osImageURL)
}
