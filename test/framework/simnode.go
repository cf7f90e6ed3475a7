package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// kubeletPullSecret is where a node keeps the cluster's pull secret (the
// MCO's template writes it; pkg/daemon links rpm-ostree's auth file to it).
const kubeletPullSecret = "/var/lib/kubelet/config.json"

// SimNodeOptions configure a simulated node.
type SimNodeOptions struct {
	// Name is the Node's name (the daemon's --node-name).
	Name string
	// Dir holds the node; a temp dir when empty.
	Dir string
	// Kubeconfig the daemon uses.
	Kubeconfig string
	// DaemonBinary and RPMOstreeBinary come from BuildSimNodeBinaries.
	DaemonBinary    string
	RPMOstreeBinary string
	// InitialImage ("host/repo@sha256:...") is pulled and booted when the
	// node is made; empty boots a base deployment without content.
	InitialImage string
	// IOPolicy is the daemon's --io-policy; default "none".
	IOPolicy string
	// Hooked holds the daemon before each step until the harness
	// acknowledges it (see SimNode.HoldAt); unheld steps are acknowledged
	// at once.
	Hooked bool
	// Resync is the daemon's --resync; default 2s.
	Resync time.Duration
	// ExtraArgs are appended to the daemon's command line.
	ExtraArgs []string
	// Pod, when set, is the daemon's command line and environment as the
	// operator's DaemonSet gives them (its pod's container): the daemon
	// runs with them, and the node's own test-only flags (SimNodeArgs)
	// follow, instead of the harness's `start --node-name=...`.
	Pod *PodCommand
	// OnBoot, when set, runs after every boot of the node, before its
	// daemon starts again.
	OnBoot func(BootEvent)
	// OnShutdown, when set, runs at the start of every reboot or power
	// cycle, before the daemon dies: what else goes down with the machine
	// (a master's etcd member) and checks of the moment of disruption.
	OnShutdown func(cause string)
	// RebootDelay is how long a reboot or power cycle keeps the machine
	// down (firmware, kernel, kubelet) before its daemon starts again;
	// 0 reboots at once.
	RebootDelay time.Duration
	// RPMOstreeProfile is the rpm-ostree release the node runs (see
	// osdouble.Profiles); default osdouble.DefaultProfile.
	RPMOstreeProfile string
	// Files are on the node's root before its first boot, by absolute
	// path: what the node's currentConfig wrote when it was installed, so
	// that the daemon's on-disk validation finds them, and what else the
	// machine was installed with (the test registry's CA in certs.d). The
	// pull secret among them (/var/lib/kubelet/config.json) is what the
	// installer pulls InitialImage with.
	Files map[string]string
	// FileModes are the modes of Files that are not 0644 (the pull
	// secret's 0600).
	FileModes map[string]os.FileMode
	// PageCache puts the node's root, sysroot and run dir on file systems
	// with their own page cache (test/pagecachefs), mounted over them once
	// the node is installed (what they hold then is durable). A power cycle
	// then drops everything the daemon and the rpm-ostree double never made
	// durable; a kill -9 drops nothing; an orderly reboot syncs. Needs
	// /dev/fuse and root.
	PageCache bool
	// Firstboot runs `machine-config-daemon firstboot-complete-machineconfig`
	// at every boot whose root holds the encapsulated MachineConfig, before
	// the daemon starts, as the MCO's machine-config-daemon-firstboot unit
	// does (ConditionPathExists=/etc/ignition-machine-config-encapsulated.json,
	// Before=kubelet-dependencies.target; templates/common/_base/units,
	// release-4.21): the daemon starts once it exits successfully, and a
	// reboot it asks for goes through the harness. The unit's first line,
	// `firstboot-complete-machineconfig --persist-nics`, runs before it, with
	// NmstatectlBinary as the image's nmstatectl; when it fails, the unit
	// fails and the second line does not run (systemd's oneshot).
	Firstboot bool
	// NmstatectlBinary is the nmstatectl double (test/nmstatedouble) the
	// first boot runs; BuildNmstatectlDouble builds it.
	NmstatectlBinary string
	// NICs are the node's Ethernet NICs for the nmstatectl double
	// ("ens3=52:54:00:00:00:01,..."); NmstatectlEnv adds its other settings
	// (NMSTATE_DOUBLE_FAIL, ...).
	NICs          string
	NmstatectlEnv []string
	// InitialKargs are the first deployment's kernel arguments; default
	// the double's (osdouble.DefaultKargs).
	InitialKargs []string
}

