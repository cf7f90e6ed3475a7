package ostree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
)

// What every test shares, made once in TestMain: the rpm-ostree double first
// on PATH, a registry on loopback and small synthesized OS images.
var (
	reg              *osimage.Registry
	img1, img2, img3 *osimage.Image
	corruptImg       *osimage.Image
	rpmOstreeBin     string
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "ostree-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if rpmOstreeBin, err = osdouble.BuildCLI(ctx, bin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Setenv("PATH", osdouble.PrependPath(bin))
		if reg, err = osimage.StartRegistry(ctx, filepath.Join(dir, "registry")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer reg.Close()
		var images []*osimage.Image
		for _, o := range []osimage.SynthOptions{{Version: 1}, {Version: 2}, {Version: 3}, {Version: 4, Seed: 7}} {
			o.Registry, o.WorkDir, o.Layers, o.SizeBytes = reg, dir, 3, 2<<20
			img, err := osimage.SynthesizeImage(ctx, o)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			images = append(images, img)
		}
		img1, img2, img3, corruptImg = images[0], images[1], images[2], images[3]
		if err := reg.CorruptBlob(corruptImg.Layers[2].Digest); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}())
}

// kubeletPullSecret is where every rendered config lays the cluster's pull
// secret (openshift/machine-config-operator release-4.21
// templates/common/_base/files/pull-secret.yaml).
const kubeletPullSecret = "/var/lib/kubelet/config.json"

type node struct {
	osdouble.Node
	t      *testing.T
	client *Client
	daemon *osdouble.DaemonProcess
}

func newNode(t *testing.T, o Options) *node { return newProfileNode(t, o, "") }

// newProfileNode makes a node running rpm-ostree profile (default: the
// newest), with its transaction daemon, and a client for it.
func newProfileNode(t *testing.T, o Options, profile string) *node {
	t.Helper()
	n := &node{Node: osdouble.NewNode(t.TempDir()), t: t}
	// The node as installed: it trusts the registry's CA and has the
	// cluster's pull secret where every rendered config lays it; the
	// installer pulls with it. Behaviour tests: no fsync, the disk is
	// shared with other work.
	n.trust(reg.Host())
	initial := osdouble.InitialOS{ImageRef: img1.Ref, NoFsync: true, Profile: profile, AuthFile: filepath.Join(n.Root, kubeletPullSecret)}
	if err := n.Init(context.Background(), initial); err != nil {
		t.Fatal(err)
	}
	n.startDaemon()
	t.Cleanup(func() {
		if n.daemon != nil {
			_ = n.daemon.Kill()
		}
	})
	o.Env = append(o.Env, n.Env()...)
	o.HostRun = n.Run
	if o.Root == "" {
		o.Root = n.Root
	}
	n.client = NewClient(o)
	return n
}

// adminAuth gives rpm-ostree run by hand (not through a Client, which
// links the pull secret itself) the administrator's credentials:
// /etc/ostree/auth.json, a link to the pull secret.
func (n *node) adminAuth() {
	n.t.Helper()
	p := filepath.Join(n.Root, "etc", "ostree", "auth.json")
	if _, err := os.Lstat(p); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		n.t.Fatal(err)
	}
	if err := os.Symlink(kubeletPullSecret, p); err != nil {
		n.t.Fatal(err)
	}
}

// trust makes the node trust the registry reached as each of hosts (the
// registry, a gate in front of it) and puts its credentials for them in
// the node's pull secret.
func (n *node) trust(hosts ...string) {
	n.t.Helper()
	files := reg.TrustFiles(hosts...)
	files[kubeletPullSecret] = string(reg.AuthJSON(hosts...))
	if err := n.WriteFiles(files); err != nil {
		n.t.Fatal(err)
	}
}

func (n *node) startDaemon() {
	n.t.Helper()
	d, err := n.StartDaemonProcess(context.Background(), rpmOstreeBin, filepath.Join(filepath.Dir(n.Run), "rpm-ostreed.log"))
	if err != nil {
		n.t.Fatal(err)
	}
	n.daemon = d
}

