// Package mcc is the machine-config-controller command line: the MCO's
// subcommands and flags (cmd/machine-config-controller at release-4.21), so
// the operator's Deployment and the installer's bootstrap run tandem
// unchanged, and tandem's own flags beside them. The fork build (fork/)
// passes the MCO's controllers that tandem does not replace as an Upstream.
package mcc

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/cli/clicommon"
)

const name = "machine-config-controller"

// Upstream is what the fork build adds to tandem's controller: the MCO's
// template, kubelet-config, container-runtime-config, render,
// pinnedimageset, internalreleaseimage, bootimage and certrotation
// controllers, and its bootstrap render.
type Upstream interface {
	// RendersPools tells that the upstream set includes the MCO's render
	// controller, so tandem's own does not run.
	RendersPools() bool
	// Run runs the controllers while this process leads, until ctx ends.
	Run(ctx context.Context, p UpstreamParams) error
	// Bootstrap renders the installer's manifests into destDir, as the
	// MCO's `machine-config-controller bootstrap` does.
	Bootstrap(ctx context.Context, p BootstrapParams) error
	// Gatherer holds the upstream controllers' metrics.
	Gatherer() prometheus.Gatherer
}

// UpstreamParams is what the upstream controllers are started with.
type UpstreamParams struct {
	Config         *rest.Config
	Templates      string
	PayloadVersion string
}

// BootstrapParams are `bootstrap`'s flags. PayloadVersion is the root's
// --payload-version: the MCO's bootstrap reads the release's feature gates
// for that version (pkg/controller/bootstrap/bootstrap.go, release-4.21),
// so a render without it finds none.
type BootstrapParams struct {
	Templates, ManifestDir, DestDir, PullSecretFile, PayloadVersion string
}

// New returns the machine-config-controller root command; upstream is nil
// in tandem's own build.
func New(upstream Upstream) *cobra.Command {
	var payloadVersion, templates string
	root := clicommon.Root(name, "Run Machine Config Controller", &payloadVersion)
	root.PersistentFlags().StringVar(&templates, "templates", "/etc/mcc/templates", "Path to the template files used for creating MachineConfig objects")
	root.AddCommand(newStart(&templates, &payloadVersion, upstream), newBootstrap(&templates, &payloadVersion, upstream),
		clicommon.VersionCommand("MachineConfigController", name))
	return root
}

func newBootstrap(templates, payloadVersion *string, upstream Upstream) *cobra.Command {
	var p BootstrapParams
	cmd := &cobra.Command{
		Use:   "bootstrap",
		Short: "Starts Machine Config Controller in bootstrap mode",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if p.ManifestDir == "" || p.DestDir == "" {
				return errors.New("--dest-dir or --manifest-dir not set")
			}
			if upstream == nil {
				return errors.New("bootstrap renders with the MCO's templates and controllers, which only the MCO image build of tandem carries (make mco-image); this binary is tandem's standalone build")
			}
			p.Templates, p.PayloadVersion = *templates, *payloadVersion
			return upstream.Bootstrap(cmd.Context(), p)
		},
	}
	f := cmd.PersistentFlags()
	f.StringVar(&p.DestDir, "dest-dir", "", "The destination dir where MCC writes the generated machineconfigs and machineconfigpools.")
	f.StringVar(&p.ManifestDir, "manifest-dir", "", "The dir where MCC reads the controllerconfig, machineconfigpools and user-defined machineconfigs.")
	f.StringVar(&p.PullSecretFile, "pull-secret", "", "The pull secret file.")
	return cmd
}