// BootEvent is one boot of a simulated node.
type BootEvent struct {
	// Cause is "reboot" (orderly, after a reboot request), "power-loss" or "start".
	Cause  string
	Booted osdouble.Deployment
	Time   time.Time
}

// SimNode is a simulated node: a root dir the daemon writes files under, a
// persistent sysroot and a volatile run dir for the rpm-ostree double, and
// the machine-config-daemon binary running as a child with the double first
// on PATH, beside the double's transaction daemon (`rpm-ostree
// start-daemon`, what rpm-ostreed.service is on a real node). It watches the
// double's reboot-request file and performs the reboot: kill both daemons,
// osdouble.Reboot (which wipes the run dir), new boot id, start both again.
type SimNode struct {
	Name    string
	Dir     string
	Root    string
	Sysroot string
	Run     string

	opts       SimNodeOptions
	binDir     string
	rebootFile string
	hookDir    string
	proc       *process
	kubeletRan atomic.Bool             // see KubeletRan
	firstboot  []*process              // the unit's ExecStart lines, in order
	rpmOstreed *osdouble.DaemonProcess // rpm-ostree's transaction daemon

	mu      sync.Mutex // serialises boots and daemon (re)starts
	boots   []BootEvent
	hook    *stepHook
	stopped bool
	disks   *nodeDisks // SimNodeOptions.PageCache

	cancel context.CancelFunc
	wg     sync.WaitGroup
	errMu  sync.Mutex
	err    error
}

