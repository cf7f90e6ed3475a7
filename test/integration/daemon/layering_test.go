//go:build integration

package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

// Configs that layer packages, all with config A's files.
const (
	cfgRT     = "rendered-worker-rt"      // image A, kernelType realtime, extension usbguard, extensions image 1
	cfgRTB    = "rendered-worker-rt-b"    // image B, the same, extensions image 2
	cfgPlainB = "rendered-worker-plain-b" // image B, the default kernel, no extension, extensions image 2
)

// The oracle, from the MCO's own lists (openshift/machine-config-operator
// release-4.20 at afed09939d80: pkg/daemon/update.go
// getKernelPackagesForRelease, pkg/controller/common/helpers.go
// SupportedExtensions "usbguard": {"usbguard"}) and the packages the test
// images carry (test/osimage DefaultPackages, DefaultExtensionPackages).
var (
	wantRemoved  = []string{"kernel", "kernel-core", "kernel-modules", "kernel-modules-core", "kernel-modules-extra"}
	wantLayered  = []string{"kernel-rt-core", "kernel-rt-kvm", "kernel-rt-modules", "kernel-rt-modules-extra", "usbguard"}
	extImagesMu  sync.Mutex
	extImagesFor = map[string][2]string{} // registry host -> extensions images 1 and 2
)

// extensionsImages pushes the extensions images of OS versions 1 and 2.
func (w *world) extensionsImages() (string, string) {
	w.t.Helper()
	extImagesMu.Lock()
	defer extImagesMu.Unlock()
	if imgs, ok := extImagesFor[w.registry.Host()]; ok {
		return imgs[0], imgs[1]
	}
	var imgs [2]string
	for i := range imgs {
		img, err := osimage.SynthesizeExtensions(context.Background(), osimage.ExtensionsOptions{
			Registry: w.registry, Version: i + 1, WorkDir: w.t.TempDir()})
		if err != nil {
			w.t.Fatal(err)
		}
		imgs[i] = img.Ref
	}
	extImagesFor[w.registry.Host()] = imgs
	return imgs[0], imgs[1]
}

// createLayeredMC creates a rendered config with a kernel type, extensions
// and an extensions image, unless it exists.
func (w *world) createLayeredMC(name, image string, cfg ign3types.Config, kernelType string, exts []string, extImage string) {
	w.t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineConfigSpec{OSImageURL: image, Config: kruntime.RawExtension{Raw: raw},
			KernelType: kernelType, Extensions: exts, BaseOSExtensionsContainerImage: extImage},
	}
	_, err = w.cp.MCO.MachineconfigurationV1().MachineConfigs().Create(context.Background(), mc, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		w.t.Fatalf("creating MachineConfig %s: %v", name, err)
	}
	w.imageOf[name], w.cfgs[name] = image, cfg
}

// layeredConfigs creates cfgRT, cfgRTB and cfgPlainB.
func (w *world) layeredConfigs() {
	ext1, ext2 := w.extensionsImages()
	a := w.cfgs[cfgA]
	w.createLayeredMC(cfgRT, w.imageA, a, "realtime", []string{"usbguard"}, ext1)
	w.createLayeredMC(cfgRTB, w.imageB, a, "realtime", []string{"usbguard"}, ext2)
	w.createLayeredMC(cfgPlainB, w.imageB, a, "", nil, ext2)
}

