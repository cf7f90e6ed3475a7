package vm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// InstallSpec is what the node installs on its first boot
// (test/vm/cmd/vm-node-install): the initial OS image, as the guest names
// it, the initial MachineConfig's files (the pull secret among them, which
// the install pulls with), and other files the machine is installed with
// (the registry's CA), by absolute path.
type InstallSpec struct {
	ImageRef      string                `json:"imageRef"`
	MachineConfig *mcfgv1.MachineConfig `json:"machineConfig,omitempty"`
	Files         map[string]string     `json:"files,omitempty"`
}

// guestCommands are built from this module into the share's bin/.
var guestCommands = map[string]string{
	"machine-config-daemon": "./cmd/machine-config-daemon",
	"rpm-ostree":            "./test/osdouble/cmd/rpm-ostree",
	"ostree":                "./test/vm/cmd/ostree",
	"vm-node-install":       "./test/vm/cmd/vm-node-install",
	"vm-pod":                "./test/vm/cmd/vm-pod",
}

// BuildBinaries builds the guest's commands and the host's forwarder
// (vm-fwd) from this module into dir, and copies extra binaries (etcd)
// beside them. The guest runs them from the 9p share, so a change needs no
// new image.
func BuildBinaries(ctx context.Context, dir string, extra ...string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	pkgs := []string{"./test/vm/cmd/vm-fwd"}
	for _, p := range guestCommands {
		pkgs = append(pkgs, p)
	}
	// CGO off: static binaries that do not care which libc the guest has.
	cmd := exec.CommandContext(ctx, goBin, append([]string{"build", "-tags=containers_image_openpgp", "-o", dir + "/"}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the VM node's binaries: %w\n%s", err, out)
	}
	for _, src := range extra {
		if err := copyFile(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(dir, filepath.Base(src)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the tandem module")
	}
	return filepath.Dir(gomod), nil
}

// NodeOptions configure a VM node.
type NodeOptions struct {
	Image *Image
	Accel string
	// Dir holds the VM (disk, sockets, serial log) and its shares.
	Dir string
	// Bin is a directory made by BuildBinaries.
	Bin string
	// NodeName is the Node object's name; DaemonArgs are added to the
	// daemon's command line.
	NodeName, DaemonArgs string
	// Kubeconfig is the daemon's kubeconfig as the guest sees the
	// apiserver (at GuestHostAddr); empty: the daemon does not start.
	Kubeconfig []byte
	// Install is installed on the first boot; nil: nothing (make vm-shell
	// without a cluster).
	Install *InstallSpec
	// StepHook makes the daemon wait at each step for the host's
	// acknowledgement (see StepHook).
	StepHook bool
	GuestFwd []Forward
	HostFwd  []Forward
	Console  bool
}

// Node is one VM node and its shares.
type Node struct {
	*Machine
	opts  NodeOptions
	Share string
	Xchg  string
	Hook  *StepHook
}

// HookDirInGuest is the step hook's directory in the guest (on the xchg share).
const HookDirInGuest = "/var/lib/tandem-xchg/hook"

// StartNode lays out the shares and boots the node.
func StartNode(ctx context.Context, o NodeOptions) (*Node, error) {
	n := &Node{opts: o, Share: filepath.Join(o.Dir, "share"), Xchg: filepath.Join(o.Dir, "xchg")}
	for _, d := range []string{filepath.Join(n.Share, "etc"), filepath.Join(n.Xchg, "hook")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// A copy, not a symlink: 9p would resolve the link in the guest.
	if err := copyDir(o.Bin, filepath.Join(n.Share, "bin")); err != nil {
		return nil, err
	}
	env := fmt.Sprintf("NODE_NAME=%s\nDAEMON_ARGS=%s\n", o.NodeName, o.DaemonArgs)
	if o.StepHook {
		env += "TANDEM_DAEMON_TEST_HOOK_DIR=" + HookDirInGuest + "\n"
		n.Hook = newStepHook(filepath.Join(n.Xchg, "hook"))
	}
	if err := os.WriteFile(filepath.Join(n.Share, "etc", "node.env"), []byte(env), 0o644); err != nil {
		return nil, err
	}
	if len(o.Kubeconfig) > 0 {
		if err := os.WriteFile(filepath.Join(n.Share, "etc", "kubeconfig"), o.Kubeconfig, 0o644); err != nil {
			return nil, err
		}
	}
	if o.Install != nil {
		b, err := json.MarshalIndent(o.Install, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(n.Share, "etc", "install.json"), b, 0o644); err != nil {
			return nil, err
		}
	}
	m, err := Start(ctx, Config{
		Image: o.Image, Dir: filepath.Join(o.Dir, "vm"), Share: n.Share, Xchg: n.Xchg, Accel: o.Accel,
		GuestFwd: o.GuestFwd, HostFwd: o.HostFwd, Forwarder: filepath.Join(o.Bin, "vm-fwd"), Console: o.Console,
	})
	if err != nil {
		return nil, err
	}
	n.Machine = m
	if n.Hook != nil {
		n.Hook.start()
	}
	return n, nil
}

// Stop stops the VM and the step hook.
func (n *Node) Stop() {
	if n.Hook != nil {
		n.Hook.stop()
	}
	n.Machine.Stop()
}

// Journal returns the journal of a unit in the current boot (-b 0) or
// an earlier one (-b -1, ...).
func (n *Node) Journal(ctx context.Context, unit string, boot string) (string, error) {
	return n.Run(ctx, time.Minute, "/bin/journalctl", "--no-pager", "-o", "cat", "-b", boot, "-u", unit)
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		in := filepath.Join(src, e.Name())
		out := filepath.Join(dst, e.Name())
		if err := copyFile(in, out); err != nil {
			return err
		}
		st, err := os.Stat(in)
		if err != nil {
			return err
		}
		if err := os.Chmod(out, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