func (n *node) status() *Status {
	n.t.Helper()
	s, err := n.client.Status(context.Background())
	if err != nil {
		n.t.Fatal(err)
	}
	return s
}

func (n *node) booted() *Deployment {
	n.t.Helper()
	b, err := n.status().Booted()
	if err != nil {
		n.t.Fatal(err)
	}
	return b
}

// reboot reboots the machine: its rpm-ostreed goes down and comes back.
func (n *node) reboot() { n.boot(n.Reboot) }

// powerLoss power-cycles the machine.
func (n *node) powerLoss() { n.boot(n.PowerLoss) }

func (n *node) boot(how func() error) {
	n.t.Helper()
	_ = n.daemon.Kill()
	if err := how(); err != nil {
		n.t.Fatal(err)
	}
	n.startDaemon()
}

// commands returns the verbs of the mutating commands run since boot.
func (n *node) commands() []string {
	n.t.Helper()
	recs, err := n.Commands()
	if err != nil {
		n.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, strings.Join(r.Args, " "))
	}
	return out
}

func TestStageLockedThenRebootBootsTheOldDeployment(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	old := n.booted()
	staged, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !staged.Staged || !staged.FinalizationLocked || !staged.CarriesImage(img2.Ref) || staged.Version != img2.VersionLabel {
		t.Fatalf("staged %+v", staged)
	}
	if got := n.commands(); len(got) != 1 || got[0] != "rebase --lock-finalization ostree-unverified-registry:"+img2.Ref {
		t.Errorf("commands %q", got)
	}
	n.reboot()
	s := n.status()
	if b, _ := s.Booted(); b.Checksum != old.Checksum || !b.CarriesImage(img1.Ref) {
		t.Errorf("booted %s after reboot, want the old %s", b.Checksum, old.Checksum)
	}
	if s.StagedDeployment() != nil {
		t.Error("the locked staged deployment survived the reboot")
	}
}

func TestStageFinalizeRebootBootsTheNewDeployment(t *testing.T) {
	n := newNode(t, Options{ClientID: "tandem-test"})
	ctx := context.Background()
	staged, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.client.Finalize(ctx, img2.Digest); err != nil { // by image digest
		t.Fatal(err)
	}
	if req, _ := n.RebootRequested(); !req {
		t.Fatal("finalize did not ask for a reboot")
	}
	// rpm-ostree >= 2025.7 (the default profile) expects the image digest.
	recs, _ := n.Commands()
	if last := recs[len(recs)-1]; last.ClientID != "tandem-test" ||
		strings.Join(last.Args, " ") != "finalize-deployment "+img2.Digest {
		t.Errorf("last command %+v", last)
	}
	n.reboot()
	b := n.booted()
	if b.Checksum != staged.Checksum || !b.CarriesImage(img2.Ref) {
		t.Fatalf("booted %+v, want %s", b, staged.Checksum)
	}
	if rb := n.status().Rollback(); rb == nil || !rb.CarriesImage(img1.Ref) {
		t.Errorf("rollback %+v, want img1", rb)
	}

	// The next update, finalized by checksum.
	staged, err = n.client.Stage(ctx, img3.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.client.Finalize(ctx, staged.GetBaseChecksum()); err != nil {
		t.Fatal(err)
	}
	n.reboot()
	if !n.booted().CarriesImage(img3.Ref) {
		t.Fatalf("booted %+v, want img3", n.booted())
	}
}

func TestFinalizeWithTheWrongChecksumChangesNothing(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	staged, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", 64)
	err = n.client.Finalize(ctx, wrong)
	if !errors.Is(err, ErrChecksumMismatch) || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), staged.Checksum) {
		t.Fatalf("finalize with a wrong checksum: %v (want both values named)", err)
	}
	if err := n.client.Finalize(ctx, img3.Digest); !errors.Is(err, ErrChecksumMismatch) ||
		!strings.Contains(err.Error(), img3.Digest) || !strings.Contains(err.Error(), img2.Digest) {
		t.Fatalf("finalize with another image's digest: %v (want both digests named)", err)
	}
	if req, _ := n.RebootRequested(); req {
		t.Error("a failed finalize asked for a reboot")
	}
	if st := n.status().StagedDeployment(); st == nil || !st.FinalizationLocked || st.Checksum != staged.Checksum {
		t.Errorf("staged after failed finalize: %+v", st)
	}
	n.reboot()
	if !n.booted().CarriesImage(img1.Ref) {
		t.Error("a failed finalize changed what boots")
	}
	if err := n.client.Finalize(ctx, "not-a-checksum"); err == nil {
		t.Error("finalize accepted garbage")
	}
	if err := n.client.Finalize(ctx, img2.Digest); !errors.Is(err, ErrNoStagedDeployment) {
		t.Errorf("finalize with nothing staged: %v", err)
	}
}

