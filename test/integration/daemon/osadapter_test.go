//go:build integration

package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/osupdate"
	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

// TestOSAdapterWithDouble drives the daemon's rpm-ostree adapter against the
// double (no apiserver): stage locked, status, kernel arguments, finalize,
// reboot, cleanup.
func TestOSAdapterWithDouble(t *testing.T) {
	ctx := context.Background()
	_, rpmOstree := buildBinaries(t)
	reg, err := osimage.StartRegistry(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	var imgs []string
	for v := 1; v <= 2; v++ {
		ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{Registry: reg, Version: v, SizeBytes: 2 << 20, Layers: 2, Uncompressed: true, WorkDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, ref)
	}
	dir := t.TempDir()
	node := osdouble.NewNode(dir)
	sysroot, run, rebootFile := node.Sysroot, node.Run, node.RebootFile
	// The node as installed: the registry's CA trusted, the cluster's pull
	// secret where every rendered config puts it.
	files := reg.TrustFiles()
	files[pullSecretPath] = string(reg.AuthJSON())
	if err := node.WriteFiles(files); err != nil {
		t.Fatal(err)
	}
	if err := node.Init(ctx, osdouble.InitialOS{ImageRef: imgs[0], AuthFile: filepath.Join(node.Root, pullSecretPath)}); err != nil {
		t.Fatal(err)
	}
	rpmOstreed, err := node.StartDaemonProcess(ctx, rpmOstree, filepath.Join(dir, "rpm-ostreed.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rpmOstreed.Kill() }()
	a := osupdate.New(osupdate.Options{
		Binary:        rpmOstree,
		Env:           node.Env(),
		DefaultPolicy: iso.PolicyPerObjectFsync,
		PolicyOptions: iso.Options{Sysroot: sysroot},
		HostRun:       run,
		Root:          node.Root,
		DaemonPIDFile: osdouble.DaemonPIDFile(run),
	})
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Booted.Image != imgs[0] || st.Staged != nil {
		t.Fatalf("initial status %+v", st)
	}
	var progress []daemon.StageProgress
	res, err := a.Stage(ctx, imgs[1], "", func(p daemon.StageProgress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("staged %s, %d bytes written, progress %+v", res.Checksum, res.BytesWritten, progress)
	if len(progress) < 2 || progress[len(progress)-1].Percent != 100 {
		t.Errorf("progress reports: %+v", progress)
	}
	if res.BytesWritten <= 0 {
		t.Errorf("bytes written %d", res.BytesWritten)
	}
	st, err = a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Staged == nil || !st.Staged.FinalizationLocked || st.Staged.Image != imgs[1] || st.Staged.Checksum != res.Checksum {
		t.Fatalf("after stage: %+v staged=%+v", st, st.Staged)
	}
	if err := a.SetKernelArgs(ctx, []string{"tandem.x=1"}, nil); err != nil {
		t.Fatal(err)
	}
	if st, err = a.Status(ctx); err != nil || st.Staged == nil || !st.Staged.FinalizationLocked {
		t.Fatalf("after kargs: %+v %v", st, err)
	}
	if err := a.Finalize(ctx, res.Checksum); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rebootFile); err != nil {
		t.Fatalf("finalize did not ask for a reboot: %v", err)
	}
	_ = rpmOstreed.Kill() // the machine goes down with its rpm-ostreed
	if err := osdouble.Reboot(sysroot, run); err != nil {
		t.Fatal(err)
	}
	if rpmOstreed, err = node.StartDaemonProcess(ctx, rpmOstree, filepath.Join(dir, "rpm-ostreed.log")); err != nil {
		t.Fatal(err)
	}
	if st, err = a.Status(ctx); err != nil || st.Booted.Image != imgs[1] || st.Staged != nil {
		t.Fatalf("after reboot: %+v %v", st, err)
	}
	d, _ := node.Booted()
	if !contains(d.Kargs, "tandem.x=1") {
		t.Errorf("kargs after reboot: %v", d.Kargs)
	}
	// Stage the old image back and discard it.
	if _, err := a.Stage(ctx, imgs[0], iso.PolicyNone, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.CleanupStaged(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err = a.Status(ctx); err != nil || st.Staged != nil {
		t.Fatalf("after cleanup: %+v %v", st, err)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
