package osdouble

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	rpmostreeclient "github.com/coreos/rpmostree-client-go/pkg/client"

	"github.com/tandem-mco/tandem/test/osimage"
)

// The registry and images every test uses, made once in TestMain.
var (
	reg            *osimage.Registry
	img1, img2     *osimage.Image
	corruptImg     *osimage.Image
	notBootableImg *osimage.Image
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "osdouble-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if reg, err = osimage.StartRegistry(ctx, filepath.Join(dir, "registry")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer reg.Close()
		synth := func(o osimage.SynthOptions) *osimage.Image {
			o.Registry, o.WorkDir, o.Layers = reg, dir, 3
			if o.SizeBytes == 0 {
				o.SizeBytes = 2 << 20
			}
			img, err := osimage.SynthesizeImage(ctx, o)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return img
		}
		img1 = synth(osimage.SynthOptions{Version: 1})
		img2 = synth(osimage.SynthOptions{Version: 2})
		corruptImg = synth(osimage.SynthOptions{Version: 3, Seed: 99})
		if err := reg.CorruptBlob(corruptImg.Layers[1].Digest); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		notBootableImg = synth(osimage.SynthOptions{Version: 4, NotBootable: true, SizeBytes: 256 << 10})
		return m.Run()
	}())
}

type testNode struct {
	Node
	t      *testing.T
	daemon **LocalDaemon
}

// newTestNode makes a node that trusts the test registry (its CA in the
// node's certs.d) and has its credentials in /etc/ostree/auth.json, as an
// administrator would set a node up; the installer pulls with them.
func newTestNode(t *testing.T, initial InitialOS) testNode {
	t.Helper()
	n := testNode{Node: NewNode(t.TempDir()), t: t, daemon: new(*LocalDaemon)}
	n.trust(reg.Host())
	initial.NoFsync = true // behaviour tests; TestPerObjectFsync... syncs for real
	initial.AuthFile = filepath.Join(n.Root, "etc", "ostree", "auth.json")
	if err := n.Init(context.Background(), initial); err != nil {
		t.Fatal(err)
	}
	n.startDaemon()
	t.Cleanup(func() { n.stopDaemon() })
	return n
}

// trust makes the node trust the test registry reached as each of hosts
// (the registry itself, a gate in front of it) and gives it the registry's
// credentials for them in /etc/ostree/auth.json.
func (n testNode) trust(hosts ...string) {
	n.t.Helper()
	files := map[string]string{"/etc/ostree/auth.json": string(reg.AuthJSON(hosts...))}
	for p, c := range reg.TrustFiles(hosts...) {
		files[p] = c
	}
	for p, c := range files {
		writeNodeFile(n.t, n.Root, p, c)
	}
}

// writeNodeFile writes the file p (a path of the node) under root.
func writeNodeFile(t testing.TB, root, p, content string) {
	t.Helper()
	if err := (Node{Root: root}).WriteFiles(map[string]string{p: content}); err != nil {
		t.Fatal(err)
	}
}

func (n testNode) startDaemon() {
	n.t.Helper()
	d, err := n.StartLocalDaemon(context.Background())
	if err != nil {
		n.t.Fatal(err)
	}
	*n.daemon = d
}

func (n testNode) stopDaemon() {
	if *n.daemon != nil {
		if err := (*n.daemon).Stop(); err != nil {
			n.t.Errorf("stopping the transaction daemon: %v", err)
		}
		*n.daemon = nil
	}
}

// Reboot is a machine's reboot: the transaction daemon goes down with it
// and starts again on the new boot.
func (n testNode) Reboot() error {
	n.stopDaemon()
	defer n.startDaemon()
	return n.Node.Reboot()
}

// PowerLoss is Reboot without an orderly shutdown.
func (n testNode) PowerLoss() error {
	n.stopDaemon()
	defer n.startDaemon()
	return n.Node.PowerLoss()
}

type result struct {
	code           int
	stdout, stderr string
}