func TestStagingTheSameDigestTwiceWritesNothing(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	first, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := n.Progress()
	second, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID {
		t.Errorf("second Stage returned %s, first %s", second.ID, first.ID)
	}
	if got := n.commands(); len(got) != 1 {
		t.Errorf("second Stage ran commands: %q", got)
	}
	after, _ := n.Progress()
	if *after != *before {
		t.Errorf("progress changed: %+v -> %+v", before, after)
	}
}

func TestStageReplacesAnotherStagedDeployment(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	if _, err := n.client.Stage(ctx, img2.Ref); err != nil {
		t.Fatal(err)
	}
	staged, err := n.client.Stage(ctx, img3.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !staged.CarriesImage(img3.Ref) || !staged.FinalizationLocked {
		t.Fatalf("staged %+v", staged)
	}
	want := []string{
		"rebase --lock-finalization ostree-unverified-registry:" + img2.Ref,
		"cleanup -p",
		"rebase --lock-finalization ostree-unverified-registry:" + img3.Ref,
	}
	if got := n.commands(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An unlocked deployment of the same image is replaced by a locked one.
	n.powerLoss()
	n.adminAuth()
	unlocked := exec.Command("rpm-ostree", "rebase", "ostree-unverified-registry:"+img3.Ref)
	unlocked.Env = append(os.Environ(), n.Env()...)
	if out, err := unlocked.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if staged, err = n.client.Stage(ctx, img3.Ref); err != nil || !staged.FinalizationLocked {
		t.Fatalf("restage of an unlocked deployment: %+v %v", staged, err)
	}
}

func TestStageTheBootedImage(t *testing.T) {
	n := newNode(t, Options{})
	b, err := n.client.Stage(context.Background(), img1.Ref)
	if !errors.Is(err, ErrAlreadyBooted) || b == nil || !b.Booted {
		t.Fatalf("Stage of the booted image: %+v %v", b, err)
	}
	if got := n.commands(); len(got) != 0 {
		t.Errorf("commands %q: the booted image needs none", got)
	}
}

func TestStageBadInputLeavesTheBootedDeploymentUntouched(t *testing.T) {
	tests := []struct {
		name, ref, want string
	}{
		{"unreachable registry", "127.0.0.1:1/os@" + img2.Digest, "connection refused"},
		{"missing digest", reg.Host() + "/os@sha256:" + strings.Repeat("ab", 32), "manifest unknown"},
		{"corrupted layer", corruptImg.Ref, "digest mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newNode(t, Options{})
			before := n.booted()
			_, err := n.client.Stage(context.Background(), tt.ref)
			var cmdErr *CommandError
			if !errors.As(err, &cmdErr) || !strings.Contains(cmdErr.Stderr, tt.want) {
				t.Fatalf("Stage: %v, want a CommandError saying %q", err, tt.want)
			}
			s := n.status()
			if s.StagedDeployment() != nil {
				t.Error("something was staged")
			}
			if b, _ := s.Booted(); b.ID != before.ID {
				t.Errorf("booted changed to %s", b.ID)
			}
			n.reboot()
			if b := n.booted(); b.ID != before.ID {
				t.Errorf("booted %s after reboot, want %s", b.ID, before.ID)
			}
		})
	}
	n := newNode(t, Options{})
	for _, ref := range []string{"127.0.0.1:1/os:latest", "ostree-unverified-registry:" + img2.Ref, "docker://" + img2.Ref} {
		if _, err := n.client.Stage(context.Background(), ref); err == nil {
			t.Errorf("Stage(%q) succeeded", ref)
		}
	}
	if got := n.commands(); len(got) != 0 {
		t.Errorf("invalid references reached rpm-ostree: %q", got)
	}
}

func TestKernelArgsActOnTheStagedDeployment(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	if _, err := n.client.Stage(ctx, img2.Ref); err != nil {
		t.Fatal(err)
	}
	// The MCO's edit: a repeated argument is kept, an absent one to
	// delete is not an error.
	if err := n.client.SetKernelArgs(ctx, []string{"nosmt", "hugepages=16", "hugepages=16"}, []string{"console=ttyS0,115200n8", "absent"}); err != nil {
		t.Fatal(err)
	}
	kargs, err := n.client.KernelArgs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kargs, " "); got != "rw root=LABEL=root nosmt hugepages=16 hugepages=16" {
		t.Errorf("kargs %q", got)
	}
	// From that config to one with a single hugepages=16 and console=ttyS1.
	if err := n.client.SetKernelArgs(ctx, []string{"hugepages=16", "console=ttyS1"}, []string{"nosmt", "hugepages=16", "hugepages=16"}); err != nil {
		t.Fatal(err)
	}
	if kargs, err = n.client.KernelArgs(ctx); err != nil || strings.Join(kargs, " ") != "rw root=LABEL=root hugepages=16 console=ttyS1" {
		t.Errorf("kargs %q %v", kargs, err)
	}
	staged := n.status().StagedDeployment()
	if staged == nil || !staged.FinalizationLocked || !staged.CarriesImage(img2.Ref) {
		t.Fatalf("staged after kargs: %+v", staged)
	}
	if err := n.client.Finalize(ctx, img2.Digest); err != nil {
		t.Fatal(err)
	}
	n.reboot()
	booted, err := n.Booted()
	if err != nil || strings.Join(booted.Kargs, " ") != "rw root=LABEL=root hugepages=16 console=ttyS1" {
		t.Errorf("booted kargs %v %v", booted, err)
	}
}

