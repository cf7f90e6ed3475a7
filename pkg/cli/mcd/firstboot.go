package mcd

import (
	"errors"

	"github.com/spf13/cobra"
)

// encapsulatedConfigPath is where the machine-config-server's Ignition
// leaves the node's first MachineConfig (pkg/daemon/constants
// MachineConfigEncapsulatedPath, release-4.21).
const encapsulatedConfigPath = "/etc/ignition-machine-config-encapsulated.json"

type firstbootOptions struct {
	rootMount   string
	persistNics bool
	configFile  string
}

// newFirstboot is the command a new node's machine-config-daemon-firstboot
// unit runs from the MCO image (templates/common/_base/units/
// machine-config-daemon-firstboot.service.yaml, release-4.21).
func newFirstboot() *cobra.Command {
	o := &firstbootOptions{}
	cmd := &cobra.Command{
		Use:                   "firstboot-complete-machineconfig",
		DisableFlagsInUseLine: true,
		Short:                 "Complete the host's initial boot into a MachineConfig",
		Args:                  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFirstboot(cmd, o)
		},
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.rootMount, "root-mount", "/rootfs", "where the node's root filesystem is mounted for chroot and file manipulation")
	f.BoolVar(&o.persistNics, "persist-nics", false, "Run nmstatectl persist-nic-names")
	f.StringVar(&o.configFile, "machineconfig-file", encapsulatedConfigPath, "The MachineConfig file on-disk to use as the source of truth.")
	return cmd
}

func runFirstboot(_ *cobra.Command, _ *firstbootOptions) error {
	return errors.New("firstboot-complete-machineconfig is not implemented yet")
}
