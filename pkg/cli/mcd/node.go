package mcd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/extensions"
	"github.com/tandem-mco/tandem/pkg/daemon/host"
	"github.com/tandem-mco/tandem/pkg/daemon/osupdate"
	"github.com/tandem-mco/tandem/pkg/iso"
)

// nodeFlags are tandem's flags that say where the node's parts are: its
// root, rpm-ostree, sysroot and /run, how it reboots, its staging I/O
// policy. Their defaults are a real node's; tests give a simulated node its
// own. Every subcommand that acts on the node (start,
// firstboot-complete-machineconfig) takes the same set.
type nodeFlags struct {
	root              string
	ioPolicy          string
	hostKind          string
	rebootFile        string
	bootIDFile        string
	cmdline           string
	rpmOstree         string
	sysroot           string
	ioUnit            string
	ioUnitSet         bool
	etcdMetrics       string
	hostRun           string
	rpmOstreedPIDFile string
}

func (n *nodeFlags) bind(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&n.root, "root", "/", "root prefix of every file the daemon writes (its state lives under <root>"+daemon.StateDir+"); tests give each simulated node its own")
	f.StringVar(&n.ioPolicy, "io-policy", iso.DefaultPolicyName(), fmt.Sprintf("staging I/O policy when the node names none (%v); a governed policy may name its target after @: a multiple of etcd's idle WAL fsync p99 measured at the stage's start (adaptive@3x; default %gx, at most %v) or a latency (adaptive@5ms)", iso.PolicyNames(), iso.DefaultTargetIdleMultiple, iso.DefaultTargetCeiling))
	f.StringVar(&n.hostKind, "host", "systemd", "host actions: systemd (D-Bus) or harness (simulated node: reboot through --reboot-file)")
	f.StringVar(&n.rebootFile, "reboot-file", os.Getenv("TANDEM_OSDOUBLE_REBOOT_FILE"), "with --host=harness: file whose creation asks the harness to reboot")
	f.StringVar(&n.bootIDFile, "boot-id-file", "/proc/sys/kernel/random/boot_id", "file holding the current boot's id")
	f.StringVar(&n.cmdline, "cmdline-file", "/proc/cmdline", "the running kernel's command line, checked against the config's kernel arguments; empty: not checked")
	f.StringVar(&n.rpmOstree, "rpm-ostree", "rpm-ostree", "rpm-ostree binary")
	f.StringVar(&n.sysroot, "sysroot", "/sysroot", "the OS sysroot (its repo config is tuned by the I/O policy)")
	f.StringVar(&n.ioUnit, "io-unit", "", "systemd unit whose I/O the policy limits (rpm-ostreed.service in production); empty: with --host=systemd rpm-ostreed.service, else a cgroup made for rpm-ostree's transaction daemon (--rpm-ostreed-pid-file)")
	f.StringVar(&n.etcdMetrics, "etcd-metrics-url", "", "etcd's /metrics on this node, for the adaptive I/O governor (etcd's WAL fsync latency); empty: the disk's latency from /proc/diskstats")
	f.StringVar(&n.hostRun, "host-run", "/run", "the host's /run as the daemon sees it (ostree's staged deployment and its finalization lock live there)")
	f.StringVar(&n.rpmOstreedPIDFile, "rpm-ostreed-pid-file", "", "on hosts without systemd: pid file of rpm-ostree's transaction daemon, which the I/O policy then limits")
}

// parsed records what cobra knows only after parsing (whether --io-unit
// was given).
func (n *nodeFlags) parsed(cmd *cobra.Command) { n.ioUnitSet = cmd.Flags().Changed("io-unit") }

// unit is the unit whose I/O the staging policy limits (see ioUnitFor).
func (n *nodeFlags) unit() string { return ioUnitFor(n.ioUnit, n.ioUnitSet, n.hostKind) }

// ioOptions bind the staging I/O policies to this node.
func (n *nodeFlags) ioOptions() iso.Options {
	return iso.Options{Sysroot: n.sysroot, Unit: n.unit(), StateDir: filepath.Join(n.root, daemon.StateDir, "iso"), EtcdMetricsURL: n.etcdMetrics}
}

// host is the node's host actions (reboot, kubelet, units).
func (n *nodeFlags) host() (daemon.Host, error) {
	switch n.hostKind {
	case "systemd":
		return host.Systemd{}, nil
	case "harness":
		return host.Harness{RebootFile: n.rebootFile}, nil
	}
	return nil, fmt.Errorf("--host=%s: want systemd or harness", n.hostKind)
}

// os is the node's rpm-ostree.
func (n *nodeFlags) os() *osupdate.Adapter {
	return osupdate.New(osupdate.Options{
		Binary:        n.rpmOstree,
		DefaultPolicy: n.ioPolicy,
		PolicyOptions: n.ioOptions(),
		HostRun:       n.hostRun,
		Root:          n.root,
		DaemonPIDFile: n.rpmOstreedPIDFile,
	})
}

// extensions provides a config's extensions repository to rpm-ostree.
func (n *nodeFlags) extensions() *extensions.Repo {
	return &extensions.Repo{Root: n.root, HostRun: n.hostRun}
}
