//go:build integration

package iso

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real machine-config-daemon binary, started after a stage of it was
// killed with SIGKILL, puts the disk's knobs back before it does anything
// else (here it then fails: there is no cluster to talk to).
func TestMachineConfigDaemonRestoresKnobsAtStart(t *testing.T) {
	d := loopDisk(t)
	root := filepath.Join(testRoot, "state-"+t.Name()+"-root")
	t.Cleanup(func() { os.RemoveAll(root) })
	state := filepath.Join(root, "var/lib/tandem/daemon/iso") // the daemon's <root>/var/lib/tandem/daemon + "/iso"
	t.Cleanup(func() { _, _ = RestoreInterrupted(context.Background(), Options{StateDir: state}) })
	orig := knobValues(t, d)

	module := filepath.Join("..", "..") // go test runs in pkg/iso
	bin := filepath.Join(t.TempDir(), "machine-config-daemon")
	build := exec.Command("go", "build", "-tags", "containers_image_openpgp", "-o", bin, "./cmd/machine-config-daemon")
	build.Dir = module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the daemon: %v\n%s", err, out)
	}

	c := startStageChild(t, PolicyWriteback, stageChildOptions{StateDir: state, Device: d,
		WBTLatency: testWBT, RequestSizeKB: testRequestSize, DirtyLimit: testDirtyLimit})
	checkStaged(t, orig, knobValues(t, d))
	kill9(t, c)
	checkStaged(t, orig, knobValues(t, d))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	daemon := exec.CommandContext(ctx, bin, "start", "--node-name=restore-test", "--kubeconfig="+filepath.Join(root, "no-such-kubeconfig"),
		"--root="+root, "--root-mount=/", "--sysroot="+root, "--metrics-url=", "--io-policy=none", "--host=harness")
	out, err := daemon.CombinedOutput()
	if err == nil {
		t.Fatalf("the daemon ran without a cluster:\n%s", out)
	}
	if !strings.Contains(string(out), "Restored the I/O knobs of an interrupted stage") {
		t.Errorf("daemon log does not report the restore:\n%s", out)
	}
	checkRestored(t, orig, knobValues(t, d))
	if _, err := os.Stat(RecordPath(state)); !os.IsNotExist(err) {
		t.Errorf("record left after the daemon's restore: %v", err)
	}
}
