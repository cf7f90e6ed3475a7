package mcd

import (
	"context"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

type firstbootOptions struct {
	rootMount   string
	persistNics bool
	nmstatectl  string
	configFile  string
	node        nodeFlags
	retry       time.Duration
}

// newFirstboot is the command a new node's machine-config-daemon-firstboot
// unit runs from the MCO image (templates/common/_base/units/
// machine-config-daemon-firstboot.service.yaml, release-4.21; the command
// is cmd/machine-config-daemon/firstboot_complete_machineconfig.go).
func newFirstboot() *cobra.Command {
	o := &firstbootOptions{}
	cmd := &cobra.Command{
		Use:                   "firstboot-complete-machineconfig",
		DisableFlagsInUseLine: true,
		Short:                 "Complete the host's initial boot into a MachineConfig",
		Args:                  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.node.parsed(cmd)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return runFirstboot(ctx, o)
		},
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.rootMount, "root-mount", "/rootfs", "where the node's root filesystem is mounted for chroot and file manipulation")
	f.BoolVar(&o.persistNics, "persist-nics", false, "Run nmstatectl persist-nic-names")
	// The MCO runs the nmstatectl of its own image (its Dockerfile installs
	// nmstate); tandem's MCO image keeps the release's base image, and so
	// that binary. Tests point it at a double.
	f.StringVar(&o.nmstatectl, "nmstatectl", defaultNmstatectl, "the nmstatectl binary --persist-nics runs")
	_ = f.MarkHidden("nmstatectl")
	f.StringVar(&o.configFile, "machineconfig-file", daemon.EncapsulatedConfigPath, "The MachineConfig file on-disk to use as the source of truth.")
	f.DurationVar(&o.retry, "retry-interval", time.Minute, "wait before another attempt after a failed one (the MCO's: one minute)")
	o.node.bind(cmd)
	return cmd
}

// runFirstboot is the MCO's flow: --persist-nics alone, or the re-exec in
// the host's root and the first boot, each attempt retried after a failure
// until one succeeds (the unit must not let kubelet start before it).
func runFirstboot(ctx context.Context, o *firstbootOptions) error {
	if o.persistNics {
		return persistNics(ctx, o.rootMount, o.node.root, o.nmstatectl)
	}
	if err := enterRootMount(o.rootMount, ""); err != nil {
		return err
	}
	n := &o.node
	h, err := n.host()
	if err != nil {
		return err
	}
	opts := daemon.FirstbootOptions{
		Root: n.root, ConfigFile: o.configFile, CmdlineFile: n.cmdline,
		OS: n.os(), Host: h, Extensions: n.extensions(),
	}
	for {
		err := daemon.Firstboot(ctx, opts)
		if err == nil {
			return nil
		}
		klog.ErrorS(err, "firstboot-complete-machineconfig failed; retrying", "in", o.retry)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(o.retry):
		}
	}
}

// elMajor is "8", "9" or "10" for the hosts the MCO's PersistNetworkInterfaces
// acts on, "" otherwise: an EL CoreOS (ID rhcos or scos, or rhel with
// VARIANT_ID coreos) whose version (RHEL_VERSION, else VERSION_ID;
// osrelease.getOSVersion) has that major, or any host whose version is
// exactly "8", "9" or "10" (the MCO's conditions, precedence included).
func elMajor(osRelease string) string {
	vals := map[string]string{}
	for _, line := range strings.Split(osRelease, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			vals[k] = strings.Trim(v, `"'`)
		}
	}
	version := vals["VERSION_ID"]
	if v, ok := vals["RHEL_VERSION"]; ok {
		version = v
	}
	id := vals["ID"]
	el := id == "rhcos" || id == "scos" || (id == "rhel" && vals["VARIANT_ID"] == "coreos")
	for _, m := range []string{"8", "9", "10"} {
		if (el && strings.HasPrefix(version, m+".")) || version == m {
			return m
		}
	}
	return ""
}