func TestCommandErrorsCarryStderr(t *testing.T) {
	n := newNode(t, Options{})
	_, err := n.client.run(context.Background(), nil, "status", "--frobnicate")
	var cmdErr *CommandError
	if !errors.As(err, &cmdErr) || cmdErr.ExitCode != 1 || !strings.Contains(cmdErr.Stderr, "Unknown option --frobnicate") ||
		strings.Join(cmdErr.Args, " ") != "status --frobnicate" {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "Unknown option --frobnicate") {
		t.Errorf("Error() = %q", err.Error())
	}
	missing := NewClient(Options{Binary: filepath.Join(t.TempDir(), "no-such-rpm-ostree")})
	if _, err := missing.Status(context.Background()); err == nil || errors.As(err, &cmdErr) && cmdErr.ExitCode >= 0 {
		t.Errorf("missing binary: %v", err)
	}
}

func TestCancelledContext(t *testing.T) {
	n := newNode(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.client.Stage(ctx, img2.Ref); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stage with a cancelled context: %v", err)
	}
	if n.status().StagedDeployment() != nil {
		t.Error("a cancelled Stage staged something")
	}
}

func TestHooksAndProgress(t *testing.T) {
	var mu sync.Mutex
	var pids []int
	var progress []StageProgress
	n := newNode(t, Options{
		StartHook: func(cmd *exec.Cmd) (func(int) error, error) {
			return func(pid int) error {
				mu.Lock()
				defer mu.Unlock()
				pids = append(pids, pid)
				return nil
			}, nil
		},
		OnProgress: func(p StageProgress) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, p)
		},
	})
	if _, err := n.client.Stage(context.Background(), img2.Ref); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pids) != 3 { // status, rebase, status
		t.Errorf("hook saw %d processes, want 3", len(pids))
	}
	if len(progress) != 4 {
		t.Fatalf("progress updates %+v, want 4 (needed + 3 layers)", progress)
	}
	last := progress[len(progress)-1]
	if last.LayersTotal != 3 || last.LayersDone != 3 || last.BytesTotal == 0 || last.BytesDone*100 < last.BytesTotal*95 { // sizes are printed rounded
		t.Errorf("last progress %+v", last)
	}

	failing := NewClient(Options{Env: n.Env(), StartHook: func(*exec.Cmd) (func(int) error, error) {
		return func(int) error { return errors.New("no cgroup for you") }, nil
	}})
	if _, err := failing.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "no cgroup for you") {
		t.Errorf("failing hook: %v", err)
	}
}

