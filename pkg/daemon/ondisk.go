package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/tandem-mco/tandem/pkg/daemon/certs"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// The MCO daemon's on-disk files (openshift/machine-config-operator
// pkg/daemon/daemon.go and pkg/daemon/constants/constants.go, release-4.20 at
// afed09939d80). tandem writes and reads them the same way, so a stock MCD
// that comes back finds the truth in them.
const (
	// OnDiskConfigPath holds the JSON of the MachineConfig the node runs (or,
	// mid-update, the one it reboots into).
	OnDiskConfigPath = "/etc/machine-config-daemon/currentconfig"
	// OnDiskImagePath holds the layered OS image the node runs ("" without
	// on-cluster layering, which tandem does not do).
	OnDiskImagePath = "/etc/machine-config-daemon/currentimage"
	// ForceFilePath, while it exists, makes the next update reboot whatever
	// it changes and skips the on-disk check; it is removed when used.
	ForceFilePath = "/run/machine-config-daemon-force"
)

func (d *Daemon) hostPath(p string) string { return filepath.Join(d.opts.Root, p) }

// readOnDiskConfig returns the MachineConfig of the on-disk currentconfig,
// nil when the file is absent.
func (d *Daemon) readOnDiskConfig() (*mcfgv1.MachineConfig, error) {
	mc, err := readMachineConfigFile(d.hostPath(OnDiskConfigPath), OnDiskConfigPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return mc, err
}

// readMachineConfigFile reads the MachineConfig JSON at path (what names
// it in errors); a missing file's error wraps os.ErrNotExist.
func readMachineConfigFile(path, what string) (*mcfgv1.MachineConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	mc := &mcfgv1.MachineConfig{}
	if err := json.Unmarshal(b, mc); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", what, err)
	}
	if mc.Name == "" {
		return nil, fmt.Errorf("%s names no MachineConfig", what)
	}
	return mc, nil
}

// observeOnDisk fills OnDiskConfig, OnDiskConfigInvalid and ForceFile.
// The check of a config that differs from the annotation is the MCO's
// validateOnDiskState: the booted OS image and every file and unit.
func (d *Daemon) observeOnDisk(ob *observation) error {
	_, err := os.Stat(d.hostPath(ForceFilePath))
	ob.ForceFile = err == nil
	if ob.InitialAnnotations, err = initialAnnotations(d.opts.Root); err != nil {
		return err
	}
	mc, err := d.readOnDiskConfig()
	if err != nil || mc == nil {
		return err
	}
	ob.OnDiskConfig = mc.Name
	if mc.Name == ob.Node.Current || ob.Record != nil || ob.ForceFile {
		return nil
	}
	ob.OnDiskConfigInvalid = d.checkDisk(ob, mc)
	return nil
}

// checkDisk returns why the disk does not hold mc, "" when it does.
func (d *Daemon) checkDisk(ob *observation, mc *mcfgv1.MachineConfig) string {
	if img := NormalizeImage(mc.Spec.OSImageURL); img != "" && img != ob.OS.Booted.Image {
		return fmt.Sprintf("expected target osImageURL %q, have %q", img, ob.OS.Booted.Image)
	}
	ign, err := mcfg.Parse(mc)
	if err != nil {
		return err.Error()
	}
	nodes, err := files.Plan(d.opts.Root, nil, ign, d.owners())
	if err != nil {
		return err.Error()
	}
	if err := d.writer.Verify(validated(nodes)); err != nil {
		return err.Error()
	}
	return ""
}

// validated are the nodes an on-disk validation checks: not the
// certificate writer's files, whose content it owns (certs.ValidationSkips).
func validated(nodes []files.Node) []files.Node {
	return slices.DeleteFunc(slices.Clone(nodes), func(n files.Node) bool { return certs.ValidationSkips(n.Path) })
}

// forUpdate are the nodes an update writes or removes: not the kubelet CA,
// which the certificate writer keeps (certs.UpdateSkipsWrite), nor the
// certificate bundles a config no longer lists (certs.UpdateKeepsDropped).
func forUpdate(nodes []files.Node) []files.Node {
	return slices.DeleteFunc(slices.Clone(nodes), func(n files.Node) bool {
		return certs.UpdateSkipsWrite(n.Path) || (n.Kind == files.KindAbsent && certs.UpdateKeepsDropped(n.Path))
	})
}

// storeOnDiskConfig writes the on-disk currentconfig (and an empty
// currentimage) for the named config, atomically, as the MCO's
// storeCurrentConfigOnDisk does.
func (d *Daemon) storeOnDiskConfig(ob *observation, name string) error {
	pc := ob.configs[name]
	if pc == nil {
		return fmt.Errorf("MachineConfig %s is not available to record in %s", name, OnDiskConfigPath)
	}
	return storeMachineConfigOnDisk(d.opts.Root, pc.mc)
}

// storeMachineConfigOnDisk writes mc as the on-disk currentconfig under
// root (and an empty currentimage).
func storeMachineConfigOnDisk(root string, mc *mcfgv1.MachineConfig) error {
	b, err := json.Marshal(mc)
	if err != nil {
		return err
	}
	// WriteFileAtomic makes missing directories, durably.
	if err := files.WriteFileAtomic(filepath.Join(root, OnDiskConfigPath), b, 0o644, -1, -1); err != nil {
		return fmt.Errorf("writing %s: %w", OnDiskConfigPath, err)
	}
	if err := files.WriteFileAtomic(filepath.Join(root, OnDiskImagePath), nil, 0o644, -1, -1); err != nil {
		return fmt.Errorf("writing %s: %w", OnDiskImagePath, err)
	}
	return nil
}

// consumeForceFile removes the force file once the update it forced is
// recorded (the MCO removes it when it computes the update's actions).
func (d *Daemon) consumeForceFile(ob *observation) error {
	if !ob.ForceFile {
		return nil
	}
	if err := files.RemoveDurably(d.hostPath(ForceFilePath)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", ForceFilePath, err)
	}
	return nil
}