// trustRegistry tells the node's container tools that the test registry
// serves plain HTTP (its /etc/containers/registries.conf), as an admin
// would configure a mirror without TLS.
func trustRegistry(t testing.TB, sn *framework.SimNode, host string) {
	t.Helper()
	p := filepath.Join(sn.Root, "etc", "containers", "registries.conf")
	// Durably: the admin's configuration outlives a power loss.
	if err := framework.WriteFileDurably(p, []byte(fmt.Sprintf("[[registry]]\nlocation = %q\ninsecure = true\n", host)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bootedPackages is the booted commit's package database, as NEVRAs.
func bootedPackages(t testing.TB, sn *framework.SimNode) (*osdouble.Deployment, []string) {
	t.Helper()
	d, err := sn.Booted()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := osdouble.CommitPackages(sn.Sysroot, d.Checksum)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		out = append(out, p.String())
	}
	return d, out
}

// checkLayering is the oracle of a node booted into a config: the booted
// commit's packages are the image's, with the default kernel replaced by
// the realtime one and usbguard added when realtime is true, and the
// extensions repository is gone again.
func checkLayering(t *testing.T, sn *framework.SimNode, osVersion int, realtime bool) {
	t.Helper()
	d, pkgs := bootedPackages(t, sn)
	kv := osimage.KernelVersion(osVersion)
	has := func(nevra string) bool { return slices.Contains(pkgs, nevra) }
	if realtime {
		for _, p := range []string{"kernel-rt-core", "kernel-rt-modules", "kernel-rt-modules-extra", "kernel-rt-kvm"} {
			if want := p + "-" + kv + "-tandem.rt.x86_64"; !has(want) {
				t.Errorf("booted packages lack %s: %v", want, pkgs)
			}
		}
		if want := fmt.Sprintf("usbguard-1.%d-%d.tandem.x86_64", osVersion, osVersion); !has(want) {
			t.Errorf("booted packages lack %s: %v", want, pkgs)
		}
		for _, p := range wantRemoved {
			if want := p + "-" + kv + "-tandem.x86_64"; has(want) {
				t.Errorf("booted packages still have %s: %v", want, pkgs)
			}
		}
		if !slices.Equal(d.RequestedBaseRemovals, wantRemoved) || !slices.Equal(d.RequestedPackages, wantLayered) {
			t.Errorf("booted deployment requests packages %v and removals %v", d.RequestedPackages, d.RequestedBaseRemovals)
		}
	} else {
		for _, p := range wantRemoved {
			if want := p + "-" + kv + "-tandem.x86_64"; !has(want) {
				t.Errorf("booted packages lack %s: %v", want, pkgs)
			}
		}
		for _, p := range pkgs {
			if strings.HasPrefix(p, "kernel-rt-") || strings.HasPrefix(p, "usbguard-") {
				t.Errorf("booted packages still have %s", p)
			}
		}
		if d.BaseChecksum != "" || len(d.RequestedPackages)+len(d.RequestedBaseRemovals) > 0 {
			t.Errorf("booted deployment still layered: %+v", d)
		}
	}
	if _, err := os.Stat(filepath.Join(sn.Root, "etc", "yum.repos.d", "coreos-extensions.repo")); !os.IsNotExist(err) {
		t.Errorf("the extensions repository file was left on the node (%v)", err)
	}
}

func updateTo(w *world, sn *framework.SimNode, cfg string) *corev1.Node {
	w.t.Helper()
	w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfg})
	w.waitFor(sn, "stagedConfig="+cfg, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.StagedConfigAnnotation] == cfg
	})
	w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: cfg})
	n := w.waitFor(sn, "Done on "+cfg, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfg &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone &&
			n.Annotations[constants.LastAppliedDrainAnnotation] == constants.UncordonRequest(cfg)
	})
	waitSettled(w, sn)
	return n
}

