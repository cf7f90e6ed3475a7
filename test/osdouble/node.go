package osdouble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Node names the three paths of one simulated node, for harnesses.
type Node struct {
	Sysroot    string // persistent
	Run        string // volatile, wiped by Reboot and PowerLoss
	RebootFile string // written by finalize-deployment to ask for a reboot
	// Root, if set, is the node's root filesystem (its /etc): where
	// rpm-ostree finds package repositories, the registries it trusts and
	// its /etc/ostree/auth.json (see EnvRoot).
	Root string
}

// NewNode lays a node out under dir: dir/sysroot, dir/run, dir/root and
// dir/reboot-requested. Nothing is created; see Init.
func NewNode(dir string) Node {
	return Node{
		Sysroot:    filepath.Join(dir, "sysroot"),
		Run:        filepath.Join(dir, "run"),
		RebootFile: filepath.Join(dir, "reboot-requested"),
		Root:       filepath.Join(dir, "root"),
	}
}

// Init makes the node's sysroot, run dir and root, booting initial; the
// install pull trusts what the node's root trusts (initial.Root defaults
// to n.Root).
func (n Node) Init(ctx context.Context, initial InitialOS) error {
	for _, d := range []string{n.Run, n.Root} {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if initial.Root == "" {
		initial.Root = n.Root
	}
	return Init(ctx, n.Sysroot, initial)
}

// Env is the environment the rpm-ostree double needs to act on this node.
func (n Node) Env() []string {
	env := []string{EnvSysroot + "=" + n.Sysroot, EnvRun + "=" + n.Run, EnvRebootFile + "=" + n.RebootFile}
	if n.Root != "" {
		env = append(env, EnvRoot+"="+n.Root)
	}
	return env
}

// RebootRequested tells whether finalize-deployment asked for a reboot.
func (n Node) RebootRequested() (bool, error) { return exists(n.RebootFile) }

// Reboot reboots the node (see Reboot) and clears the reboot request.
func (n Node) Reboot() error {
	if err := Reboot(n.Sysroot, n.Run); err != nil {
		return err
	}
	return removeIfExists(n.RebootFile)
}

// PowerLoss power-cycles the node (see PowerLoss) and clears any reboot request.
func (n Node) PowerLoss() error {
	if err := PowerLoss(n.Sysroot, n.Run); err != nil {
		return err
	}
	return removeIfExists(n.RebootFile)
}

// Booted returns the booted deployment.
func (n Node) Booted() (*Deployment, error) { return BootedDeployment(n.Sysroot, n.Run) }

// Staged returns the staged deployment (nil if none) and whether it is locked.
func (n Node) Staged() (*Deployment, bool, error) { return StagedDeployment(n.Run) }

// Progress returns the last pull's progress (nil if none since boot).
func (n Node) Progress() (*Progress, error) { return ReadProgress(n.Run) }

// Commands returns the mutating commands run since boot.
func (n Node) Commands() ([]CommandRecord, error) { return ReadCommandLog(n.Run) }

// WriteFiles writes files (absolute paths of the node, mode 0600) under its
// root: what a harness puts on the machine as its installer or
// administrator would (a registry's CA, credentials).
func (n Node) WriteFiles(files map[string]string) error {
	for p, c := range files {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("node file %q: path not absolute", p)
		}
		full := filepath.Join(n.Root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c), 0o600); err != nil {
			return err
		}
	}
	return nil
}