// StartSimNode makes the node's dirs, boots its initial OS and starts the daemon.
func StartSimNode(ctx context.Context, o SimNodeOptions) (_ *SimNode, retErr error) {
	if o.Name == "" || (o.Kubeconfig == "" && o.Pod == nil) || o.DaemonBinary == "" || o.RPMOstreeBinary == "" {
		return nil, errors.New("simnode: Name, Kubeconfig (or a Pod, with its in-cluster identity), DaemonBinary and RPMOstreeBinary are required")
	}
	if o.IOPolicy == "" {
		o.IOPolicy = "none"
	}
	if o.Resync == 0 {
		o.Resync = 2 * time.Second
	}
	var err error
	if o.Dir == "" {
		if o.Dir, err = os.MkdirTemp("", "tandem-node-"+o.Name+"-"); err != nil {
			return nil, fmt.Errorf("simnode: %w", err)
		}
	}
	n := &SimNode{
		Name: o.Name, Dir: o.Dir,
		Root:    filepath.Join(o.Dir, "root"),
		Sysroot: filepath.Join(o.Dir, "sysroot"),
		Run:     filepath.Join(o.Dir, "run"),
		opts:    o,
		binDir:  filepath.Join(o.Dir, "bin"),
		hookDir: filepath.Join(o.Dir, "hook"),
	}
	n.rebootFile = filepath.Join(n.Dir, "reboot-request")
	for _, d := range []string{n.Root, n.Sysroot, n.Run, n.binDir, n.hookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("simnode: %w", err)
		}
	}
	for path, content := range o.Files {
		mode, ok := o.FileModes[path]
		if !ok {
			mode = 0o644
		}
		if err := writeRootFile(n.Root, path, content, mode); err != nil {
			return nil, fmt.Errorf("simnode %s: %w", o.Name, err)
		}
	}
	// The double must be found as "rpm-ostree" first on PATH.
	if err := os.Symlink(o.RPMOstreeBinary, filepath.Join(n.binDir, "rpm-ostree")); err != nil {
		return nil, fmt.Errorf("simnode: %w", err)
	}
	// The installer pulls the first image as OpenShift's first boot does:
	// with the pull secret Ignition wrote (the install config's
	// /var/lib/kubelet/config.json, among Files), trusting what the node's
	// root trusts.
	initial := osdouble.InitialOS{ImageRef: o.InitialImage, Profile: o.RPMOstreeProfile, Root: n.Root, Kargs: o.InitialKargs}
	if _, err := os.Stat(n.HostPath(kubeletPullSecret)); err == nil {
		initial.AuthFile = n.HostPath(kubeletPullSecret)
	}
	if err := osdouble.Init(ctx, n.Sysroot, initial); err != nil {
		return nil, fmt.Errorf("simnode %s: %w", o.Name, err)
	}
	if o.PageCache {
		if n.disks, err = mountNodeDisks(n); err != nil {
			return nil, err
		}
	}
	defer func() {
		if retErr != nil && n.disks != nil {
			_ = n.disks.unmount()
		}
	}()
	if err := n.newBoot("start"); err != nil {
		return nil, err
	}
	bin, args := n.daemonCommand()
	n.proc = newProcess("machine-config-daemon-"+o.Name, bin, filepath.Join(n.Dir, "daemon.log"), args...)
	n.proc.env = n.daemonEnv()
	if o.Firstboot {
		if o.NmstatectlBinary == "" {
			return nil, fmt.Errorf("simnode %s: a first boot needs NmstatectlBinary", o.Name)
		}
		persist := newProcess("machine-config-daemon-firstboot-persist-nics-"+o.Name, o.DaemonBinary, filepath.Join(n.Dir, "firstboot.log"), n.persistNicsArgs()...)
		persist.env = append(n.daemonEnv(),
			"NMSTATE_DOUBLE_NICS="+o.NICs, "NMSTATE_DOUBLE_CMDLINE="+n.cmdlineFile(), "NMSTATE_DOUBLE_LOG="+n.NmstatectlLog())
		persist.env = append(persist.env, o.NmstatectlEnv...)
		complete := newProcess("machine-config-daemon-firstboot-"+o.Name, o.DaemonBinary, filepath.Join(n.Dir, "firstboot.log"), n.firstbootArgs()...)
		complete.env = n.daemonEnv()
		n.firstboot = []*process{persist, complete}
	}
	if o.Hooked {
		n.hook = newStepHook(n.hookDir)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n.cancel = cancel
	defer func() {
		if retErr != nil {
			_ = n.Stop()
		}
	}()
	if err := n.startRPMOstreed(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	err = n.startNodeProcesses()
	n.mu.Unlock()
	if err != nil {
		return nil, err
	}
	n.wg.Add(1)
	go n.watchReboots(wctx)
	if n.hook != nil {
		n.wg.Add(1)
		go n.hook.run(wctx, &n.wg)
	}
	return n, nil
}

// NewSimNode is StartSimNode with t.Cleanup(Stop); it fails the test on error.
func NewSimNode(t testing.TB, o SimNodeOptions) *SimNode {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	n, err := StartSimNode(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Stop(); err != nil {
			t.Errorf("stopping node %s: %v", n.Name, err)
		}
	})
	return n
}

// PodCommand is a pod container's arguments (the binary is the
// DaemonBinary) and environment (KEY=VALUE).
type PodCommand struct {
	Args []string
	Env  []string
	// Extra are the test-only additions of this pod's process, after the
	// node's ExtraArgs (a pod of another image may need others, and a new
	// pod's process its own metrics port).
	Extra []string
	// Wrapper, when set, runs the daemon: the daemon's command line is
	// appended to it (a pod's service account mount: mcoworld's podns).
	Wrapper []string
}

// daemonCommand is the daemon's binary and arguments, under the pod's
// wrapper when it has one.
func (n *SimNode) daemonCommand() (string, []string) {
	if p := n.opts.Pod; p != nil && len(p.Wrapper) > 0 {
		argv := append(slices.Clone(p.Wrapper), n.opts.DaemonBinary)
		argv = append(argv, n.daemonArgs()...)
		return argv[0], argv[1:]
	}
	return n.opts.DaemonBinary, n.daemonArgs()
}

