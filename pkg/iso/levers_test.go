package iso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testRoot holds the tests' state dirs and loop images at fixed paths, so a
// run that dies before its cleanups is repaired by the next (TestMain).
const testRoot = "/var/tmp/tandem-iso-test"

// restoreTestLeftovers puts back the knobs an interrupted earlier run left
// in its state dirs and detaches the loop devices it left attached.
func restoreTestLeftovers() error {
	var errs []error
	dirs, _ := filepath.Glob(filepath.Join(testRoot, "state-*"))
	for _, d := range dirs {
		if _, err := RestoreInterrupted(context.Background(), Options{StateDir: d, LockWait: time.Minute}); err != nil {
			errs = append(errs, err)
			continue
		}
		os.RemoveAll(d)
	}
	imgs, _ := filepath.Glob(filepath.Join(testRoot, "loop-*.img"))
	for _, img := range imgs {
		out, _ := exec.Command("losetup", "-j", img).Output()
		for _, line := range strings.Split(string(out), "\n") {
			if dev, _, ok := strings.Cut(line, ":"); ok {
				_ = exec.Command("losetup", "-d", dev).Run()
			}
		}
		os.Remove(img)
	}
	return errors.Join(errs...)
}

// testStateDir is a test's state dir; its cleanup restores whatever the
// test left recorded (a failed assertion before Close) and removes it.
func testStateDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testRoot, "state-"+strings.ReplaceAll(t.Name(), "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := RestoreInterrupted(context.Background(), Options{StateDir: dir}); err != nil {
			// Keep the record: the next run's TestMain retries it.
			t.Errorf("restore in cleanup: %v", err)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// loopDisk attaches a loop device to a sparse file on the real disk: a real
// block device with its own queue and BDI in sysfs, whose knobs no one else
// on this shared machine uses.
func loopDisk(t *testing.T) BlockDevice {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to attach a loop device and write sysfs")
	}
	if err := os.MkdirAll(testRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(testRoot, fmt.Sprintf("loop-%d-%d.img", os.Getpid(), time.Now().UnixNano()))
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		os.Remove(img)
		t.Fatalf("losetup: %v: %s", err, out)
	}
	node := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", node).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", node, err, out)
		}
		os.Remove(img)
	})
	var st unix.Stat_t
	if err := unix.Stat(node, &st); err != nil {
		t.Fatal(err)
	}
	d, err := DeviceByNumber(unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// knobValues reads a disk's writeback knobs straight from sysfs: the
// tests' oracle, independent of the code under test.
func knobValues(t *testing.T, d BlockDevice) map[string]string {
	t.Helper()
	bdi := filepath.Join("/sys/class/bdi", d.LimitKey())
	q := filepath.Join("/sys/block", d.Disks[0], "queue")
	m := map[string]string{}
	for k, p := range map[string]string{
		"max_ratio_fine": filepath.Join(bdi, "max_ratio_fine"),
		"strict_limit":   filepath.Join(bdi, "strict_limit"),
		"max_bytes":      filepath.Join(bdi, "max_bytes"),
		"wbt_lat_usec":   filepath.Join(q, "wbt_lat_usec"),
		"max_sectors_kb": filepath.Join(q, "max_sectors_kb"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		m[k] = strings.TrimSpace(string(b))
	}
	return m
}

// Stage values chosen to differ from any kernel default, so a change shows.
const (
	testDirtyLimit  = 48 << 20
	testWBT         = 3100 * time.Microsecond
	testRequestSize = 252
)

// checkStaged asserts the stage values are in force.
func checkStaged(t *testing.T, orig, got map[string]string) {
	t.Helper()
	if got["strict_limit"] != "1" {
		t.Errorf("strict_limit %s during the stage, want 1", got["strict_limit"])
	}
	// max_bytes is kept as a ratio of the dirty threshold, so it reads back
	// rounded (mm/page-writeback.c bdi_get_max_bytes).
	mb, _ := strconv.ParseFloat(got["max_bytes"], 64)
	if mb < 0.98*testDirtyLimit || mb > 1.02*testDirtyLimit || got["max_ratio_fine"] == orig["max_ratio_fine"] {
		t.Errorf("max_bytes %s (max_ratio_fine %s, was %s) during the stage, want about %d", got["max_bytes"], got["max_ratio_fine"], orig["max_ratio_fine"], testDirtyLimit)
	}
	if want := strconv.Itoa(int(testWBT / time.Microsecond)); got["wbt_lat_usec"] != want {
		t.Errorf("wbt_lat_usec %s during the stage, want %s", got["wbt_lat_usec"], want)
	}
	if got["max_sectors_kb"] != strconv.Itoa(testRequestSize) {
		t.Errorf("max_sectors_kb %s during the stage, want %d", got["max_sectors_kb"], testRequestSize)
	}
}

// checkRestored asserts every knob is back as it was (max_bytes is derived
// from max_ratio_fine and the moving dirty threshold, so it is not compared).
func checkRestored(t *testing.T, orig, got map[string]string) {
	t.Helper()
	for _, k := range []string{"max_ratio_fine", "strict_limit", "wbt_lat_usec", "max_sectors_kb"} {
		if got[k] != orig[k] {
			t.Errorf("%s is %s after restore, want the original %s", k, got[k], orig[k])
		}
	}
}

// mustPrepare parses and prepares a policy; the session is closed at cleanup
// if the test did not close it.
func mustPrepare(t *testing.T, name string, o Options) *Session {
	t.Helper()
	p, err := ParsePolicy(name, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func leverOptions(d BlockDevice, stateDir string) Options {
	return Options{StateDir: stateDir, Device: &d, DirtyLimit: testDirtyLimit, WBTLatency: testWBT, RequestSizeKB: testRequestSize}
}

// The writeback policy sets the per-BDI dirty limit (strict), the wbt
// target and the request size on a real disk for the stage, and Close puts
// every one back and removes the record.
func TestWritebackLeversSetAndRestore(t *testing.T) {
	d := loopDisk(t)
	state := testStateDir(t)
	orig := knobValues(t, d)
	s := mustPrepare(t, PolicyWriteback, leverOptions(d, state))
	checkStaged(t, orig, knobValues(t, d))
	var names []string
	for _, a := range s.Applied() {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "dirty-limit,wbt,request-size" {
		t.Errorf("applied levers %v, skipped %v", names, s.Skipped())
	}
	r, err := loadRecord(RecordPath(state))
	if err != nil || r == nil || len(r.Entries) != 4 {
		t.Fatalf("record during the stage: %+v, %v; want 4 entries (max_ratio_fine, strict_limit, wbt, max_sectors_kb)", r, err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, orig, knobValues(t, d))
	if _, err := os.Stat(RecordPath(state)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record left after Close: %v", err)
	}
}

// The governor moves the per-BDI dirty limit (adaptive-writeback): with etcd
// slow it lowers max_bytes on the real disk, and Close restores it.
func TestGovernorSteersDirtyLimit(t *testing.T) {
	d := loopDisk(t)
	state := testStateDir(t)
	orig := knobValues(t, d)
	o := leverOptions(d, state)
	o.EtcdMetricsURL, o.SampleInterval, o.MinDirtyLimit = fakeEtcdMetrics(t), 5*time.Millisecond, 8<<20
	s := mustPrepare(t, PolicyAdaptiveWB, o)
	if s.Policy().Knobs().Steer != LeverDirtyLimit {
		t.Fatalf("adaptive-writeback steers %s", s.Policy().Knobs().Steer)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		mb, _ := strconv.ParseFloat(knobValues(t, d)["max_bytes"], 64)
		if mb <= 1.02*(8<<20) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("max_bytes still %.0f after a minute of slow fsyncs, want the 8 MiB floor", mb)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, orig, knobValues(t, d))
}

// startStageChild runs a stage in another process, as the daemon would.
func startStageChild(t *testing.T, policy string, o stageChildOptions) *child {
	t.Helper()
	b, _ := json.Marshal(o)
	c := startChild(t, "stage", []string{"ISO_TEST_POLICY=" + policy, "ISO_TEST_OPTIONS=" + string(b)}, nil)
	c.expect(t, "prepared")
	return c
}

func kill9(t *testing.T, c *child) {
	t.Helper()
	if err := c.cmd.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// A stage killed with SIGKILL leaves its knobs set and its record on disk;
// RestoreInterrupted (what the daemon runs when it starts) puts every knob
// back from the record, and the repo option too.
func TestCrashRestoreAtDaemonStart(t *testing.T) {
	d := loopDisk(t)
	sysroot := fakeSysroot(t)
	state := testStateDir(t)
	cfgBefore, _ := os.ReadFile(RepoConfigPath(sysroot))
	orig := knobValues(t, d)
	c := startStageChild(t, PolicyWriteback, stageChildOptions{Sysroot: sysroot, StateDir: state, Device: d,
		WBTLatency: testWBT, RequestSizeKB: testRequestSize, DirtyLimit: testDirtyLimit})
	checkStaged(t, orig, knobValues(t, d))
	kill9(t, c)
	// Nothing undid them: the process is gone, the knobs stay.
	checkStaged(t, orig, knobValues(t, d))
	if r, _ := loadRecord(RecordPath(state)); r == nil || len(r.Entries) == 0 {
		t.Fatal("no record after the crash")
	}
	restored, err := RestoreInterrupted(context.Background(), Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if len(restored) != 4 {
		t.Errorf("restored %d knobs, want 4: %+v", len(restored), restored)
	}
	checkRestored(t, orig, knobValues(t, d))
	if _, err := os.Stat(RecordPath(state)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record left after the restore: %v", err)
	}
	if cfg, _ := os.ReadFile(RepoConfigPath(sysroot)); string(cfg) != string(cfgBefore) {
		t.Errorf("repo config after the restore:\n%s\nwant\n%s", cfg, cfgBefore)
	}
	// A second start finds nothing to do.
	if again, err := RestoreInterrupted(context.Background(), Options{StateDir: state}); err != nil || len(again) != 0 {
		t.Errorf("second restore: %v, %v", again, err)
	}
}

// The per-object fsync policy killed mid-stage: its repo option (the one
// persistent knob) is restored from the record.
func TestCrashRestoresRepoOption(t *testing.T) {
	sysroot := fakeSysroot(t)
	state := testStateDir(t)
	cfgBefore, _ := os.ReadFile(RepoConfigPath(sysroot))
	c := startStageChild(t, PolicyPerObjectFsync, stageChildOptions{Sysroot: sysroot, StateDir: state})
	if cfg, _ := os.ReadFile(RepoConfigPath(sysroot)); !strings.Contains(string(cfg), "per-object-fsync=true") {
		t.Fatalf("repo config during the stage:\n%s", cfg)
	}
	kill9(t, c)
	if _, err := RestoreInterrupted(context.Background(), Options{StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := os.ReadFile(RepoConfigPath(sysroot)); string(cfg) != string(cfgBefore) {
		t.Errorf("repo config after the restore:\n%s\nwant\n%s", cfg, cfgBefore)
	}
}

// A session crashes; before the daemon restarts, another session on the
// same host (another state dir) takes the host lock. It must restore the
// dead session's knobs first, not record them as originals: otherwise its
// own Close would "restore" the dead session's values.
func TestNextSessionRestoresCrashedOne(t *testing.T) {
	d := loopDisk(t)
	crashed, next := testStateDir(t), testStateDir(t)+"-next"
	t.Cleanup(func() {
		_, _ = RestoreInterrupted(context.Background(), Options{StateDir: next})
		os.RemoveAll(next)
	})
	orig := knobValues(t, d)
	c := startStageChild(t, PolicyWriteback, stageChildOptions{StateDir: crashed, Device: d,
		WBTLatency: testWBT, RequestSizeKB: testRequestSize, DirtyLimit: testDirtyLimit})
	kill9(t, c)
	s := mustPrepare(t, PolicyWriteback, leverOptions(d, next))
	if _, err := os.Stat(RecordPath(crashed)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the crashed session's record is still there: %v", err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, orig, knobValues(t, d))
}

// Two live sessions never stack: the second waits for the host lock, and
// past its bound fails naming the holder.
func TestSecondSessionWaitsForHostLock(t *testing.T) {
	sysroot := fakeSysroot(t)
	state := testStateDir(t)
	c := startStageChild(t, PolicyPerObjectFsync, stageChildOptions{Sysroot: sysroot, StateDir: state})
	p, err := ParsePolicy(PolicyPerObjectFsync, Options{Sysroot: fakeSysroot(t), StateDir: state + "-2", LockWait: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", c.cmd.Process.Pid)) {
		t.Fatalf("Prepare while another session holds the host: %v, want an error naming pid %d", err, c.cmd.Process.Pid)
	}
	kill9(t, c)
}

// A fake sysfs: a kernel without max_bytes skips the dirty limit, a disk
// with wbt off is left alone, the request size is clamped to the
// hardware's, and nothing skipped is recorded.
func TestLeversOnFakeSysfs(t *testing.T) {
	sys := t.TempDir()
	write := func(p, v string) {
		p = filepath.Join(sys, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("class/bdi/8:0/max_ratio", "100")
	write("block/sda/queue/wbt_lat_usec", "0")
	write("block/sda/queue/max_sectors_kb", "1280")
	write("block/sda/queue/max_hw_sectors_kb", "128")
	j := newJournal(t.TempDir(), "test")
	d := BlockDevice{Major: 8, Minor: 0, LimitMajor: 8, LimitMinor: 0, Name: "sda", Disks: []string{"sda"}}
	root := sysfsRoot(sys)
	ctx := context.Background()
	if why, err := (&dirtyLimit{dir: root.bdiDir(d)}).apply(ctx, j, 64<<20); err != nil || !strings.Contains(why, "max_bytes") {
		t.Errorf("dirty limit without max_bytes: skipped %q, %v", why, err)
	}
	if why, err := newWBT(root, d.Disks).apply(ctx, j, 2000); err != nil || !strings.Contains(why, "off") {
		t.Errorf("wbt off: skipped %q, %v", why, err)
	}
	if got, _ := os.ReadFile(filepath.Join(sys, "block/sda/queue/wbt_lat_usec")); strings.TrimSpace(string(got)) != "0" {
		t.Errorf("wbt written while off: %s", got)
	}
	if len(j.rec.Entries) != 0 {
		t.Errorf("skipped levers recorded: %+v", j.rec.Entries)
	}
	if why, err := newRequestSize(root, d.Disks).apply(ctx, j, 512); err != nil || why != "" {
		t.Fatalf("request size: %q, %v", why, err)
	}
	if got, _ := os.ReadFile(filepath.Join(sys, "block/sda/queue/max_sectors_kb")); string(got) != "128" {
		t.Errorf("max_sectors_kb %q, want the hardware's 128", got)
	}
	if len(j.rec.Entries) != 1 || j.rec.Entries[0].Original != "1280" {
		t.Errorf("record %+v, want max_sectors_kb's 1280", j.rec.Entries)
	}
}

func TestIOCostLines(t *testing.T) {
	content := "8:0 enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=100.00\n" +
		"254:0 enable=1 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000 min=1.00 max=10000.00\n"
	cases := []struct{ dev, want string }{
		{"8:0", "8:0 enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=100.00"},
		{"254:0", "254:0 enable=1 ctrl=auto"},
		{"259:0", "259:0 enable=0"},
	}
	for _, c := range cases {
		if got := IOCostRestoreLine(content, c.dev); got != c.want {
			t.Errorf("restore line of %s = %q, want %q", c.dev, got, c.want)
		}
	}
	if got := IOCostQoSLine("254:0", 5000); got != "254:0 enable=1 ctrl=user rpct=95.00 rlat=5000 wpct=95.00 wlat=5000 min=50.00 max=100.00" {
		t.Errorf("qos line %q", got)
	}
}

// The record is on disk, fsynced, before a knob changes: noting a knob
// alone (a crash right after it) leaves its original in the record.
func TestRecordWrittenBeforeChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "max_sectors_kb")
	if err := os.WriteFile(p, []byte("1280\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	j := newJournal(state, "test")
	if orig, err := j.noteFile(LeverRequestSize, p); err != nil || orig != "1280" {
		t.Fatalf("note: %q %v", orig, err)
	}
	r, err := loadRecord(RecordPath(state))
	if err != nil || r == nil || len(r.Entries) != 1 || r.Entries[0].Path != p || r.Entries[0].Original != "1280" || !r.Entries[0].Volatile {
		t.Fatalf("record on disk before the change: %+v %v", r, err)
	}
	if r.BootID == "" || r.BootID != currentBootID() {
		t.Errorf("record boot id %q, want this boot's", r.BootID)
	}
	// From another boot, volatile knobs are not written back.
	if err := os.WriteFile(p, []byte("64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.BootID = "another-boot"
	left, err := restoreEntries(context.Background(), r)
	if err != nil || len(left) != 0 {
		t.Fatalf("restore: %v %v", left, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "64\n" {
		t.Errorf("a knob of another boot was written back: %q", b)
	}
}
