package mcoworld

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/test/framework"
)

// The files the machine-config-server adds to a node's Ignition
// (pkg/server/server.go appendEncapsulated and appendNodeAnnotations,
// pkg/daemon/constants, release-4.21).
const (
	encapsulatedPath    = "/etc/ignition-machine-config-encapsulated.json"
	nodeAnnotationsPath = "/etc/machine-config-daemon/node-annotations.json"
)

// bootImageFiles are what the boot image holds before Ignition runs: the
// os-release and core user of RHCOS 9.6, and the registry's CA (the
// installed machine trusts the release registry).
func (w *World) bootImageFiles() map[string]string {
	files := map[string]string{
		"/usr/lib/os-release": framework.RHCOS96OSRelease,
		"/etc/passwd":         "root:x:0:0:root:/root:/bin/bash\ncore:x:1000:1000:CoreOS Admin:/var/home/core:/bin/bash\n",
		"/etc/group":          "root:x:0:\ncore:x:1000:\n",
		"/etc/shadow":         "root:*:19000:0:99999:7:::\ncore:*:19000:0:99999:7:::\n",
	}
	if w.opts.Registry != nil {
		for p, c := range w.opts.Registry.TrustFiles() {
			files[p] = c
		}
	}
	return files
}

// installNode lays node's first boot as an install does: the boot image's
// files, the OS's units the config enables without shipping them, and the
// machine-config-server's Ignition for pool (the pool's rendered config,
// the encapsulated config with its Ignition emptied, the initial node
// annotations), laid by the world's Ignition. It waits (bounded) for the
// pool's first rendered config, as a new machine's Ignition waits for the
// machine-config-server to answer.
func (w *World) installNode(ctx context.Context, node, pool, root string) error {
	var rendered *mcfgv1.MachineConfig
	err := framework.Await(ctx, "pool "+pool+"'s rendered config for "+node+"'s install", 15*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		name := p.Spec.Configuration.Name
		if name == "" {
			return false, "no rendered config yet", nil
		}
		rendered, err = w.CP.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		return true, "", nil
	})
	if err != nil {
		return err
	}
	for p, c := range w.bootImageFiles() {
		if err := writeNodeFile(root, p, []byte(c)); err != nil {
			return err
		}
	}
	if err := layOSUnits(root, rendered.Spec.Config.Raw); err != nil {
		return err
	}
	if err := LayIgnition(root, rendered.Spec.Config.Raw); err != nil {
		return fmt.Errorf("node %s: %w", node, err)
	}
	enc := rendered.DeepCopy()
	empty, err := json.Marshal(map[string]any{"ignition": map[string]string{"version": "3.5.0"}})
	if err != nil {
		return err
	}
	enc.Spec.Config = runtime.RawExtension{Raw: empty}
	encJSON, err := json.Marshal(enc)
	if err != nil {
		return err
	}
	ann, err := json.Marshal(map[string]string{
		"machineconfiguration.openshift.io/currentConfig": rendered.Name,
		"machineconfiguration.openshift.io/desiredConfig": rendered.Name,
		"machineconfiguration.openshift.io/state":         "Done",
	})
	if err != nil {
		return err
	}
	if err := writeNodeFile(root, encapsulatedPath, encJSON); err != nil {
		return err
	}
	return writeNodeFile(root, nodeAnnotationsPath, ann)
}

// layOSUnits puts in /usr/lib/systemd/system the units a config enables
// without giving their contents (openvswitch.service, for one): RHCOS ships
// them, and the world's boot image must as well. Each is wanted by
// multi-user.target, as RHCOS's are.
func layOSUnits(root string, raw []byte) error {
	cfg, _, err := ign3.ParseCompatibleVersion(raw)
	if err != nil {
		return err
	}
	for _, u := range cfg.Systemd.Units {
		if u.Contents != nil || u.Enabled == nil || (u.Mask != nil && *u.Mask) {
			continue
		}
		p := filepath.Join("/usr/lib/systemd/system", u.Name)
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			continue
		}
		desc := strings.TrimSuffix(u.Name, ".service")
		unit := "[Unit]\nDescription=" + desc + " (the boot image's)\n\n[Service]\nExecStart=/bin/true\n\n[Install]\nWantedBy=multi-user.target\n"
		if err := writeNodeFile(root, p, []byte(unit)); err != nil {
			return err
		}
	}
	return nil
}

// nodeNICs are node's Ethernet NICs as the nmstatectl double sees them:
// two, with MAC addresses of the node's own.
func nodeNICs(node string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(node))
	b := h.Sum32()
	mac := func(i int) string {
		return fmt.Sprintf("52:54:%02x:%02x:%02x:%02x", byte(b>>24), byte(b>>16), byte(b>>8), byte(i))
	}
	return "ens3=" + mac(3) + ",ens4=" + mac(4)
}

// FirstbootEL checks that an installed node's first boot pinned its NICs
// on its RHCOS 9.6 host (SimNode.CheckNICsPinned).
func (w *World) FirstbootEL(node string) error {
	w.mu.Lock()
	n := w.nodes[node]
	w.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no node %s", node)
	}
	return n.CheckNICsPinned(nodeNICs(node))
}