// TestKillDuringStageLeavesNoHalfDeployment: kill -9 of rpm-ostreed (the
// process that writes) mid-pull leaves the old deployment and no half one.
func TestKillDuringStageLeavesNoHalfDeployment(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	killed := false
	var n *node
	n = newNode(t, Options{
		OnProgress: func(p StageProgress) {
			mu.Lock()
			defer mu.Unlock()
			if p.LayersDone == 1 && !killed { // mid-pull: one layer of three written
				killed = true
				_ = n.daemon.Kill()
			}
		},
	})
	before := n.booted()
	_, err := n.client.Stage(ctx, img2.Ref)
	var cmdErr *CommandError
	if !killed || !errors.As(err, &cmdErr) || !strings.Contains(cmdErr.Stderr, "the daemon crashed") {
		t.Fatalf("killed %v, Stage: %v", killed, err)
	}
	if p, _ := n.Progress(); p == nil || p.LayersDone != 1 || p.Phase != osdouble.PhasePulling {
		t.Errorf("progress after the kill: %+v", p)
	}
	n.startDaemon() // systemd or D-Bus activation starts rpm-ostreed again
	s := n.status()
	if s.StagedDeployment() != nil || s.Transaction != nil {
		t.Fatalf("after kill -9: staged %+v transaction %v", s.StagedDeployment(), s.Transaction)
	}
	if b, _ := s.Booted(); b.ID != before.ID {
		t.Fatalf("booted changed to %s", b.ID)
	}
	if err := osdouble.Fsck(n.Sysroot, n.Run); err != nil {
		t.Fatal(err)
	}
	// The daemon restages after its restart; the interrupted pull is redone.
	staged, err := n.client.Stage(ctx, img2.Ref)
	if err != nil || !staged.FinalizationLocked {
		t.Fatalf("restage: %+v %v", staged, err)
	}
	if err := osdouble.Fsck(n.Sysroot, n.Run); err != nil {
		t.Fatal(err)
	}
	leftovers, err := os.ReadDir(filepath.Join(n.Sysroot, "ostree", "repo", "tmp"))
	if err != nil || len(leftovers) != 0 {
		t.Errorf("repo tmp after the restage: %v %v", leftovers, err)
	}
}

func TestVersion(t *testing.T) {
	v, err := NewClient(Options{}).Version(context.Background())
	if err != nil || v.Version != osdouble.DefaultProfile || len(v.Features) == 0 {
		t.Fatalf("version %+v %v", v, err)
	}
}

func TestTransactionInProgressIsRecognised(t *testing.T) {
	err := &CommandError{Args: []string{"cleanup", "-p"}, ExitCode: 1,
		Stderr: "error: Transaction in progress: rebase ostree-unverified-registry:x\nYou can cancel the current transaction with `rpm-ostree cancel`\n"}
	if !IsTransactionInProgress(fmt.Errorf("wrapped: %w", err)) || errors.Is(err, ErrChecksumMismatch) {
		t.Errorf("matching of %v is wrong", err)
	}
}