// TestKernelTypeAndExtensions: the realtime kernel and an extension are
// layered on with one reboot, carried through an OS update, and removed
// again, as the MCO does it, each time onto a finalization-locked staged
// deployment that only the grant finalizes.
func TestKernelTypeAndExtensions(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	w.layeredConfigs()
	sn := w.installNode("layering", cfgA, a, w.imageA, framework.SimNodeOptions{})
	trustRegistry(t, sn, w.registry.Host())

	steps := []struct {
		cfg      string
		image    string
		version  int
		realtime bool
	}{
		{cfgRT, w.imageA, 1, true},      // layered on, no OS change
		{cfgRTB, w.imageB, 2, true},     // carried through the OS update, from extensions image 2
		{cfgPlainB, w.imageB, 2, false}, // removed again
	}
	for i, s := range steps {
		// Ungranted, nothing of it may boot: a reboot now keeps the old OS.
		w.drainer.setOnCordon(sn.Name, func(*corev1.Node) error {
			if st, locked, err := sn.Staged(); err == nil && st != nil && !locked {
				return fmt.Errorf("node %s cordoned with an unlocked staged deployment %s", sn.Name, st.Checksum)
			}
			return nil
		})
		n := updateTo(w, sn, s.cfg)
		if n.Spec.Unschedulable || n.Annotations[constants.ReasonAnnotation] != "" {
			t.Errorf("%s: %s", s.cfg, describe(n))
		}
		if got := bootedImage(t, sn); got != s.image {
			t.Errorf("%s: booted %s, want %s", s.cfg, got, s.image)
		}
		checkLayering(t, sn, s.version, s.realtime)
		checkFiles(t, sn, nil, &a)
		checkNoRecord(t, sn)
		if st, _, err := sn.Staged(); err != nil || st != nil {
			t.Errorf("%s: staged deployment left: %+v %v", s.cfg, st, err)
		}
		if boots := sn.Boots(); len(boots) != i+2 {
			t.Errorf("%s: %d boots, want %d (one reboot per update): %+v", s.cfg, len(boots), i+2, boots)
		}
	}
	fmt.Printf("kernel-type-extensions: updates=%d reboots=%d\n", len(steps), len(sn.Boots())-1)
}

// TestKernelTypeAndExtensionsBadInput: an unknown extension, a kernel type
// the node's architecture cannot run, and packages without an extensions
// image are Unreconcilable with the reason, and nothing on the node is
// touched.
func TestKernelTypeAndExtensionsBadInput(t *testing.T) {
	w := newWorld(t)
	a, _ := w.standardConfigs()
	ext1, _ := w.extensionsImages()
	cases := []struct {
		name, kernelType string
		exts             []string
		extImage, reason string
	}{
		{"unknown-extension", "", []string{"usbguard", "frobnicator"}, ext1, "invalid extensions found: [frobnicator]"},
		{"no-extensions-image", "realtime", nil, "", "need packages from the extensions image"},
	}
	if runtime.GOARCH != "arm64" {
		cases = append(cases, struct {
			name, kernelType string
			exts             []string
			extImage, reason string
		}{"64k-pages", "64k-pages", nil, ext1, "64k-pages is only supported for aarch64 architecture"})
	}
	sn := w.installNode("layering-bad", cfgA, a, w.imageA, framework.SimNodeOptions{})
	trustRegistry(t, sn, w.registry.Host())
	for _, tc := range cases {
		cfg := "rendered-worker-layering-bad-" + tc.name
		w.createLayeredMC(cfg, w.imageB, a, tc.kernelType, tc.exts, tc.extImage)
		w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfg, constants.DesiredConfigAnnotation: cfg})
		n := w.waitFor(sn, tc.name+": Unreconcilable", updateTimeout, func(n *corev1.Node) bool {
			return n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateUnreconcilable &&
				strings.Contains(n.Annotations[constants.ReasonAnnotation], cfg)
		})
		if reason := n.Annotations[constants.ReasonAnnotation]; !strings.Contains(reason, tc.reason) {
			t.Errorf("%s: reason %q does not say %q", tc.name, reason, tc.reason)
		}
		time.Sleep(time.Second) // time to do something wrong
		n = w.node(sn.Name)
		if n.Spec.Unschedulable || n.Annotations[constants.DesiredDrainAnnotation] != "" || n.Annotations[constants.StagedConfigAnnotation] == cfg {
			t.Errorf("%s: a bad config drained the node or was reported staged: %s", tc.name, describe(n))
		}
		if st, _, err := sn.Staged(); err != nil || st != nil {
			t.Errorf("%s: staged %+v %v", tc.name, st, err)
		}
		if got := bootedImage(t, sn); got != w.imageA || len(sn.Boots()) != 1 {
			t.Errorf("%s: booted %s after %d boots", tc.name, got, len(sn.Boots()))
		}
		checkLayering(t, sn, 1, false)
		checkFiles(t, sn, nil, &a)
	}
}