func (n testNode) rpmOstree(args ...string) result {
	return n.rpmOstreeCtx(context.Background(), args...)
}

func (n testNode) rpmOstreeCtx(ctx context.Context, args ...string) result {
	return n.rpmOstreeOut(ctx, nil, args...)
}

// rpmOstreeOut runs the CLI in this process; watch, if set, sees stdout too.
func (n testNode) rpmOstreeOut(ctx context.Context, watch io.Writer, args ...string) result {
	env := map[string]string{EnvClientID: "osdouble-test"}
	for _, kv := range n.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var out, errOut bytes.Buffer
	var stdout io.Writer = &out
	if watch != nil {
		stdout = io.MultiWriter(&out, watch)
	}
	code := Main(ctx, args, func(k string) string { return env[k] }, stdout, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// lineWatch closes seen once a line starting with prefix was written.
type lineWatch struct {
	prefix string
	mu     sync.Mutex
	buf    []byte
	seen   chan struct{}
	once   sync.Once
}

func newLineWatch(prefix string) *lineWatch {
	return &lineWatch{prefix: prefix, seen: make(chan struct{})}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for _, line := range strings.Split(string(w.buf), "\n") {
		if strings.HasPrefix(line, w.prefix) {
			w.once.Do(func() { close(w.seen) })
		}
	}
	return len(p), nil
}

func (n testNode) mustRun(args ...string) result {
	n.t.Helper()
	r := n.rpmOstree(args...)
	if r.code != 0 {
		n.t.Fatalf("rpm-ostree %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

func (n testNode) status() *rpmostreeclient.Status {
	n.t.Helper()
	r := n.mustRun("status", "--json")
	var s rpmostreeclient.Status
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		n.t.Fatalf("status --json does not parse with rpmostree-client-go: %v\n%s", err, r.stdout)
	}
	return &s
}

// rawStatus returns status --json as generic JSON, to check field presence.
func (n testNode) rawStatus() []map[string]any {
	n.t.Helper()
	var s struct {
		Deployments []map[string]any `json:"deployments"`
	}
	if err := json.Unmarshal([]byte(n.mustRun("status", "--json").stdout), &s); err != nil {
		n.t.Fatal(err)
	}
	return s.Deployments
}

func (n testNode) booted() *Deployment {
	n.t.Helper()
	d, err := n.Booted()
	if err != nil {
		n.t.Fatal(err)
	}
	return d
}

func refspec(img *osimage.Image) string { return "ostree-unverified-registry:" + img.Ref }

func TestInitFromImageBootsIt(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	s := n.status()
	if len(s.Deployments) != 1 || !s.Deployments[0].Booted {
		t.Fatalf("deployments: %+v", s.Deployments)
	}
	d := s.Deployments[0]
	if d.ContainerImageReference != refspec(img1) || d.Version != img1.VersionLabel || d.Staged {
		t.Errorf("booted: %+v", d)
	}
	raw := n.rawStatus()[0]
	if raw["container-image-reference-digest"] != img1.Digest {
		t.Errorf("container-image-reference-digest = %v, want %s", raw["container-image-reference-digest"], img1.Digest)
	}
	if _, ok := raw["finalization-locked"]; ok {
		t.Error("finalization-locked present on a booted deployment")
	}
	if _, ok := raw["origin"]; ok {
		t.Error("origin present on a container deployment")
	}
	if err := Init(context.Background(), n.Sysroot, InitialOS{}); err == nil {
		t.Error("Init of an initialized sysroot succeeded")
	}
}

func TestLockedStageIsDiscardedByReboot(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	r := n.mustRun("rebase", "--lock-finalization", refspec(img2))
	for _, want := range []string{"Pulling manifest: " + refspec(img2), "ostree chunk layers needed: 3", "[2/3] Fetching ostree chunk", "Staging deployment...done"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rebase output lacks %q:\n%s", want, r.stdout)
		}
	}
	s := n.status()
	if len(s.Deployments) != 2 || !s.Deployments[0].Staged || !s.Deployments[1].Booted {
		t.Fatalf("after rebase: %+v", s.Deployments)
	}
	if _, locked, _ := n.Staged(); !locked {
		t.Error("rebase --lock-finalization left the staged deployment unlocked")
	}
	// rpm-ostree >= 2024.6 (the default profile) no longer shows the lock,
	// and container deployments never get pending-base-*.
	for i, d := range n.rawStatus() {
		for _, k := range []string{"finalization-locked", "pending-base-checksum", "pending-base-version", "pending-base-timestamp"} {
			if v, ok := d[k]; ok {
				t.Errorf("deployment %d: %s = %v, want no such field", i, k, v)
			}
		}
	}
	p, err := n.Progress()
	if err != nil || p == nil {
		t.Fatalf("progress: %v %v", p, err)
	}
	if p.Phase != PhaseDone || p.LayersDone != 3 || p.BytesWritten < img2.ContentBytes || p.ObjectsWritten < int64(img2.Files) {
		t.Errorf("progress: %+v (image %d bytes, %d files)", p, img2.ContentBytes, img2.Files)
	}

	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	s = n.status()
	if len(s.Deployments) != 1 || s.Deployments[0].ContainerImageReference != refspec(img1) || !s.Deployments[0].Booted {
		t.Fatalf("after reboot: %+v", s.Deployments)
	}
	if d, _, _ := n.Staged(); d != nil {
		t.Errorf("staged deployment survived the reboot: %+v", d)
	}
}

func TestFinalizeThenRebootBootsTheNewDeployment(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	old := n.booted()
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	staged, locked, err := n.Staged()
	if err != nil || staged == nil || !locked {
		t.Fatalf("staged %v locked %v err %v", staged, locked, err)
	}
	if req, _ := n.RebootRequested(); req {
		t.Fatal("reboot requested before finalize")
	}
	// >= 2025.7 (the default profile): a container deployment is named by
	// its image digest.
	n.mustRun("finalize-deployment", staged.ImageDigest)
	if _, locked, _ := n.Staged(); locked {
		t.Error("still locked after finalize-deployment")
	}
	if req, _ := n.RebootRequested(); !req {
		t.Fatal("finalize-deployment did not ask for a reboot")
	}
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	if req, _ := n.RebootRequested(); req {
		t.Error("reboot request not cleared by the reboot")
	}
	s := n.status()
	if len(s.Deployments) != 2 {
		t.Fatalf("after reboot: %+v", s.Deployments)
	}
	b, err := s.GetBootedDeployment()
	if err != nil || b.Checksum != staged.Checksum || b.ContainerImageReference != refspec(img2) {
		t.Fatalf("booted %+v, want %s", b, staged.Checksum)
	}
	if s.Deployments[1].Checksum != old.Checksum || s.Deployments[1].Booted {
		t.Errorf("rollback %+v, want the old booted %s", s.Deployments[1], old.Checksum)
	}
}

func TestFinalizeChecksumRule(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	staged, _, _ := n.Staged()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"finalize-deployment", strings.Repeat("0", 64)}, "Expected staged base checksum " + strings.Repeat("0", 64) + ", but found " + staged.ImageDigest},
		{[]string{"finalize-deployment", staged.Checksum}, "Expected staged base checksum " + staged.Checksum + ", but found " + staged.ImageDigest},
		{[]string{"finalize-deployment", img1.Digest}, "Expected staged base checksum"},
		{[]string{"finalize-deployment"}, "Must provide expected CHECKSUM or --allow-missing-checksum"},
		{[]string{"finalize-deployment", "--allow-missing-checksum", staged.Checksum}, "Cannot specify both CHECKSUM and --allow-missing-checksum"},
		{[]string{"finalize-deployment", "a", "b"}, "Too many arguments passed"},
	}
	for _, tt := range tests {
		r := n.rpmOstree(tt.args...)
		if r.code != 1 || !strings.Contains(r.stderr, "error: "+tt.want) {
			t.Errorf("%v: exit %d stderr %q, want exit 1 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if _, locked, _ := n.Staged(); !locked {
		t.Error("a failed finalize unlocked the staged deployment")
	}
	if req, _ := n.RebootRequested(); req {
		t.Error("a failed finalize asked for a reboot")
	}
	// A shutdown inhibitor in block mode stops it after the checksum check
	// and before the unlock; one in delay mode does not.
	if err := n.Inhibit(Inhibitor{What: "sleep", Who: "a", Why: "b", Mode: "block"}); err != nil {
		t.Fatal(err)
	}
	if err := n.Inhibit(Inhibitor{What: "shutdown", Who: "etcd-backup", Why: "snapshot in progress", Mode: "block"}); err != nil {
		t.Fatal(err)
	}
	if err := n.Inhibit(Inhibitor{What: "shutdown:sleep", Who: "other", Why: "x", Mode: "block"}); err != nil {
		t.Fatal(err)
	}
	r := n.rpmOstree("finalize-deployment", staged.ImageDigest)
	want := "error: Reboot blocked by a systemd inhibitor lock in `block` mode\nHeld by: etcd-backup\nReason: snapshot in progress\nand 1 other blocking inhibitor lock(s)\nUse `systemd-inhibit --list` to see details\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("finalize with inhibitors: exit %d stderr %q, want %q", r.code, r.stderr, want)
	}
	if r := n.rpmOstree("finalize-deployment", strings.Repeat("0", 64)); !strings.Contains(r.stderr, "Expected staged base checksum") {
		t.Errorf("the checksum is checked before the inhibitors: %q", r.stderr)
	}
	if _, locked, _ := n.Staged(); !locked {
		t.Error("a blocked finalize unlocked the staged deployment")
	}
	if err := os.Remove(filepath.Join(n.Run, "osdouble", "inhibitors.json")); err != nil {
		t.Fatal(err)
	}
	n.mustRun("finalize-deployment", "--allow-missing-checksum")
	// The daemon is rebooting the machine now: no new transaction.
	if r := n.rpmOstree("cleanup", "-p"); r.code != 1 || r.stderr != "error: Reboot initiated, cannot start new transaction\n" {
		t.Errorf("transaction after finalize: %+v", r)
	}
	// Already unlocked (a new daemon, same boot): an error unless --allow-unlocked.
	n.stopDaemon()
	n.startDaemon()
	if r := n.rpmOstree("finalize-deployment", staged.ImageDigest); r.code != 1 || !strings.Contains(r.stderr, "Staged deployment already unlocked") {
		t.Errorf("second finalize: %+v", r)
	}
	n.mustRun("finalize-deployment", "--allow-unlocked", staged.ImageDigest)
}

func TestFinalizeWithoutStagedDeployment(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	r := n.rpmOstree("finalize-deployment", n.booted().Checksum)
	if r.code != 1 || !strings.Contains(r.stderr, "No pending staged deployment found") {
		t.Errorf("got %+v", r)
	}
}

func countObjects(t *testing.T, sysroot string) (files int, latest int64) {
	t.Helper()
	err := filepath.Walk(filepath.Join(sysroot, "ostree", "repo", "objects"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		files++
		latest = max(latest, info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, latest
}

func TestRestagingAnImageAlreadyInTheRepoWritesNothing(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	objects, latest := countObjects(t, n.Sysroot)
	if err := n.Reboot(); err != nil { // discards the locked deployment, keeps the objects
		t.Fatal(err)
	}
	r := n.mustRun("rebase", "--lock-finalization", refspec(img2))
	if strings.Contains(r.stdout, "Fetching") {
		t.Errorf("second rebase fetched layers:\n%s", r.stdout)
	}
	p, err := n.Progress()
	if err != nil {
		t.Fatal(err)
	}
	if p.BytesWritten != 0 || p.ObjectsWritten != 0 {
		t.Errorf("second rebase wrote %d bytes in %d objects", p.BytesWritten, p.ObjectsWritten)
	}
	if o, l := countObjects(t, n.Sysroot); o != objects || l != latest {
		t.Errorf("objects changed: %d -> %d, latest mtime %d -> %d", objects, o, latest, l)
	}
	if d, locked, _ := n.Staged(); d == nil || !locked || d.ImageDigest != img2.Digest {
		t.Errorf("staged %+v locked %v", d, locked)
	}
}

func TestPerObjectFsyncIsReportedAndBothModesWrite(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint(on), func(t *testing.T) {
			n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
			if err := SetFsync(n.Sysroot, true); err != nil {
				t.Fatal(err)
			}
			if err := SetPerObjectFsync(n.Sysroot, on); err != nil {
				t.Fatal(err)
			}
			n.mustRun("rebase", "--lock-finalization", refspec(img2))
			p, err := n.Progress()
			if err != nil {
				t.Fatal(err)
			}
			if p.PerObjectFsync != on || p.ObjectsWritten == 0 {
				t.Errorf("progress %+v, want perObjectFsync %v and objects written", p, on)
			}
		})
	}
}

func TestSetCoreKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[core]\nrepo_version=1\nmode=bare\n", "[core]\nrepo_version=1\nmode=bare\nper-object-fsync=true\n"},
		{"[core]\nper-object-fsync=false\nmode=bare\n", "[core]\nper-object-fsync=true\nmode=bare\n"},
		{"[core]\nmode=bare\n\n[remote \"x\"]\nurl=y\n", "[core]\nmode=bare\n\nper-object-fsync=true\n[remote \"x\"]\nurl=y\n"},
		{"[remote \"x\"]\nurl=y\n", "[remote \"x\"]\nurl=y\n[core]\nper-object-fsync=true\n"},
	}
	for _, tt := range tests {
		if got := string(setCoreKey([]byte(tt.in), "per-object-fsync", "true")); got != tt.want {
			t.Errorf("setCoreKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
		p := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(p, setCoreKey([]byte(tt.in), "per-object-fsync", "true"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := readRepoConfig(p)
		if err != nil || !cfg.perObjectFsync || !cfg.fsync {
			t.Errorf("readRepoConfig after setCoreKey(%q): %+v %v", tt.in, cfg, err)
		}
	}
}

func TestBadInputLeavesTheNodeUntouched(t *testing.T) {
	missing := reg.Host() + "/os@sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name, refspec, want string
	}{
		{"unreachable registry", "ostree-unverified-registry:127.0.0.1:1/os@" + img2.Digest, "connection refused"},
		{"missing digest", "ostree-unverified-registry:" + missing, "manifest unknown"},
		{"corrupted layer", refspec(corruptImg), "digest mismatch"},
		{"not bootable", refspec(notBootableImg), "does not have ostree.bootable label"},
		{"signed", "ostree-image-signed:docker://" + img2.Ref, "signature verification is not supported"},
		{"ostree remote", "fedora:fedora/x86_64/coreos/stable", "not a container image reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
			before := n.booted()
			r := n.rpmOstree("rebase", "--lock-finalization", tt.refspec)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) || !strings.HasPrefix(r.stderr, "error: ") {
				t.Errorf("exit %d stderr %q, want exit 1 and %q", r.code, r.stderr, tt.want)
			}
			if d, _, _ := n.Staged(); d != nil {
				t.Errorf("something was staged: %+v", d)
			}
			if after := n.booted(); after.ID() != before.ID() {
				t.Errorf("booted changed: %s -> %s", before.ID(), after.ID())
			}
			if err := n.Reboot(); err != nil {
				t.Fatal(err)
			}
			if after := n.booted(); after.ID() != before.ID() {
				t.Errorf("booted after reboot changed: %s -> %s", before.ID(), after.ID())
			}
		})
	}
}

func TestUnknownArgumentsFail(t *testing.T) {
	n := newTestNode(t, InitialOS{})
	tests := []struct {
		args []string
		want string
	}{
		{nil, "No command specified"},
		{[]string{"frobnicate"}, "Unknown command 'frobnicate'"},
		{[]string{"status", "--frob"}, "Unknown option --frob"},
		{[]string{"cleanup", "-x"}, "Unknown option -x"},
		{[]string{"rebase", "--lock-finalization"}, "Must specify one or two arguments"},
		{[]string{"cleanup"}, "At least one cleanup option must be specified"},
		{[]string{"kargs", "--append"}, "Missing argument for --append"},
		{[]string{"status", "--json=yes"}, "Unexpected value for option --json"},
	}
	for _, tt := range tests {
		r := n.rpmOstree(tt.args...)
		if r.code != 1 || !strings.Contains(r.stderr, "error: "+tt.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if r := n.mustRun("--version"); !strings.Contains(r.stdout, "Version: '"+DefaultProfile+"'") {
		t.Errorf("--version: %q", r.stdout)
	}
}

func TestRefsEqualAndDeploy(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	r := n.rpmOstree("rebase", refspec(img1))
	if r.code != 1 || !strings.Contains(r.stderr, "Old and new refs are equal: "+refspec(img1)) {
		t.Errorf("rebase to the booted ref: %+v", r)
	}
	if r := n.mustRun("deploy", "--lock-finalization", img1.Digest); !strings.Contains(r.stdout, "No change.") {
		t.Errorf("deploy of the booted digest: %+v", r)
	}
	if r := n.rpmOstree("deploy", "--unchanged-exit-77", img1.Digest); r.code != 77 {
		t.Errorf("--unchanged-exit-77: %+v", r)
	}
	// Another digest of the same repository, origin unchanged.
	n.mustRun("deploy", "--lock-finalization", img2.Digest)
	s := n.status()
	st := s.GetStagedDeployment()
	raw := n.rawStatus()[0]
	if _, locked, _ := n.Staged(); st == nil || st.ContainerImageReference != refspec(img1) || raw["container-image-reference-digest"] != img2.Digest || !locked {
		t.Errorf("after deploy: %+v / %v", st, raw)
	}
	// With a staged deployment, its origin is the one compared.
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	if r := n.rpmOstree("rebase", refspec(img2)); !strings.Contains(r.stderr, "Old and new refs are equal") {
		t.Errorf("rebase to the staged ref: %+v", r)
	}
}

func TestKargs(t *testing.T) {
	n := newTestNode(t, InitialOS{Kargs: []string{"rw", "console=tty0", "quiet"}})
	if r := n.mustRun("kargs"); strings.TrimSpace(r.stdout) != "rw console=tty0 quiet" {
		t.Errorf("kargs: %q", r.stdout)
	}
	n.mustRun("kargs", "--lock-finalization", "--append=nosmt", "--delete=quiet")
	n.mustRun("kargs", "--lock-finalization", "--replace=console=ttyS0")
	if r := n.mustRun("kargs"); strings.TrimSpace(r.stdout) != "rw console=ttyS0 nosmt" {
		t.Errorf("kargs of the staged deployment: %q", r.stdout)
	}
	staged, locked, _ := n.Staged()
	if staged == nil || !locked || staged.Checksum != n.booted().Checksum || staged.Serial != 1 {
		t.Errorf("staged %+v locked %v", staged, locked)
	}
	if r := n.rpmOstree("kargs", "--delete=absent"); r.code != 1 || !strings.Contains(r.stderr, "No key 'absent' found") {
		t.Errorf("delete of an absent karg: %+v", r)
	}
	if r := n.rpmOstree("kargs", "--unchanged-exit-77", "--delete-if-present=absent", "--append-if-missing=nosmt"); r.code != 77 || r.stdout != "No changes.\n" {
		t.Errorf("no-op edit: %+v", r)
	}
	// Without --lock-finalization the staged deployment is unlocked, as ostree does.
	n.mustRun("kargs", "--append=debug")
	if _, locked, _ := n.Staged(); locked {
		t.Error("kargs without --lock-finalization left the deployment locked")
	}
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(n.booted().Kargs, " "); got != "rw console=ttyS0 nosmt debug" {
		t.Errorf("booted kargs %q", got)
	}
}

func TestCleanup(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	objects, _ := countObjects(t, n.Sysroot)
	if r := n.mustRun("cleanup", "-p"); !strings.Contains(r.stdout, "deployment count change: -1") || !strings.Contains(r.stdout, "Freed:") {
		t.Errorf("cleanup -p: %q", r.stdout)
	}
	if d, locked, _ := n.Staged(); d != nil || locked {
		t.Errorf("staged after cleanup -p: %+v %v", d, locked)
	}
	if after, _ := countObjects(t, n.Sysroot); after >= objects {
		t.Errorf("cleanup -p did not prune: %d -> %d objects", objects, after)
	}
	if r := n.mustRun("cleanup", "-p"); !strings.Contains(r.stdout, "Deployments unchanged.") {
		t.Errorf("second cleanup -p: %q", r.stdout)
	}
	// Rollback: finalize an update, then drop the old deployment.
	n.mustRun("rebase", refspec(img2))
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	if s := n.status(); len(s.Deployments) != 2 {
		t.Fatalf("want booted + rollback, got %+v", s.Deployments)
	}
	n.mustRun("cleanup", "-r")
	if s := n.status(); len(s.Deployments) != 1 || s.Deployments[0].ContainerImageReference != refspec(img2) {
		t.Fatalf("after cleanup -r: %+v", s.Deployments)
	}
}

func TestPowerLossDiscardsEvenAnUnlockedStagedDeployment(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	before := n.booted()
	n.mustRun("rebase", refspec(img2)) // not locked
	if err := n.PowerLoss(); err != nil {
		t.Fatal(err)
	}
	if after := n.booted(); after.ID() != before.ID() {
		t.Errorf("booted %s after power loss, want %s", after.ID(), before.ID())
	}
	if d, _, _ := n.Staged(); d != nil {
		t.Error("staged deployment survived a power loss")
	}
}

// TestTransactions: one transaction at a time, held at a known point (its
// first layer download) by a gate, so nothing depends on timing.
func TestTransactions(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	gate, err := NewGate(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	n.trust(reg.Host(), gate.Host())
	running := []string{"rebase", "--lock-finalization", "ostree-unverified-registry:" + gate.Ref(img2.Ref)}
	first := make(chan result, 1)
	go func() { first <- n.rpmOstree(running...) }()
	<-gate.Waiting()

	title := strings.Join(running, " ") + " "
	r := n.rpmOstree("cleanup", "-p")
	if want := "error: Transaction in progress: " + title + "\n You can cancel the current transaction with `rpm-ostree cancel`\n"; r.code != 1 || r.stderr != want {
		t.Errorf("incompatible client: exit %d stderr %q, want %q", r.code, r.stderr, want)
	}
	var st struct{ Transaction []string }
	_ = json.Unmarshal([]byte(n.mustRun("status", "--json").stdout), &st)
	if len(st.Transaction) != 3 || st.Transaction[0] != title || !strings.HasPrefix(st.Transaction[1], "client(id:osdouble-test pid:") {
		t.Errorf("status transaction = %q", st.Transaction)
	}
	if err := n.Node.Reboot(); err == nil || !strings.Contains(err.Error(), "Transaction in progress") {
		t.Errorf("Reboot during a transaction: %v", err)
	}

	// A client with the same command line joins the running transaction:
	// the gate opens only after it has joined.
	joined := newLineWatch("Attaching to existing transaction: " + title)
	second := make(chan result, 1)
	go func() { second <- n.rpmOstreeOut(context.Background(), joined, running...) }()
	<-joined.seen
	gate.Open()
	if r := <-first; r.code != 0 || !strings.Contains(r.stdout, "Staging deployment...done") {
		t.Errorf("first client: %+v", r)
	}
	if r := <-second; r.code != 0 {
		t.Errorf("attached client: %+v", r)
	}
	recs, err := n.Commands()
	if err != nil || len(recs) != 1 || strings.Join(recs[0].Args, " ") != strings.Join(running, " ") {
		t.Errorf("the attached client ran the transaction again: %+v %v", recs, err)
	}
	if d, locked, _ := n.Staged(); d == nil || !locked {
		t.Errorf("staged %+v locked %v", d, locked)
	}
}

// TestCancelCommand: `rpm-ostree cancel` stops the running transaction and
// returns once it has ended; the transaction's own client reports the
// cancellation.
func TestCancelCommand(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	if r := n.mustRun("cancel"); r.stdout != "No active transaction.\n" {
		t.Errorf("cancel when idle: %q", r.stdout)
	}
	gate, err := NewGate(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	n.trust(reg.Host(), gate.Host())
	args := []string{"rebase", "--lock-finalization", "ostree-unverified-registry:" + gate.Ref(img2.Ref)}
	first := make(chan result, 1)
	go func() { first <- n.rpmOstree(args...) }()
	<-gate.Waiting()
	r := n.mustRun("cancel")
	if want := "Cancelling transaction: " + strings.Join(args, " ") + " \nCancelled.\n"; r.stdout != want {
		t.Errorf("cancel: %q, want %q", r.stdout, want)
	}
	var st struct{ Transaction []string }
	_ = json.Unmarshal([]byte(n.mustRun("status", "--json").stdout), &st)
	if st.Transaction != nil {
		t.Errorf("transaction still running after cancel returned: %q", st.Transaction)
	}
	if r := <-first; r.code != 1 || !strings.Contains(r.stderr, "error: Operation was cancelled") {
		t.Errorf("cancelled client: %+v", r)
	}
	if d, _, _ := n.Staged(); d != nil {
		t.Error("a cancelled rebase staged something")
	}
}

func TestCancelledRebaseChangesNothing(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := n.rpmOstreeCtx(ctx, "rebase", "--lock-finalization", refspec(img2))
	if r.code != 1 || !strings.Contains(r.stderr, "Operation was cancelled") {
		t.Errorf("cancelled rebase: %+v", r)
	}
	if d, _, _ := n.Staged(); d != nil {
		t.Error("a cancelled rebase staged something")
	}
	recs, err := n.Commands()
	if err != nil || len(recs) != 1 || recs[0].Exit != 1 || recs[0].ClientID != "osdouble-test" {
		t.Errorf("command log %+v %v", recs, err)
	}
	// Leftovers in the repo's tmp dir go with the next transaction.
	junk := filepath.Join(n.Sysroot, "ostree", "repo", "tmp", "obj-junk")
	if err := os.WriteFile(junk, []byte("half an object"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	if ok, _ := exists(junk); ok {
		t.Error("tmp leftovers survived a transaction")
	}
}

func TestStatusText(t *testing.T) {
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	n.mustRun("rebase", "--lock-finalization", refspec(img2))
	r := n.mustRun("status")
	for _, want := range []string{"State: idle", "● " + refspec(img1), "Staged: yes\n", "Digest: " + img2.Digest} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := n.rpmOstree("status", "--pending-exit-77"); r.code != 77 {
		t.Errorf("--pending-exit-77 with a staged deployment: exit %d", r.code)
	}
	var s struct{ Deployments []map[string]any }
	if err := json.Unmarshal([]byte(n.mustRun("status", "--json", "-b").stdout), &s); err != nil || len(s.Deployments) != 1 || s.Deployments[0]["booted"] != true {
		t.Errorf("status --json -b: %v %v", s, err)
	}
}