func (n *SimNode) daemonArgs() []string {
	var args []string
	if n.opts.Pod != nil {
		args = slices.Clone(n.opts.Pod.Args)
	} else {
		args = []string{"start", "--node-name=" + n.Name}
	}
	if n.opts.Kubeconfig != "" {
		args = append(args, "--kubeconfig="+n.opts.Kubeconfig)
	}
	args = append(args,
		"--metrics-url=",
		"--resync="+n.opts.Resync.String(),
		"-v=2",
	)
	args = append(args, n.nodeArgs()...)
	args = append(args, n.opts.ExtraArgs...)
	if n.opts.Pod != nil {
		args = append(args, n.opts.Pod.Extra...)
	}
	return args
}

// firstbootArgs are the first boot's command line: the unit's, with the
// node's flags.
func (n *SimNode) firstbootArgs() []string {
	return append([]string{"firstboot-complete-machineconfig", "--retry-interval=2s", "-v=2"}, n.nodeArgs()...)
}

// persistNicsArgs are the unit's first line, with the node's flags and
// the nmstatectl double.
func (n *SimNode) persistNicsArgs() []string {
	args := []string{"firstboot-complete-machineconfig", "--persist-nics", "--nmstatectl=" + n.opts.NmstatectlBinary, "-v=2"}
	return append(args, n.nodeArgs()...)
}

// NmstatectlLog holds the command lines the nmstatectl double ran with.
func (n *SimNode) NmstatectlLog() string { return filepath.Join(n.Dir, "nmstatectl.log") }

// nodeArgs are the test-only flags that place both commands on this node:
// its root is a directory (so no chroot: --root-mount=/), it reboots
// through the harness, its rpm-ostree is the double; the daemon's node
// flags, which firstboot-complete-machineconfig shares.
func (n *SimNode) nodeArgs() []string {
	return []string{
		"--root-mount=/",
		"--root=" + n.Root,
		"--io-policy=" + n.opts.IOPolicy,
		"--host=harness",
		"--reboot-file=" + n.rebootFile,
		"--boot-id-file=" + n.bootIDFile(),
		"--cmdline-file=" + n.cmdlineFile(),
		"--sysroot=" + n.Sysroot,
		"--host-run=" + n.Run,
		"--rpm-ostreed-pid-file=" + osdouble.DaemonPIDFile(n.Run),
	}
}

func (n *SimNode) daemonEnv() []string {
	env := []string{
		"PATH=" + n.binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		osdouble.EnvSysroot + "=" + n.Sysroot,
		osdouble.EnvRun + "=" + n.Run,
		osdouble.EnvRebootFile + "=" + n.rebootFile,
	}
	if n.opts.Hooked {
		env = append(env, "TANDEM_DAEMON_TEST_HOOK_DIR="+n.hookDir)
	}
	if n.opts.Pod != nil {
		env = append(env, n.opts.Pod.Env...)
	}
	return env
}

func (n *SimNode) bootIDFile() string { return filepath.Join(n.Run, "tandem", "boot_id") }

// cmdlineFile is the simulated /proc/cmdline: the booted deployment's kernel
// arguments, written at every boot as the bootloader hands them to the kernel.
func (n *SimNode) cmdlineFile() string { return filepath.Join(n.Run, "tandem", "cmdline") }

// newBoot gives the node a new boot id and records the boot.
func (n *SimNode) newBoot(cause string) error {
	if err := os.MkdirAll(filepath.Dir(n.bootIDFile()), 0o755); err != nil {
		return fmt.Errorf("simnode: %w", err)
	}
	if err := os.WriteFile(n.bootIDFile(), []byte(uuid.NewString()+"\n"), 0o644); err != nil {
		return fmt.Errorf("simnode: %w", err)
	}
	d, err := osdouble.BootedDeployment(n.Sysroot, n.Run)
	if err != nil {
		return fmt.Errorf("simnode %s: reading booted deployment: %w", n.Name, err)
	}
	if err := os.WriteFile(n.cmdlineFile(), []byte(strings.Join(d.Kargs, " ")+"\n"), 0o644); err != nil {
		return fmt.Errorf("simnode: %w", err)
	}
	ev := BootEvent{Cause: cause, Booted: *d, Time: time.Now()}
	n.boots = append(n.boots, ev)
	klog.InfoS("simulated node booted", "node", n.Name, "cause", cause, "checksum", d.Checksum, "origin", d.Origin)
	if n.opts.OnBoot != nil {
		n.opts.OnBoot(ev)
	}
	return nil
}

