package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// FirstbootOptions configure a first boot.
type FirstbootOptions struct {
	// Root prefixes every path ("/" on a real node).
	Root string
	// ConfigFile is the MachineConfig to complete, as the node sees it
	// (EncapsulatedConfigPath by default; under Root).
	ConfigFile string
	// CmdlineFile holds the running kernel's command line; empty: not read.
	CmdlineFile string
	OS          OS
	Host        Host
	Extensions  ExtensionsRepo
	// RebootWait is how long to wait for the machine to go down after the
	// reboot was asked for (the MCO waits, then fails the attempt).
	RebootWait time.Duration
}

// Firstboot completes a new node's first boot into the encapsulated
// MachineConfig (see firstboot.go). It returns nil without a reboot when
// nothing needed changing; after asking for the reboot it waits for the
// machine to go down and fails when it does not.
func Firstboot(ctx context.Context, o FirstbootOptions) error {
	if o.Root == "" {
		o.Root = "/"
	}
	if o.ConfigFile == "" {
		o.ConfigFile = EncapsulatedConfigPath
	}
	if o.RebootWait <= 0 {
		o.RebootWait = 10 * time.Minute
	}
	log := klog.FromContext(ctx)
	path := filepath.Join(o.Root, o.ConfigFile)
	mc, err := readMachineConfigFile(path, "the first boot's MachineConfig "+o.ConfigFile)
	if err != nil {
		return err
	}
	ob, err := observeFirstboot(ctx, o, mc)
	if err != nil {
		return err
	}
	plan, err := FirstbootPlan(ob)
	if err != nil {
		return err
	}
	for _, a := range plan {
		log.Info("firstboot step", "action", a.String())
		if err := performFirstboot(ctx, o, mc, a); err != nil {
			return fmt.Errorf("%s: %w", a.Kind, err)
		}
		if a.Kind == ActFirstbootNothing {
			return nil
		}
	}
	st, err := o.OS.Status(ctx)
	if err != nil {
		return fmt.Errorf("reading rpm-ostree status before the reboot: %w", err)
	}
	reboot := FirstbootReboot(mc.Name, st)
	log.Info("firstboot step", "action", reboot.String())
	if reboot.Kind == ActFinalize {
		err = o.OS.Finalize(ctx, reboot.Checksum)
	} else {
		err = o.Host.Reboot(ctx, reboot.Reason)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", reboot.Kind, err)
	}
	select {
	case <-ctx.Done():
		return nil // the machine is going down
	case <-time.After(o.RebootWait):
		return fmt.Errorf("asked to reboot into %s, but the machine was still up %s later", mc.Name, o.RebootWait)
	}
}

func observeFirstboot(ctx context.Context, o FirstbootOptions, mc *mcfgv1.MachineConfig) (FirstbootObserved, error) {
	cs := ConfigState{Name: mc.Name, Found: true, Image: NormalizeImage(mc.Spec.OSImageURL), KernelArgs: mc.Spec.KernelArguments,
		ExtensionsImage: mc.Spec.BaseOSExtensionsContainerImage}
	layering, bad := layeringProblem(mc.Name, mc.Spec.KernelType, mc.Spec.Extensions, mc.Spec.BaseOSExtensionsContainerImage, runtime.GOARCH)
	cs.Layering = layering
	switch ign, err := mcfg.Parse(mc); {
	case bad != "":
		cs.Invalid = bad
	case err != nil:
		cs.Invalid = err.Error()
	default:
		if err := mcfg.ValidateForDaemon(ign); err != nil {
			cs.Invalid = err.Error()
		}
	}
	ob := FirstbootObserved{Config: cs}
	var err error
	if ob.OS, err = o.OS.Status(ctx); err != nil {
		return ob, fmt.Errorf("reading rpm-ostree status: %w", err)
	}
	if o.CmdlineFile != "" {
		b, err := os.ReadFile(o.CmdlineFile)
		if err != nil {
			return ob, fmt.Errorf("reading the kernel command line: %w", err)
		}
		ob.Cmdline = ParseCmdline(string(b))
	}
	if ob.NICKargs, err = readNICKargs(o.Root); err != nil {
		return ob, err
	}
	return ob, nil
}

// performFirstboot carries out one step with the daemon's own adapters.
func performFirstboot(ctx context.Context, o FirstbootOptions, mc *mcfgv1.MachineConfig, a Action) error {
	withRepo := func(image string, f func() error) error { return withExtensionsRepo(ctx, o.Extensions, image, f) }
	switch a.Kind {
	case ActCleanupStaged:
		return o.OS.CleanupStaged(ctx)
	case ActStage:
		return withRepo(a.ExtensionsImage, func() error {
			_, err := o.OS.Stage(ctx, mc.Spec.OSImageURL, "", nil)
			if err != nil {
				if cerr := o.OS.CleanupStaged(ctx); cerr != nil {
					klog.FromContext(ctx).Error(cerr, "cleaning up after a failed stage")
				}
			}
			return err
		})
	case ActApplyKernelArgs:
		return o.OS.SetKernelArgs(ctx, a.KernelArgsAppend, a.KernelArgsDelete)
	case ActLayerPackages:
		l, ok := o.OS.(PackageLayerer)
		if !ok {
			return errors.New("the OS adapter does not layer packages")
		}
		return withRepo(a.ExtensionsImage, func() error { return l.LayerPackages(ctx, *a.Packages) })
	case ActFirstbootWriteFiles:
		ign, err := mcfg.Parse(mc)
		if err != nil {
			return err
		}
		owners := files.PasswdOwners{Root: o.Root}
		nodes, err := files.Plan(o.Root, nil, ign, owners)
		if err != nil {
			return err
		}
		w := &files.Writer{Root: o.Root, BackupDir: NewStore(o.Root).BackupDir()}
		return w.Apply(nodes, nil)
	case ActFirstbootStore:
		if err := storeMachineConfigOnDisk(o.Root, mc); err != nil {
			return err
		}
		if filepath.Clean(o.ConfigFile) != EncapsulatedConfigPath {
			return nil // the MCO renames only the default file
		}
		if err := os.Rename(filepath.Join(o.Root, EncapsulatedConfigPath), filepath.Join(o.Root, EncapsulatedConfigBakPath)); err != nil {
			return fmt.Errorf("renaming the encapsulated MachineConfig after the first boot: %w", err)
		}
		return files.SyncDir(filepath.Join(o.Root, filepath.Dir(EncapsulatedConfigPath)))
	case ActFirstbootNothing:
		if err := files.RemoveDurably(filepath.Join(o.Root, o.ConfigFile)); err != nil {
			return fmt.Errorf("removing %s: %w", o.ConfigFile, err)
		}
		klog.FromContext(ctx).Info("no reboot needed: the node runs its config", "config", mc.Name)
		return nil
	}
	return fmt.Errorf("not a first boot step: %s", a.Kind)
}
