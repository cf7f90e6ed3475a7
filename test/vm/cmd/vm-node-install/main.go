// Command vm-node-install installs the VM node on its first boot, as
// coreos-installer and Ignition do on a real one: the rpm-ostree double's
// sysroot booting the initial OS image, and the initial MachineConfig's
// files and units. It reads an install file (test/vm.InstallSpec, JSON) and
// syncs everything before it returns: a power loss right after it keeps
// the node installed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/mcfg"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/vm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: vm-node-install INSTALL.json")
		os.Exit(2)
	}
	if err := install(ctx, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "vm-node-install:", err)
		os.Exit(1)
	}
}

// pullSecret is where every rendered config lays the cluster's pull secret.
const pullSecret = "/var/lib/kubelet/config.json"

func install(ctx context.Context, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var spec vm.InstallSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	sysroot := os.Getenv(osdouble.EnvSysroot)
	if sysroot == "" {
		return fmt.Errorf("%s is not set", osdouble.EnvSysroot)
	}
	if spec.MachineConfig != nil {
		cfg, err := mcfg.Parse(spec.MachineConfig)
		if err != nil {
			return fmt.Errorf("initial MachineConfig %s: %w", spec.MachineConfig.Name, err)
		}
		nodes, err := files.Plan("/", nil, cfg, files.PasswdOwners{Root: "/"})
		if err != nil {
			return err
		}
		w := &files.Writer{Root: "/"}
		if err := w.Apply(nodes, nil); err != nil {
			return fmt.Errorf("writing the files of %s: %w", spec.MachineConfig.Name, err)
		}
		fmt.Printf("vm-node-install: wrote %d paths of %s\n", len(nodes), spec.MachineConfig.Name)
	}
	for p, c := range spec.Files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
	}
	// The first boot pulls with the pull secret the config laid, as
	// OpenShift's does, trusting what the machine trusts.
	initial := osdouble.InitialOS{ImageRef: spec.ImageRef, Root: "/"}
	if _, err := os.Stat(pullSecret); err == nil {
		initial.AuthFile = pullSecret
	}
	if err := osdouble.Init(ctx, sysroot, initial); err != nil {
		return err
	}
	syscall.Sync()
	fmt.Printf("vm-node-install: booting %s\n", spec.ImageRef)
	return nil
}
