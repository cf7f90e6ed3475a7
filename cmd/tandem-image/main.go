// Command tandem-image builds tandem's OCI image: the static
// machine-config-daemon and machine-config-controller binaries at
// /usr/bin, as the MCO image carries them, on a base image or on none
// (scratch), written as an OCI image layout. It is what `make image` runs.
//
// With --fork-bin it builds the MCO image instead (make mco-image): the
// fork build's six binaries, the MCO's /manifests (with tandem's own) and
// /etc/mcc/templates, the operator as entrypoint.
//
//	tandem-image --output bin/image --tag tandem:v0.3.0 \
//	    [--base oci:/path/to/layout[:ref] | --base registry.example/ubi9:latest] \
//	    [--version v0.3.0] [--commit <sha>] [--binaries DIR]
//
// Push the layout with any OCI tool, e.g. `skopeo copy oci:bin/image:tandem:v0.3.0 docker://...`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"k8s.io/klog/v2"
)

func main() {
	var o Options
	fs := flag.CommandLine
	fs.StringVar(&o.Output, "output", "bin/image", "OCI image layout directory to write (created; an existing image with the same tag is replaced)")
	fs.StringVar(&o.Tag, "tag", "tandem:latest", "reference name recorded in the layout's index (org.opencontainers.image.ref.name)")
	fs.StringVar(&o.Base, "base", "", "base image: empty for none (scratch), oci:DIR[:REF] for an OCI layout, or a registry reference")
	fs.StringVar(&o.Arch, "arch", runtime.GOARCH, "GOARCH of the binaries and the image platform")
	fs.StringVar(&o.Version, "version", "", "version stamped into the binaries (-X pkg/version.Version); empty: git describe")
	fs.StringVar(&o.Commit, "commit", "", "commit stamped into the binaries (-X pkg/version.Commit); empty: git rev-parse HEAD")
	fs.StringVar(&o.Binaries, "binaries", "", "directory to build the binaries into; empty: a temporary directory")
	fs.StringVar(&o.ModuleDir, "module", ".", "the tandem module to build from")
	forkBin := fs.String("fork-bin", "", "build the MCO image instead (make mco-image): the fork build's directory that hack/mco/build.sh prints")
	extraManifests := fs.String("extra-manifests", "manifests/mco-image", "with --fork-bin: tandem's CVO manifests added to /manifests")
	crds := fs.String("crds", "manifests/crds/tandem", "with --fork-bin: tandem's CRDs, added to /manifests with the CVO's annotations")
	klog.InitFlags(fs)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var res Result
	var err error
	if *forkBin != "" {
		res, err = BuildMCO(ctx, MCOOptions{Output: o.Output, Tag: o.Tag, Base: o.Base, Arch: o.Arch, ForkBin: *forkBin, ExtraManifests: *extraManifests, CRDs: *crds})
	} else {
		res, err = Build(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem-image:", err)
		os.Exit(1)
	}
	fmt.Printf("tandem-image: wrote %s (%s) to %s: version %s, commit %s, %d layers\n",
		o.Tag, res.Digest, o.Output, res.Version, res.Commit, res.Layers)
}
