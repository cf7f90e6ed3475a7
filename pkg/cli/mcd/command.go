// Package mcd is the machine-config-daemon command line: the MCO's
// subcommands and flags (cmd/machine-config-daemon at release-4.21), so the
// operator's DaemonSet and a new node's firstboot unit run tandem unchanged,
// and tandem's own flags beside them.
package mcd

import (
	"github.com/spf13/cobra"

	"github.com/tandem-mco/tandem/pkg/cli/clicommon"
)

const name = "machine-config-daemon"

// New returns the machine-config-daemon root command.
func New() *cobra.Command {
	var payloadVersion string
	root := clicommon.Root(name, "Run Machine Config Daemon", &payloadVersion)
	root.AddCommand(newStart(&payloadVersion), newFirstboot(), clicommon.VersionCommand("MachineConfigDaemon", name))
	return root
}
