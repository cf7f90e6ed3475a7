package iso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/cgroups"
	"github.com/tandem-mco/tandem/pkg/iso/governor"
	"golang.org/x/sys/unix"
)

func TestParsePolicy(t *testing.T) {
	o := Options{Sysroot: t.TempDir()}
	for _, name := range PolicyNames() {
		p, err := ParsePolicy(name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Name() != name {
			t.Fatalf("parsed %s as %s", name, p.Name())
		}
	}
	p, err := ParsePolicy("", o)
	if err != nil || p.Name() != DefaultPolicyName() {
		t.Fatalf("empty name: %v, %v; want the default %s", p, err, DefaultPolicyName())
	}
	want := map[string]Knobs{
		PolicyNone:           {},
		PolicyPerObjectFsync: {PerObjectFsync: true},
		PolicyIdle:           {PerObjectFsync: true, IOPrio: &Idle},
		PolicyIdleBFQ:        {PerObjectFsync: true, IOPrio: &Idle, Scheduler: "bfq"},
		PolicyCgroupThrottle: {PerObjectFsync: true, Cgroup: true},
		PolicyWriteback:      {DirtyLimit: true, WBT: true, RequestSize: true, IOCost: true},
		PolicyAdaptive:       {PerObjectFsync: true, Cgroup: true, Governed: true, Steer: LeverWriteLimit},
		PolicyAdaptiveWB:     {DirtyLimit: true, WBT: true, RequestSize: true, IOCost: true, Governed: true, Steer: LeverDirtyLimit},
	}
	for name, k := range want {
		p, _ := ParsePolicy(name, o)
		got := p.Knobs()
		if got.PerObjectFsync != k.PerObjectFsync || (got.IOPrio == nil) != (k.IOPrio == nil) ||
			got.Scheduler != k.Scheduler || got.Cgroup != k.Cgroup || got.Governed != k.Governed || got.Steer != k.Steer ||
			got.DirtyLimit != k.DirtyLimit || got.WBT != k.WBT || got.RequestSize != k.RequestSize || got.IOCost != k.IOCost {
			t.Errorf("%s: knobs %+v, want %+v", name, got, k)
		}
	}
}

// A governed policy's name may carry its target: a multiple of the idle
// p99 or a latency, which overrides the options' own.
func TestParsePolicyWithTarget(t *testing.T) {
	o := Options{Sysroot: "/x", EtcdMetricsURL: "http://etcd/metrics", TargetP99: 7 * time.Millisecond}
	cases := []struct {
		name     string
		absolute time.Duration
		multiple float64
	}{
		{"adaptive", 7 * time.Millisecond, DefaultTargetIdleMultiple},
		{"adaptive@3x", 0, 3},
		{"adaptive@1.5x", 0, 1.5},
		{"adaptive-writeback@5ms", 5 * time.Millisecond, DefaultTargetIdleMultiple},
	}
	for _, c := range cases {
		p, err := ParsePolicy(c.name, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := p.Options().targetRule()
		if r.Absolute != c.absolute || r.Multiple != c.multiple || r.Ceiling != DefaultTargetCeiling {
			t.Errorf("%s: rule %+v, want absolute %v multiple %v", c.name, r, c.absolute, c.multiple)
		}
		if base, _, _ := strings.Cut(c.name, "@"); p.Name() != base {
			t.Errorf("%s: name %s", c.name, p.Name())
		}
	}
	for _, bad := range []string{"adaptive@1x", "adaptive@fast", "adaptive@-2ms", "none@2x", "writeback@5ms", "bogus@2x"} {
		if _, err := ParsePolicy(bad, o); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func TestParsePolicyErrors(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"bfq", Options{Sysroot: "/x"}, "valid policies are none, per-object-fsync, idle, idle-bfq, cgroup-throttle, writeback, adaptive, adaptive-writeback"},
		{"adaptive", Options{Sysroot: "/x", Steer: "io-cost"}, `cannot steer "io-cost"`},
		{"writeback", Options{DirtyLimit: 4 << 20, MinDirtyLimit: 8 << 20}, "dirty limit"},
		{"Idle", Options{Sysroot: "/x"}, `unknown I/O policy "Idle"`},
		{"idle", Options{}, "a sysroot is needed"},
		{"idle", Options{Sysroot: "/x", IOPrio: IOPrio{Class: IOClassBestEffort, Level: 9}}, "invalid I/O priority level 9"},
		{"adaptive", Options{Sysroot: "/x", WriteLimit: 1 << 20, MinWriteLimit: 2 << 20}, "min write limit"},
	}
	for _, c := range cases {
		_, err := ParsePolicy(c.name, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePolicy(%q): %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// "none" needs nothing.
	if _, err := ParsePolicy("none", Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestParseScheduler(t *testing.T) {
	cur, avail := ParseScheduler("none [mq-deadline] kyber bfq\n")
	if cur != "mq-deadline" || strings.Join(avail, ",") != "none,mq-deadline,kyber,bfq" {
		t.Fatalf("got %q %v", cur, avail)
	}
	cur, _ = ParseScheduler("[none] \n")
	if cur != "none" {
		t.Fatalf("got %q", cur)
	}
}

func TestINIEdits(t *testing.T) {
	cfg := "[core]\nrepo_version=1\nmode=bare\n\n[remote \"x\"]\nurl=file:///x\n"
	out, prev, had := SetINIKey(cfg, "core", "per-object-fsync", "true")
	if had || prev != "" {
		t.Fatalf("reported a previous value %q", prev)
	}
	if out != "[core]\nrepo_version=1\nmode=bare\nper-object-fsync=true\n\n[remote \"x\"]\nurl=file:///x\n" {
		t.Fatalf("set:\n%s", out)
	}
	out2, prev, had := SetINIKey(out, "core", "per-object-fsync", "false")
	if !had || prev != "true" || !strings.Contains(out2, "per-object-fsync=false") || strings.Count(out2, "per-object-fsync") != 1 {
		t.Fatalf("replace: had=%v prev=%q\n%s", had, prev, out2)
	}
	if back := RemoveINIKey(out, "core", "per-object-fsync"); back != cfg {
		t.Fatalf("remove:\n%q\nwant\n%q", back, cfg)
	}
	out, _, _ = SetINIKey("", "core", "per-object-fsync", "true")
	if out != "[core]\nper-object-fsync=true\n" {
		t.Fatalf("empty file: %q", out)
	}
}

func TestRepoOptionSetAndRestore(t *testing.T) {
	sysroot := t.TempDir()
	path := RepoConfigPath(sysroot)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "[core]\nrepo_version=1\nmode=bare\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := SetRepoOption(ctx, path, "core", PerObjectFsyncKey, "true")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "per-object-fsync=true") {
		t.Fatalf("not set:\n%s", b)
	}
	if err := c.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Restore(ctx); err != nil {
		t.Fatal("second restore:", err)
	}
	b, _ = os.ReadFile(path)
	if string(b) != orig {
		t.Fatalf("restored:\n%q\nwant\n%q", b, orig)
	}
}

func TestParseWriteLimit(t *testing.T) {
	if v, _ := parseWriteLimit("254:0 1048576\n8:0 5\n", "254:0", ""); v != 1048576 {
		t.Fatalf("v1: %d", v)
	}
	if v, _ := parseWriteLimit("8:0 rbps=max wbps=2097152 riops=max wiops=max\n", "8:0", "wbps="); v != 2097152 {
		t.Fatalf("v2: %d", v)
	}
	if v, _ := parseWriteLimit("8:0 rbps=max wbps=max riops=max wiops=max\n", "8:0", "wbps="); v != 0 {
		t.Fatalf("v2 max: %d", v)
	}
}

func TestUnitIOProperties(t *testing.T) {
	props := UnitIOProperties("/dev/vda", 50<<20, 10)
	if len(props) != 2 || props[0].Name != "IOWriteBandwidthMax" || props[1].Name != "IOWeight" {
		t.Fatalf("props %+v", props)
	}
	// systemd's D-Bus signatures: a(st) and t.
	if sig := props[0].Value.Signature().String(); sig != "a(st)" {
		t.Fatalf("IOWriteBandwidthMax signature %s", sig)
	}
	if sig := props[1].Value.Signature().String(); sig != "t" {
		t.Fatalf("IOWeight signature %s", sig)
	}
	if v := props[0].Value.Value().([]ioBandwidth); len(v) != 1 || v[0].Path != "/dev/vda" || v[0].Bandwidth != 50<<20 {
		t.Fatalf("limit %+v", v)
	}
	reset := UnitIOProperties("/dev/vda", 0, 0)
	if len(reset) != 1 || len(reset[0].Value.Value().([]ioBandwidth)) != 0 {
		t.Fatalf("reset %+v: want one empty IOWriteBandwidthMax", reset)
	}
}

func TestDeviceOfRoot(t *testing.T) {
	d, err := DeviceOf("/")
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat("/", &st); err != nil {
		t.Fatal(err)
	}
	if d.Major != unix.Major(st.Dev) || d.Minor != unix.Minor(st.Dev) || len(d.Disks) == 0 {
		t.Fatalf("device of / = %+v, st_dev %d:%d", d, unix.Major(st.Dev), unix.Minor(st.Dev))
	}
	if _, _, err := ReadScheduler(d.Disks[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := DeviceByNumber(0, 0); err == nil {
		t.Fatal("0:0 should not resolve")
	}
}

// The scheduler of the real root disk is changed and put back.
func TestSchedulerSetRestore(t *testing.T) {
	d, err := DeviceOf("/")
	if err != nil {
		t.Fatal(err)
	}
	disk := d.Disks[0]
	orig, avail, err := ReadScheduler(disk)
	if err != nil {
		t.Fatal(err)
	}
	other := ""
	for _, s := range []string{"bfq", "mq-deadline", "none"} {
		if s != orig && contains(avail, s) {
			other = s
			break
		}
	}
	if other == "" {
		t.Skipf("disk %s offers no scheduler besides %s (%v)", disk, orig, avail)
	}
	t.Cleanup(func() {
		if cur, _, _ := ReadScheduler(disk); cur != orig {
			_ = os.WriteFile(SchedulerPath(disk), []byte(orig), 0)
		}
	})
	ctx := context.Background()
	c, err := SetScheduler(ctx, []string{disk}, other)
	if err != nil {
		t.Fatal(err)
	}
	if cur, _, _ := ReadScheduler(disk); cur != other {
		t.Fatalf("scheduler %s after setting %s", cur, other)
	}
	if err := c.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, _, _ := ReadScheduler(disk); cur != orig {
		t.Fatalf("scheduler %s after restore, want %s", cur, orig)
	}
	if _, err := SetScheduler(ctx, []string{disk}, "no-such-scheduler"); err == nil {
		t.Fatal("want an error for a scheduler the disk lacks")
	}
}

// A threaded child gets the idle class on every thread, those it had when
// the class was set and those it made later; our own threads keep theirs.
func TestIOPrioInheritedByEveryChildThread(t *testing.T) {
	sysroot := fakeSysroot(t)
	s := mustPrepare(t, PolicyIdle, Options{Sysroot: sysroot, StateDir: testStateDir(t)})
	before := ownIOPrios(t)
	c := startChild(t, "threads", nil, s.Hook())
	c.expect(t, "ready")
	pid := c.cmd.Process.Pid
	if pgid, err := unix.Getpgid(pid); err != nil || pgid != pid {
		t.Fatalf("child pgid %d (%v), want its own group %d", pgid, err, pid)
	}
	c.say(t, "more") // threads made after the class was set
	c.expect(t, "more")
	tids, err := Threads(pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(tids) < 9 {
		t.Fatalf("child has %d threads, want at least 9", len(tids))
	}
	for _, tid := range tids {
		got, err := GetThreadIOPrio(tid)
		if err != nil {
			t.Fatal(err)
		}
		if got.Class != IOClassIdle {
			t.Errorf("child thread %d has %s, want idle", tid, got)
		}
	}
	after := ownIOPrios(t)
	for tid, prio := range before {
		if a, ok := after[tid]; ok && a != prio {
			t.Errorf("our thread %d changed from %s to %s", tid, prio, a)
		}
	}
	for tid, prio := range after {
		if prio.Class == IOClassIdle {
			t.Errorf("our thread %d is idle", tid)
		}
	}
}

func ownIOPrios(t *testing.T) map[int]IOPrio {
	t.Helper()
	tids, err := Threads(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]IOPrio{}
	for _, tid := range tids {
		if p, err := GetThreadIOPrio(tid); err == nil {
			m[tid] = p
		}
	}
	return m
}

func fakeSysroot(t *testing.T) string {
	t.Helper()
	// Under /var/tmp so it is on the real disk, not a tmpfs.
	dir, err := os.MkdirTemp("/var/tmp", "iso-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := RepoConfigPath(dir)
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[core]\nrepo_version=1\nmode=bare\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func requireBlkio(t *testing.T) {
	t.Helper()
	if cgroups.IsCgroup2UnifiedMode() {
		return
	}
	if _, err := cgroups.FindCgroupMountpoint("", "blkio"); err != nil {
		t.Skipf("cgroup v1 host without a blkio hierarchy (%v): nothing to create the staging cgroup in", err)
	}
}

// The cgroup-throttle policy on the real hierarchy: a blkio cgroup (v1) is
// made with the limit and weight, the child lands in it (and only in it),
// the writes it syncs are charged to it, the limit can be moved, and Close
// removes the cgroup and restores the repo config.
func TestCgroupThrottleOnRealHierarchy(t *testing.T) {
	requireBlkio(t)
	sysroot := fakeSysroot(t)
	name := "iso-test-" + strconv.Itoa(os.Getpid())
	p, err := ParsePolicy(PolicyCgroupThrottle, Options{Sysroot: sysroot, StateDir: testStateDir(t), CgroupParent: "tandem-test", CgroupName: name, WriteLimit: 64 << 20, Weight: 50})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := p.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = s.Close(ctx)
		}
	})
	cg := s.Cgroup()
	if cg == nil {
		t.Fatal("no cgroup")
	}
	if !cg.V2() && !strings.Contains(cg.Path(), "/blkio/") {
		t.Fatalf("v1 cgroup %s is not in the blkio hierarchy", cg.Path())
	}
	if lim, err := cg.WriteLimit(); err != nil || lim != 64<<20 {
		t.Fatalf("write limit %d (%v), want 64 MiB/s", lim, err)
	}
	checkWeightAsHostAllows(t, s, 50)
	cfg, _ := os.ReadFile(RepoConfigPath(sysroot))
	if !strings.Contains(string(cfg), "per-object-fsync=true") {
		t.Fatalf("repo config not paced:\n%s", cfg)
	}

	ownMem := ownCgroup(t, os.Getpid(), "memory")
	file := filepath.Join(sysroot, "blob")
	c := startChild(t, "write", []string{"ISO_TEST_FILE=" + file, "ISO_TEST_SYNC=1"}, s.Hook())
	c.expect(t, "ready")
	c.say(t, "write")
	c.expect(t, "written")
	pid := c.cmd.Process.Pid
	procs, err := cg.Procs()
	if err != nil || !containsInt(procs, pid) {
		t.Fatalf("child %d not in %s: %v %v", pid, cg.Path(), procs, err)
	}
	if !cg.V2() {
		if got := ownCgroup(t, pid, "memory"); got != ownMem {
			t.Fatalf("child's memory cgroup %q, want ours %q untouched", got, ownMem)
		}
		// The 8 MiB it wrote and fsynced were submitted by the child,
		// so they are charged to its blkio cgroup.
		if w := chargedWrites(t, cg.Path(), s.Device().LimitKey()); w < 8<<20 {
			b, _ := os.ReadFile(filepath.Join(cg.Path(), "blkio.throttle.io_service_bytes"))
			t.Fatalf("cgroup was charged %d bytes of writes, want >= 8 MiB:\n%s", w, b)
		}
	}
	if err := cg.SetWriteLimit(ctx, 16<<20); err != nil {
		t.Fatal(err)
	}
	if lim, _ := cg.WriteLimit(); lim != 16<<20 {
		t.Fatalf("limit %d after change, want 16 MiB/s", lim)
	}
	if err := cg.SetWriteLimit(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if lim, _ := cg.WriteLimit(); lim != 0 {
		t.Fatalf("limit %d after lifting, want none", lim)
	}

	// Close with the child still inside: it is moved out, the cgroup goes.
	path := cg.Path()
	closed = true
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cgroup %s still there: %v", path, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("parent cgroup %s still there: %v", filepath.Dir(path), err)
	}
	cfg, _ = os.ReadFile(RepoConfigPath(sysroot))
	if strings.Contains(string(cfg), "per-object-fsync") {
		t.Fatalf("repo config not restored:\n%s", cfg)
	}
}

// Buffered writes that the child does not sync are written back later by
// kernel flusher threads and are not charged to its v1 blkio cgroup: why
// every isolating policy also turns on per-object fsync.
func TestBufferedWritebackEscapesV1Cgroup(t *testing.T) {
	requireBlkio(t)
	if cgroups.IsCgroup2UnifiedMode() {
		t.Skip("cgroup v2 charges writeback to the page owner's cgroup")
	}
	dir := fakeSysroot(t)
	dev, err := DeviceOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cg, err := CreateStagingCgroup(ctx, CgroupSpec{Parent: "tandem-test", Name: "iso-buffered-" + strconv.Itoa(os.Getpid()), Device: dev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cg.Destroy(ctx) })
	file := filepath.Join(dir, "buffered")
	c := startChild(t, "write", []string{"ISO_TEST_FILE=" + file, "ISO_TEST_SYNC=0"},
		func(*exec.Cmd) (func(int) error, error) { return cg.Attach, nil })
	c.expect(t, "ready")
	c.say(t, "write")
	c.expect(t, "written")
	// Write the pages back from outside the cgroup.
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if w := chargedWrites(t, cg.Path(), dev.LimitKey()); w >= 8<<20 {
		t.Fatalf("cgroup was charged %d bytes for writes it did not sync; expected the flusher to carry them", w)
	}
}

func ownCgroup(t *testing.T, pid int, subsystem string) string {
	t.Helper()
	m, err := cgroups.ParseCgroupFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	return m[subsystem]
}

// chargedWrites reads the bytes written to dev by a v1 blkio cgroup.
func chargedWrites(t *testing.T, dir, dev string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "blkio.throttle.io_service_bytes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == dev && f[1] == "Write" {
			v, _ := strconv.ParseUint(f[2], 10, 64)
			return v
		}
	}
	return 0
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// fakeEtcdMetrics serves a WAL fsync histogram that gains 100 fsyncs of
// 16-32 ms at every scrape: a disk that is too slow.
func fakeEtcdMetrics(t *testing.T) string { return fakeEtcdPhases(t, 0) }

// fakeEtcdPhases serves a WAL fsync histogram that gains 100 fsyncs at
// every scrape: under 1 ms for the first quiet scrapes (an idle disk), then
// 16-32 ms (a disk too slow).
func fakeEtcdPhases(t *testing.T, quiet int) string {
	t.Helper()
	var mu sync.Mutex
	n, fast, slow := 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		if n <= quiet {
			fast += 100
		} else {
			slow += 100
		}
		f, s := fast, slow
		mu.Unlock()
		fmt.Fprintln(w, "# TYPE etcd_disk_wal_fsync_duration_seconds histogram")
		bound := 0.001
		for i := 0; i < 14; i++ {
			c := f
			if bound >= 0.032 {
				c += s
			}
			fmt.Fprintf(w, "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"%g\"} %d\n", bound, c)
			bound *= 2
		}
		fmt.Fprintf(w, "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} %d\n", f+s)
		fmt.Fprintf(w, "etcd_disk_wal_fsync_duration_seconds_sum %g\n", float64(s)*0.024+float64(f)*0.0005)
		fmt.Fprintf(w, "etcd_disk_wal_fsync_duration_seconds_count %d\n", f+s)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// With no target set, the governor measures etcd's idle p99 before the
// stage writes (Prepare returns only after BaselineSamples intervals) and
// steers to TargetIdleMultiple times it; etcd's first bucket (1 ms) is the
// finest idle p99 it can tell, so an idle etcd gives a 2 ms target. With
// etcd already slow at the start, the target is the 10 ms ceiling.
func TestAdaptiveTargetIsRelativeToIdle(t *testing.T) {
	requireBlkio(t)
	for _, c := range []struct {
		name  string
		quiet int
		want  time.Duration
		idle  bool
	}{
		// The baseline takes one scrape to prime, then one per sample.
		{"idle etcd", 1 + DefaultBaselineSamples, 2 * time.Millisecond, true},
		{"etcd already slow", 0, DefaultTargetCeiling, true},
	} {
		interval := 20 * time.Millisecond
		p, err := ParsePolicy(PolicyAdaptive, Options{
			Sysroot: fakeSysroot(t), StateDir: testStateDir(t), CgroupParent: "tandem-test", CgroupName: "iso-relative-" + strconv.Itoa(os.Getpid()),
			EtcdMetricsURL: fakeEtcdPhases(t, c.quiet), SampleInterval: interval,
		})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		s, err := p.Prepare(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		gt := s.GovernorTarget()
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if took < time.Duration(DefaultBaselineSamples)*interval {
			t.Errorf("%s: Prepare returned after %v, before the %d-interval baseline", c.name, took, DefaultBaselineSamples)
		}
		if want := uint64(100 * DefaultBaselineSamples); gt.Target != c.want || gt.Idle.OK != c.idle || gt.Idle.Observations != want || !gt.Etcd {
			t.Errorf("%s: target %+v, want %v from %d idle fsyncs", c.name, gt, c.want, want)
		}
	}
}

// The adaptive policy end to end: the governor reads etcd's metrics and
// lowers the staging cgroup's write limit while etcd's fsyncs are slow.
func TestAdaptiveLowersLimitWhenEtcdIsSlow(t *testing.T) {
	requireBlkio(t)
	sysroot := fakeSysroot(t)
	var mu sync.Mutex
	var limits []float64
	seen := make(chan struct{}, 100)
	p, err := ParsePolicy(PolicyAdaptive, Options{
		Sysroot: sysroot, StateDir: testStateDir(t), CgroupParent: "tandem-test", CgroupName: "iso-adaptive-" + strconv.Itoa(os.Getpid()),
		WriteLimit: 128 << 20, MinWriteLimit: 8 << 20, StartWriteLimit: 64 << 20,
		EtcdMetricsURL: fakeEtcdMetrics(t), SampleInterval: 5 * time.Millisecond,
		OnGovernorStep: func(_ governor.Sample, s governor.State) {
			mu.Lock()
			limits = append(limits, s.Limit)
			mu.Unlock()
			select {
			case seen <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := p.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(ctx) })
	// Wait (a minute at most) until the governor has stepped down to the floor.
	deadline := time.After(time.Minute)
	for {
		select {
		case <-seen:
		case <-deadline:
			mu.Lock()
			t.Fatalf("governor not at the 8 MiB/s floor after a minute of slow fsyncs: %v", limits)
		}
		mu.Lock()
		last := limits[len(limits)-1]
		mu.Unlock()
		if last == 8<<20 {
			break
		}
	}
	// Still slow at the floor: the session's outcome, which the Staged
	// condition shows, says the target was missed with nothing left to give.
	outcomeBound := time.After(time.Minute)
	for {
		o, ok := s.GovernorOutcome()
		if ok && o.FloorBackoffs > 0 {
			if o.Held() || !strings.Contains(o.String(), "at the lever's floor") {
				t.Fatalf("outcome %s at the floor of a slow etcd: want missed, at the floor", o)
			}
			break
		}
		select {
		case <-seen:
		case <-outcomeBound:
			t.Fatalf("no back-off at the floor reported after a minute of slow fsyncs: outcome %s (%t)", o, ok)
		}
	}
	// Close stops the governor first, so the applied limit is the last one.
	cg := s.Cgroup()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if cgroups.PathExists(cg.Path()) {
		t.Fatalf("cgroup %s left behind", cg.Path())
	}
	mu.Lock()
	defer mu.Unlock()
	// The first window (MinCount fsyncs) may take more than one sample;
	// the first move is a back-off.
	for _, l := range limits {
		if l != 64<<20 {
			if l > 64<<20 {
				t.Fatalf("first move to %.0f, want a back-off from 64 MiB/s", l)
			}
			break
		}
	}
	for i := 1; i < len(limits); i++ {
		if limits[i] > limits[i-1] {
			t.Fatalf("limit rose (%v) while etcd stayed slow", limits)
		}
	}
}
