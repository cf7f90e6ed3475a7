// Package clicommon holds what tandem's two MCO binaries share on their
// command lines: the MCO's root flags (klog's, --payload-version), its
// metrics TLS flags and the version subcommand. The MCO's binaries are cobra
// commands (cmd/machine-config-daemon and cmd/machine-config-controller at
// release-4.21); the operator's DaemonSet and Deployment run them with a
// subcommand first ("start ..."), which Go's flag package would stop at.
package clicommon

import (
	"crypto/tls"
	goflag "flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/version"
)

// Root is a binary's root command with the MCO's persistent flags: klog's
// (--v, --logtostderr, ...) and --payload-version, which lands in
// *payloadVersion (default $RELEASE_VERSION, as the MCO's pkg/version).
func Root(name, short string, payloadVersion *string) *cobra.Command {
	root := &cobra.Command{
		Use:           name,
		Short:         short,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(name),
		// A bare invocation lists the subcommands, as the MCO's does.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %s", args[0], name)
			}
			return cmd.Help()
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	klogFlags := goflag.NewFlagSet(name, goflag.ContinueOnError)
	klog.InitFlags(klogFlags)
	root.PersistentFlags().AddGoFlagSet(klogFlags)
	*payloadVersion = os.Getenv("RELEASE_VERSION")
	root.PersistentFlags().StringVar(payloadVersion, "payload-version", *payloadVersion, "Version of the openshift release")
	return root
}

// VersionCommand prints the MCO's version line ("MachineConfigDaemon
// <raw>-<hash>") and tandem's own.
func VersionCommand(program, name string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of " + name,
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			info := version.Get()
			fmt.Fprintln(cmd.OutOrStdout(), info.MCOString(program))
			fmt.Fprintln(cmd.OutOrStdout(), info.String(name))
		},
	}
}

// TLSFlags are the MCO's --tls-cipher-suites and --tls-min-version, for
// the metrics listener.
type TLSFlags struct {
	CipherSuites []string
	MinVersion   string
}

// Bind adds the flags with the MCO's defaults.
func (t *TLSFlags) Bind(cmd *cobra.Command) {
	cmd.PersistentFlags().StringSliceVar(&t.CipherSuites, "tls-cipher-suites", nil, "Comma-separated list of cipher suites for the metrics server")
	cmd.PersistentFlags().StringVar(&t.MinVersion, "tls-min-version", "VersionTLS12", "Minimum TLS version supported for the metrics server")
}

// Config is the TLS configuration the flags name. Like the MCO's
// GetGoTLSConfig (pkg/controller/common/helpers.go, release-4.21), a value
// Go does not know is logged and the intermediate profile used instead: the
// operator's values come from the APIServer's validated tlsSecurityProfile,
// and a daemon that refused them would leave every node without its daemon.
func (t TLSFlags) Config() *tls.Config {
	minVersion, verr := cliflag.TLSVersion(t.MinVersion)
	suites, serr := cliflag.TLSCipherSuites(t.CipherSuites)
	if verr != nil || serr != nil {
		klog.ErrorS(fmt.Errorf("version: %v, cipher suites: %v", verr, serr), "Unusable TLS flags; the metrics listener uses TLS 1.2 with Go's default cipher suites")
		return &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return &tls.Config{MinVersion: minVersion, CipherSuites: suites}
}

// Unsupported refuses a flag tandem does not implement when it was set,
// naming it, instead of ignoring it.
func Unsupported(cmd *cobra.Command, why map[string]string) error {
	for name, reason := range why {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fmt.Errorf("--%s is not supported by tandem's %s: %s", name, cmd.Root().Name(), reason)
		}
	}
	return nil
}
