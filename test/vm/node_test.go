//go:build vm

package vm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osimage"
	"github.com/tandem-mco/tandem/test/vm"
)

// Bounds of the waits. TCG on a shared 2-core machine is slow; these are
// generous on purpose, and each wait fails with what it last saw.
const (
	bootBound   = 10 * time.Minute
	stageBound  = 10 * time.Minute
	updateBound = 20 * time.Minute
)

// TestVMNode runs the scenarios of issue 12 on one VM node, in order: each
// starts from the node Done on the previous one's config. A power loss is
// a QEMU system_reset with cache=none: the guest's page cache is lost, so
// only what the daemon and the double synced survives.
func TestVMNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	w := &world{t: t}
	// TANDEM_VM_LOG_DIR keeps the VM (serial log, disk) after the test.
	logDir := os.Getenv("TANDEM_VM_LOG_DIR")
	if logDir == "" {
		logDir = t.TempDir()
	}
	w.log, _ = os.Create(filepath.Join(logDir, "vm-node-test.log"))
	start := time.Now()

	img, err := vm.EnsureImage(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if w.accel, err = vm.DetectAccel(ctx, img, os.Stderr); err != nil {
		t.Fatal(err)
	}
	tools, err := framework.ToolsBinDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := w.dir("bin")
	if err := vm.BuildBinaries(ctx, bin, filepath.Join(tools, "etcd")); err != nil {
		t.Fatal(err)
	}
	w.cp = framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "vm"})
	// The guest reaches the registry at its guestfwd address: the
	// certificate names it too.
	if w.reg, err = osimage.StartRegistryWith(ctx, w.dir("registry"), osimage.RegistryOptions{Hosts: []string{vm.GuestHostAddr}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.reg.Close() })
	w.startDrainController(ctx)

	// Configs, each with its own OS image. C (scenarios 2 to 5, pulled up
	// to four times) is large enough for a power loss to hit its pull; G
	// is larger, so that its pull outlasts the daemon's restart after the
	// kill and the new daemon joins the transaction.
	images := map[string]string{}
	for i, spec := range []struct {
		name string
		mib  int64
	}{{"a", 8}, {"b", 8}, {"c", 16}, {"g", 48}, {"h", 32}, {"r", 8}} {
		images[spec.name] = w.image(ctx, i+1, spec.mib)
	}
	cfgs := map[string]*config{}
	for _, n := range []string{"a", "b", "c", "g", "h", "r"} {
		cfgs[n] = w.createConfig(ctx, n, images[n])
	}
	w.createNode(ctx, cfgs["a"].name)

	etcdHost := freeAddr(t)
	w.etcdHost = etcdHost
	n, err := vm.StartNode(ctx, vm.NodeOptions{
		Image: img, Accel: w.accel, Dir: nodeDir(t, logDir), Bin: bin, NodeName: nodeName,
		Kubeconfig: w.guestKubeconfig(), StepHook: true,
		Install: &vm.InstallSpec{ImageRef: cfgs["a"].image, MachineConfig: cfgs["a"].mc, Files: w.reg.TrustFiles(guestRegistry())},
		GuestFwd: []vm.Forward{
			{GuestPort: guestAPIPort, HostAddr: w.apiserverAddr()},
			{GuestPort: guestRegistryPort, HostAddr: w.reg.Host()},
		},
		HostFwd: []vm.Forward{{GuestPort: guestEtcdPort, HostAddr: etcdHost}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.node = n
	t.Cleanup(func() {
		n.Stop()
		t.Logf("VM serial log: %s", n.SerialLog)
	})
	w.logf("vm: booting (accel=%s, image %s)", w.accel, img.Dir)
	if _, err := n.WaitBooted(ctx, bootBound); err != nil {
		t.Fatalf("first boot: %v", err)
	}
	w.logf("vm: first boot done")

	s := &suite{w: w, cfgs: cfgs}
	if err := s.waitDone(ctx, cfgs["a"], 0); err != nil {
		t.Fatalf("the installed node never reported Done on %s: %v", cfgs["a"].name, err)
	}
	scenarios := []struct {
		name string
		run  func(ctx context.Context, t *testing.T) error
	}{
		{"1-staged-update-with-grant", s.stagedUpdate},
		{"2-power-loss-mid-pull", s.powerLossMidPull},
		{"3-power-loss-staged-locked-before-grant", s.powerLossStagedBeforeGrant},
		{"4-power-loss-after-files-before-finalize", s.powerLossBeforeFinalize},
		{"5-power-loss-during-finalize", s.powerLossDuringFinalize},
		{"6-kill-daemon-mid-pull", s.killDaemonMidPull},
		{"7-governor-etcd-slow-fsyncs", s.governor},
		{"8-operator-daemonset-rootfs", s.operatorDaemonSet},
	}
	for _, sc := range scenarios {
		s.outcome.All = append(s.outcome.All, sc.name)
	}
	if s.outcome.Selected, err = vm.SelectScenarios(s.outcome.All, os.Getenv(vm.ScenariosEnv)); err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		if slices.Contains(s.outcome.Selected, sc.name) {
			s.run(t, sc.name, sc.run)
		}
	}
	// The line counts what ran and passed, says when the run was narrowed
	// on purpose, and the test fails when a selected scenario did not run.
	fields, wrong := s.outcome.Verdict()
	for _, why := range wrong {
		t.Error(why)
	}
	fmt.Printf("vm-node: %s boots=%d power_losses=%d accel=%s duration_s=%d\n",
		fields, len(n.Boots()), n.PowerLosses(), w.accel, int(time.Since(start).Seconds()))
}

// suite runs the scenarios in order on one node.
type suite struct {
	w       *world
	cfgs    map[string]*config
	current *config
	// finalizeHeld is the daemon's finalize step that scenario 4 left
	// held for scenario 5 ("" when none).
	finalizeHeld string
	// outcome records the scenarios selected, started and passed.
	outcome vm.ScenarioRun
	broken  string
}

func (s *suite) run(t *testing.T, name string, f func(ctx context.Context, t *testing.T) error) {
	s.outcome.Ran = append(s.outcome.Ran, name)
	t.Run(name, func(t *testing.T) {
		// TANDEM_VM_KEEP_GOING runs the next scenarios anyway (to see
		// several checks fail in one run when trying a change out).
		if s.broken != "" && os.Getenv("TANDEM_VM_KEEP_GOING") == "" {
			t.Fatalf("not run: %s left the node unconverged", s.broken)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
		defer cancel()
		t0 := time.Now()
		s.w.logf("scenario %s: start", name)
		if err := f(ctx, t); err != nil {
			s.broken = name
			s.dumpGuest(ctx, t)
			t.Fatal(err)
		}
		if t.Failed() {
			s.broken = name
			return
		}
		s.outcome.Passed = append(s.outcome.Passed, name)
		s.w.logf("scenario %s: passed in %s", name, time.Since(t0).Round(time.Second))
	})
}

// dumpGuest logs what the node shows, for a failed scenario.
func (s *suite) dumpGuest(ctx context.Context, t *testing.T) {
	out, err := s.w.node.Sh(ctx, time.Minute, "journalctl --no-pager -b -o short-monotonic -u machine-config-daemon -u rpm-ostreed -u ostree-finalize-staged | tail -60")
	t.Logf("guest journal (err %v):\n%s", err, out)
}

// waitDone waits for the node to be Done on c after exactly wantBoots more
// boots than it has seen, with its files, its OS and no record left.
func (s *suite) waitDone(ctx context.Context, c *config, _ int) error {
	w := s.w
	if _, err := w.waitNode(ctx, "Done on "+c.name, updateBound, func(n *corev1.Node) bool {
		a := n.Annotations
		return a[constants.CurrentConfigAnnotation] == c.name && a[constants.DesiredConfigAnnotation] == c.name &&
			a[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone && !n.Spec.Unschedulable
	}); err != nil {
		return err
	}
	if err := s.checkConverged(ctx, c); err != nil {
		return err
	}
	s.current = c
	return nil
}

// checkConverged is the oracle of a converged node: it boots c's image,
// nothing is staged, every file of c is whole (content and mode), no
// temporary file of a write is left, and the daemon's record is gone.
func (s *suite) checkConverged(ctx context.Context, c *config) error {
	n := s.w.node
	booted, err := s.bootedImage(ctx)
	if err != nil {
		return err
	}
	if booted != c.image {
		return fmt.Errorf("node boots %s, want %s's %s", booted, c.name, c.image)
	}
	if err := s.checkFiles(ctx, c); err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := n.Sh(ctx, time.Minute, "test -e /var/lib/tandem/daemon/record.json && echo present || echo absent")
		if err == nil && strings.TrimSpace(out) == "absent" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon's record is still there 2m after Done (%q, %v)", out, err)
		}
		time.Sleep(2 * time.Second)
	}
	return nil
}

// bootedImage is the image of the first boot entry in the double's
// persistent bootloader list (/sysroot/ostree/boot.json): what the node
// boots, read from its disk rather than from the daemon or rpm-ostree.
func (s *suite) bootedImage(ctx context.Context) (string, error) {
	out, err := s.w.node.ReadFile(ctx, "/sysroot/ostree/boot.json")
	if err != nil {
		return "", err
	}
	var bl struct {
		Deployments []struct {
			Origin string `json:"origin"`
		} `json:"deployments"`
	}
	if err := json.Unmarshal([]byte(out), &bl); err != nil || len(bl.Deployments) == 0 {
		return "", fmt.Errorf("boot entries: %v (%q)", err, out)
	}
	return daemon.NormalizeImage(bl.Deployments[0].Origin), nil
}

// checkFiles compares every file of c on the node with the spec (sha256
// and mode) and looks for leftover temporary files.
func (s *suite) checkFiles(ctx context.Context, c *config) error {
	var script strings.Builder
	for _, f := range c.files {
		fmt.Fprintf(&script, "echo \"$(sha256sum < %s | cut -d' ' -f1) $(stat -c %%a %s)\"\n", f.path, f.path)
	}
	script.WriteString("find /etc/tandem-vm -name '*.tandem-tmp-*' | sed 's/^/tmp /'\n")
	out, err := s.w.node.Sh(ctx, time.Minute, script.String())
	if err != nil {
		return fmt.Errorf("reading %s's files: %w", c.name, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, f := range c.files {
		sum := sha256.Sum256([]byte(f.contents))
		want := fmt.Sprintf("%s %o", hex.EncodeToString(sum[:]), f.mode)
		if i >= len(lines) || lines[i] != want {
			got := ""
			if i < len(lines) {
				got = lines[i]
			}
			return fmt.Errorf("file %s of %s: got %q, want %q (whole, mode %o)", f.path, c.name, got, want, f.mode)
		}
	}
	if len(lines) > len(c.files) {
		return fmt.Errorf("temporary files left: %v", lines[len(c.files):])
	}
	return nil
}

// stage asks for c to be staged and waits for stagedConfig.
func (s *suite) waitStaged(ctx context.Context, c *config) error {
	_, err := s.w.waitNode(ctx, "staged "+c.name, stageBound, func(n *corev1.Node) bool {
		return n.Annotations[constants.StagedConfigAnnotation] == c.name
	})
	return err
}

// bootsAfterPowerLoss cuts the power and waits for the next boot.
func (s *suite) powerLoss(ctx context.Context) error {
	s.w.logf("vm: power loss (system_reset)")
	if err := s.w.node.PowerLoss(ctx); err != nil {
		return err
	}
	if _, err := s.w.node.WaitBooted(ctx, bootBound); err != nil {
		return fmt.Errorf("boot after the power loss: %w", err)
	}
	s.w.logf("vm: booted after the power loss")
	return nil
}

// requireBooted fails unless the node boots the image of c.
func (s *suite) requireBooted(ctx context.Context, c *config, when string) error {
	got, err := s.bootedImage(ctx)
	if err != nil {
		return err
	}
	if got != c.image {
		return fmt.Errorf("%s: node boots %s, want %s of %s (an OS it was not granted)", when, got, c.image, c.name)
	}
	return nil
}

// progress reads the double's pull progress in the guest (nil: none yet).
func (s *suite) progress(ctx context.Context) (*struct {
	Phase        string `json:"phase"`
	BytesTotal   int64  `json:"bytesTotal"`
	BytesWritten int64  `json:"bytesWritten"`
	Image        string `json:"image"`
}, error) {
	r, err := s.w.node.Exec(ctx, 30*time.Second, "/bin/cat", "/run/rpm-ostree/progress.json")
	if err != nil || r.Code != 0 {
		return nil, err
	}
	var p struct {
		Phase        string `json:"phase"`
		BytesTotal   int64  `json:"bytesTotal"`
		BytesWritten int64  `json:"bytesWritten"`
		Image        string `json:"image"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
		return nil, nil // being rewritten
	}
	return &p, nil
}

// waitMidPull waits until the stage of c has written some but not all of
// its bytes.
func (s *suite) waitMidPull(ctx context.Context, c *config) error {
	deadline := time.Now().Add(stageBound)
	last := "no progress yet"
	for time.Now().Before(deadline) {
		p, err := s.progress(ctx)
		if err != nil {
			last = err.Error()
		} else if p != nil {
			last = fmt.Sprintf("%+v", *p)
			if p.BytesWritten > 0 && p.BytesWritten < p.BytesTotal {
				s.w.logf("vm: mid-pull: %s", last)
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("never saw %s's pull in progress within %s; last: %s", c.name, stageBound, last)
}

// journalHas tells whether a unit's journal of this boot contains text.
func (s *suite) journalHas(ctx context.Context, unit, text string) (bool, error) {
	out, err := s.w.node.Journal(ctx, unit, "0")
	return strings.Contains(out, text), err
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func nodeDir(t *testing.T, logDir string) string {
	d := filepath.Join(logDir, "node")
	_ = os.RemoveAll(d)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}