// killDaemon kills the daemon's process group with SIGKILL (its rpm-ostree
// children too) and waits for it; it returns the group (0: none ran).
func (n *SimNode) killDaemon() int {
	for _, p := range n.firstboot {
		killProcess(n.Name, p)
	}
	return killProcess(n.Name, n.proc)
}

// killProcess kills p's group with SIGKILL and waits; it returns the
// group (0: none ran).
func killProcess(node string, p *process) int {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return 0
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(killWait):
		klog.ErrorS(nil, "process did not exit after SIGKILL", "node", node, "name", p.name, "pid", cmd.Process.Pid, "state", procState(cmd.Process.Pid))
	}
	Untrack(cmd.Process.Pid)
	return cmd.Process.Pid
}

// startRPMOstreed starts the node's transaction daemon; it dies with the
// test process (Pdeathsig).
func (n *SimNode) startRPMOstreed() error {
	// Root: the node's /etc, where package layering finds its repositories.
	node := osdouble.Node{Sysroot: n.Sysroot, Run: n.Run, RebootFile: n.rebootFile, Root: n.Root}
	d, err := node.StartDaemonProcess(context.Background(), n.opts.RPMOstreeBinary, filepath.Join(n.Dir, "rpm-ostreed.log"))
	if err != nil {
		return fmt.Errorf("simnode %s: %w", n.Name, err)
	}
	n.rpmOstreed = d
	return nil
}

// stopRPMOstreed kills the transaction daemon, as a machine going down
// does; it returns its process group (0: none ran).
func (n *SimNode) stopRPMOstreed() int {
	if n.rpmOstreed == nil {
		return 0
	}
	pid := n.rpmOstreed.Pid()
	_ = n.rpmOstreed.Kill()
	n.rpmOstreed = nil
	return pid
}

// RPMOstreedPID is the pid of the node's transaction daemon (also in
// osdouble.DaemonPIDFile(n.Run)): the process that writes a stage.
func (n *SimNode) RPMOstreedPID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.rpmOstreed == nil {
		return 0
	}
	return n.rpmOstreed.Pid()
}

func (n *SimNode) restartDaemon() error {
	if n.hook != nil {
		n.hook.release()
	}
	return n.startNodeProcesses()
}

// startNodeProcesses starts what a boot starts (n.mu held): the first boot
// while its MachineConfig is there, else the daemon.
func (n *SimNode) startNodeProcesses() error {
	if n.firstboot == nil {
		return n.startDaemon()
	}
	if _, err := os.Stat(filepath.Join(n.Root, daemon.EncapsulatedConfigPath)); err != nil {
		return n.startDaemon()
	}
	return n.startFirstbootLine(0)
}

// startDaemon starts the daemon (n.mu held). On a real node the kubelet,
// and so the daemon's pod, starts only after the first boot's unit is done
// (machine-config-daemon-firstboot.service runs Before=kubelet.service).
func (n *SimNode) startDaemon() error {
	n.kubeletRan.Store(true)
	return n.proc.start()
}

// KubeletRan reports whether the node has run past its first boot's unit,
// to where its kubelet runs: before that, a reboot (the first boot's own)
// is not one the cluster sees. Safe to call from OnShutdown and OnBoot.
func (n *SimNode) KubeletRan() bool { return n.kubeletRan.Load() }

// startFirstbootLine starts the unit's line i (n.mu held) and, when it
// ends by itself, successfully, in the same boot, the next line or the
// daemon; a line that asked for a reboot is killed by it instead.
func (n *SimNode) startFirstbootLine(i int) error {
	p := n.firstboot[i]
	if err := p.start(); err != nil {
		return err
	}
	boot := len(n.boots)
	n.wg.Add(1)
	go func(done <-chan struct{}) {
		defer n.wg.Done()
		<-done
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.stopped || len(n.boots) != boot {
			return
		}
		if _, err := p.exited(); err != nil {
			n.fail(fmt.Errorf("simnode %s: %s failed: %w (log %s)", n.Name, strings.Join(p.args[:2], " "), err, p.logPath))
			return
		}
		next := n.startDaemon
		if i+1 < len(n.firstboot) {
			next = func() error { return n.startFirstbootLine(i + 1) }
		}
		if err := next(); err != nil {
			n.fail(err)
		}
	}(p.done)
	return nil
}

