package osdouble

import (
	"context"
	"os"
	"path/filepath"
)

// Node names the three paths of one simulated node, for harnesses.
type Node struct {
	Sysroot    string // persistent
	Run        string // volatile, wiped by Reboot and PowerLoss
	RebootFile string // written by finalize-deployment to ask for a reboot
	// Root, if set, is the node's root filesystem (its /etc): where
	// rpm-ostree finds package repositories (see EnvRoot).
	Root string
}

// NewNode lays a node out under dir: dir/sysroot, dir/run and
// dir/reboot-requested. Nothing is created; see Init.
func NewNode(dir string) Node {
	return Node{
		Sysroot:    filepath.Join(dir, "sysroot"),
		Run:        filepath.Join(dir, "run"),
		RebootFile: filepath.Join(dir, "reboot-requested"),
	}
}

// Init makes the node's sysroot and run dir, booting initial.
func (n Node) Init(ctx context.Context, initial InitialOS) error {
	if err := os.MkdirAll(n.Run, 0o755); err != nil {
		return err
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
func (n Node) Booted() (*Deployment, error) { return BootedDeployment(n.Sysroot) }

// Staged returns the staged deployment (nil if none) and whether it is locked.
func (n Node) Staged() (*Deployment, bool, error) { return StagedDeployment(n.Run) }

// Progress returns the last pull's progress (nil if none since boot).
func (n Node) Progress() (*Progress, error) { return ReadProgress(n.Run) }

// Commands returns the mutating commands run since boot.
func (n Node) Commands() ([]CommandRecord, error) { return ReadCommandLog(n.Run) }
