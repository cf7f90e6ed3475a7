package daemon

import (
	"context"
	"errors"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// PackageLayerer is an OS that layers packages (pkg/daemon/osupdate).
type PackageLayerer interface {
	// LayerPackages applies ch to the deployment that boots next, which
	// ends staged and finalization-locked. It is idempotent.
	LayerPackages(ctx context.Context, ch PackageChange) error
}

// ExtensionsRepo gives rpm-ostree the rpm-md repository of an extensions
// image (pkg/daemon/extensions), for as long as a transaction needs it.
type ExtensionsRepo interface {
	// Provide makes the repository of image available to rpm-ostree;
	// release removes it again.
	Provide(ctx context.Context, image string) (release func() error, err error)
}

// withExtensions provides the repository of image (none for "") around f.
func (d *Daemon) withExtensions(ctx context.Context, image string, f func() error) error {
	return withExtensionsRepo(ctx, d.opts.Extensions, image, f)
}

func withExtensionsRepo(ctx context.Context, repo ExtensionsRepo, image string, f func() error) error {
	if image == "" {
		return f()
	}
	if repo == nil {
		return fmt.Errorf("extensions image %s: no extensions repository provider configured", image)
	}
	release, err := repo.Provide(ctx, image)
	if err != nil {
		return fmt.Errorf("providing the repository of extensions image %s: %w", image, err)
	}
	err = f()
	if rerr := release(); rerr != nil {
		klog.FromContext(ctx).Error(rerr, "removing the extensions repository", "image", image)
		err = errors.Join(err, rerr)
	}
	return err
}

// layerPackages is ActLayerPackages. It records nothing: the next
// observation shows the pending deployment requesting the packages.
func (d *Daemon) layerPackages(ctx context.Context, a Action) error {
	l, ok := d.opts.OS.(PackageLayerer)
	if !ok || a.Packages == nil {
		return fmt.Errorf("%s: the OS adapter does not layer packages", a.Kind)
	}
	d.conditions(ctx, []metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionUnknown, "LayeringPackages",
		"Layering the kernel type and extensions of %s onto the staged deployment: %s", a.Config, a.Packages)})
	err := d.withExtensions(ctx, a.ExtensionsImage, func() error { return l.LayerPackages(ctx, *a.Packages) })
	if err != nil {
		return fmt.Errorf("layering %s: %w", a.Packages, err)
	}
	d.conditions(ctx, []metav1.Condition{cond(mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionTrue, "LayeredPackages",
		"Layered the kernel type and extensions of %s (%s), finalization-locked", a.Config, a.Packages)})
	return nil
}