func (n *SimNode) fail(err error) {
	n.errMu.Lock()
	defer n.errMu.Unlock()
	if n.err == nil {
		n.err = err
	}
}

// StopDaemon stops the daemon (SIGTERM, SIGKILL after grace), as the
// kubelet stops a deleted pod; the node keeps running. SetPod or a reboot
// starts it again.
func (n *SimNode) StopDaemon(grace time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc.stop(grace)
}

// SetPod replaces the daemon's pod command, as the kubelet replaces the
// pod of a DaemonSet whose template changed: the daemon gets SIGTERM (the
// DaemonSet's grace period, bounded here by grace) and starts again with
// the new command. The node does not reboot.
func (n *SimNode) SetPod(pod PodCommand, grace time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return errors.New("simnode stopped")
	}
	if err := n.proc.stop(grace); err != nil {
		return fmt.Errorf("simnode %s: stopping the daemon: %w", n.Name, err)
	}
	n.opts.Pod = &pod
	n.proc.path, n.proc.args = n.daemonCommand()
	n.proc.env = n.daemonEnv()
	return n.restartDaemon()
}

// KillDaemon is kill -9 of the daemon, then a restart (same boot).
func (n *SimNode) KillDaemon() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return errors.New("simnode stopped")
	}
	n.killDaemon()
	return n.restartDaemon()
}

// PowerCycle is a reboot without an orderly shutdown: the daemon dies, any
// staged deployment is lost (locked or not), the run dir is wiped.
func (n *SimNode) PowerCycle() error { return n.boot("power-loss") }

// Reboot is an orderly reboot, as the reboot-request watcher performs it.
func (n *SimNode) Reboot() error { return n.boot("reboot") }

func (n *SimNode) boot(cause string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return errors.New("simnode stopped")
	}
	if n.opts.OnShutdown != nil {
		n.opts.OnShutdown(cause)
	}
	groups := []int{n.killDaemon(), n.stopRPMOstreed()}
	_ = os.Remove(n.rebootFile)
	if n.disks != nil {
		if err := waitGroupsGone(groups...); err != nil {
			return fmt.Errorf("simnode %s: %s: %w", n.Name, cause, err)
		}
		if cause == "power-loss" {
			// The machine stops here: what is not durable is gone.
			n.disks.powerLoss()
		}
	}
	// Both daemons are gone, so is the sysroot lock with them.
	var err error
	if cause == "power-loss" {
		err = osdouble.PowerLoss(n.Sysroot, n.Run)
	} else {
		err = osdouble.Reboot(n.Sysroot, n.Run)
	}
	if err != nil {
		return fmt.Errorf("simnode %s: %s: %w", n.Name, cause, err)
	}
	if n.disks != nil {
		// An orderly shutdown syncs after the staged deployment is
		// finalized; a boot's own writes (the bootloader's fallback, the
		// empty /run) are the firmware's and the initramfs's, not the
		// daemon's: durable.
		n.disks.sync()
	}
	if d := n.opts.RebootDelay; d > 0 {
		// Down, not locked: the harness still reads the node meanwhile.
		n.mu.Unlock()
		time.Sleep(d)
		n.mu.Lock()
		if n.stopped {
			return errors.New("simnode stopped")
		}
	}
	if err := n.newBoot(cause); err != nil {
		return err
	}
	if err := n.startRPMOstreed(); err != nil {
		return err
	}
	return n.restartDaemon()
}

// watchReboots performs the reboots the double (finalize-deployment) or the
// daemon (--host=harness) ask for by writing the reboot file.
func (n *SimNode) watchReboots(ctx context.Context) {
	defer n.wg.Done()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := os.Stat(n.rebootFile); err != nil {
			continue
		}
		if err := n.Reboot(); err != nil {
			n.fail(err)
			klog.ErrorS(err, "simulated reboot failed", "node", n.Name)
		}
	}
}

// Err returns the first error of a reboot the harness performed.
func (n *SimNode) Err() error {
	n.errMu.Lock()
	defer n.errMu.Unlock()
	return n.err
}

// Boots returns the node's boots so far, oldest first.
func (n *SimNode) Boots() []BootEvent {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]BootEvent(nil), n.boots...)
}

// Booted returns the booted deployment.
func (n *SimNode) Booted() (*osdouble.Deployment, error) {
	return osdouble.BootedDeployment(n.Sysroot, n.Run)
}

// Staged returns the staged deployment (nil if none) and whether it is locked.
func (n *SimNode) Staged() (*osdouble.Deployment, bool, error) {
	return osdouble.StagedDeployment(n.Run)
}

// HostPath is where the node's file p lives on the test machine.
func (n *SimNode) HostPath(p string) string { return filepath.Join(n.Root, p) }

// DaemonLog returns the daemon's log so far.
func (n *SimNode) DaemonLog() string {
	b, _ := os.ReadFile(filepath.Join(n.Dir, "daemon.log"))
	return string(b)
}

// DaemonLogTail returns the end of the daemon's log, for failure messages.
func (n *SimNode) DaemonLogTail() string { return n.proc.logTail() }

// Steps returns the hook points the daemon reached, in order, across
// restarts (Hooked nodes only).
func (n *SimNode) Steps() []string {
	if n.hook == nil {
		return nil
	}
	return n.hook.steps()
}

// HoldAt arms the hook: the occurrence-th time (1-based, counted over the
// node's life) the daemon reaches point, it is held there and not
// acknowledged; the returned channel is closed then. The test then kills
// the daemon (KillDaemon) or the node (PowerCycle); the restarted daemon
// runs unheld. Hooked nodes only.
func (n *SimNode) HoldAt(point string, occurrence int) <-chan struct{} {
	if n.hook == nil {
		panic("simnode: HoldAt needs SimNodeOptions.Hooked")
	}
	return n.hook.holdAt(point, occurrence)
}

// Stop kills the daemon and stops the watchers. The node's dirs stay.
func (n *SimNode) Stop() error {
	n.mu.Lock()
	if n.stopped {
		n.mu.Unlock()
		return nil
	}
	n.stopped = true
	groups := []int{n.killDaemon(), n.stopRPMOstreed()}
	n.mu.Unlock()
	if n.cancel != nil {
		n.cancel()
	}
	n.wg.Wait()
	if n.disks != nil {
		// Nothing may use the disks once they are gone.
		return errors.Join(waitGroupsGone(groups...), n.disks.unmount())
	}
	return nil
}

// BuildSimNodeBinaries builds machine-config-daemon and the rpm-ostree
// double into dir (once per dir) and returns their paths.
func BuildSimNodeBinaries(ctx context.Context, dir string) (daemonBin, rpmOstreeBin string, err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	daemonBin = filepath.Join(dir, "machine-config-daemon")
	rpmOstreeBin = filepath.Join(dir, "rpm-ostree")
	for pkg, out := range map[string]string{
		"./cmd/machine-config-daemon":    daemonBin,
		"./test/osdouble/cmd/rpm-ostree": rpmOstreeBin,
	} {
		cmd := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("building %s: %w\n%s", pkg, err, b)
		}
	}
	return daemonBin, rpmOstreeBin, nil
}

// BuildNmstatectlDouble builds the nmstatectl double a first boot runs
// into dir.
func BuildNmstatectlDouble(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "nmstatectl")
	return out, GoBuild(ctx, out, "./test/nmstatedouble/cmd/nmstatectl")
}

// GoBuild builds the main package pkg (a path relative to the module's
// root) into out.
func GoBuild(ctx context.Context, out, pkg string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-tags=containers_image_openpgp", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// ModuleRoot is the main module's directory (where go.mod is).
func ModuleRoot() (string, error) { return moduleRoot() }

// moduleRoot finds the main module's directory (where go.mod is).
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the tandem module")
	}
	return filepath.Dir(mod), nil
}

// writeRootFile writes one installed file under the node's root.
func writeRootFile(root, path, content string, mode os.FileMode) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("installed file %q: path not absolute", path)
	}
	full := filepath.Join(root, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(full, []byte(content), mode); err != nil {
		return err
	}
	return os.Chmod(full, mode) // whatever the umask
}
