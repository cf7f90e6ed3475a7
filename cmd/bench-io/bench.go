package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/pkg/iso/governor"
	"github.com/tandem-mco/tandem/test/osdouble"
	"github.com/tandem-mco/tandem/test/osimage"
	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

type bench struct {
	c        config
	dev      iso.BlockDevice
	registry *osimage.Registry
	image    *osimage.Image
	etcd     *etcdServer
	load     *putLoad
	rec      *recorder
	stopLoad context.CancelFunc
}

func newBench(ctx context.Context, c config, dev iso.BlockDevice) (_ *bench, err error) {
	b := &bench{c: c, dev: dev, rec: &recorder{}}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	if b.c.rpmOstree == "" {
		bin := filepath.Join(c.dir, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return nil, err
		}
		if b.c.rpmOstree, err = osdouble.BuildCLI(ctx, bin); err != nil {
			return nil, err
		}
	}
	if b.registry, err = osimage.StartRegistry(ctx, filepath.Join(c.dir, "registry")); err != nil {
		return nil, err
	}
	synth := filepath.Join(c.dir, "synth")
	if err := os.MkdirAll(synth, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	b.image, err = osimage.SynthesizeImage(ctx, osimage.SynthOptions{
		Registry:     b.registry,
		Version:      2,
		SizeBytes:    c.sizeBytes,
		Layers:       8,
		Uncompressed: true, // the pull is paced by the disk, not by gunzip
		WorkDir:      synth,
	})
	if err != nil {
		return nil, fmt.Errorf("synthesize the OS update: %w", err)
	}
	klog.InfoS("OS update synthesized", "ref", b.image.Ref, "bytes", b.image.ContentBytes, "files", b.image.Files, "took", time.Since(start))
	if b.etcd, err = startEtcd(ctx, c.dir); err != nil {
		return nil, err
	}
	if b.load, err = newPutLoad(b.etcd.ClientURL, c.rate, c.valueSize); err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	b.stopLoad = cancel
	go b.load.run(lctx)
	go b.rec.consume(b.load.results)
	return b, nil
}

func (b *bench) close() {
	// The put load stops with the process; its results are no longer read.
	if b.stopLoad != nil {
		b.stopLoad()
	}
	if b.load != nil {
		b.load.Close()
	}
	if b.etcd != nil {
		b.etcd.Close()
	}
	if b.registry != nil {
		b.registry.Close()
	}
}

// report is the JSON document.
type report struct {
	Command   string    `json:"command"`
	Started   time.Time `json:"started"`
	Kernel    string    `json:"kernel"`
	Device    string    `json:"device"`
	Scheduler string    `json:"scheduler"`
	Image     imageInfo `json:"image"`
	Load      loadInfo  `json:"load"`
	// IdleBefore and IdleAfter bracket the trials; Idle is their mean, the
	// reference of p99_ratio and max_ratio.
	IdleBefore phase `json:"idleBefore"`
	IdleAfter  phase `json:"idleAfter"`
	Idle       phase `json:"idle"`
	// IdleDrift is the larger of the fsync p99 and put p99 factors between
	// the idle phases; Refused says why the run was refused ("" if not).
	IdleDrift     float64 `json:"idleDrift"`
	MaxIdleDrift  float64 `json:"maxIdleDrift"`
	Refused       string  `json:"refused,omitempty"`
	DefaultPolicy string  `json:"defaultPolicy"`
	// Arms are what each round staged under, frontier targets resolved.
	Arms     []arm        `json:"arms"`
	Trials   []trial      `json:"trials"`
	Policies []policySumm `json:"summaries"`
	// Knee is the lowest frontier target whose median stage_ratio is at
	// most kneeStageRatio ("" when none is).
	Knee string         `json:"knee,omitempty"`
	Goal goal           `json:"goal"`
	Note map[string]any `json:"note,omitempty"`
}

type imageInfo struct {
	Ref          string `json:"ref"`
	ContentBytes int64  `json:"contentBytes"`
	Files        int    `json:"files"`
}

type loadInfo struct {
	PutsPerSecond int `json:"putsPerSecond"`
	ValueBytes    int `json:"valueBytes"`
}

type phase struct {
	Seconds      float64           `json:"seconds"`
	FsyncCount   uint64            `json:"fsyncCount"`
	FsyncP99Ms   float64           `json:"fsyncP99Ms"`
	FsyncMaxMs   float64           `json:"fsyncMaxBucketMs"`
	FsyncBuckets map[string]uint64 `json:"fsyncBuckets,omitempty"`
	Puts         int               `json:"puts"`
	PutsFailed   int               `json:"putsFailed"`
	PutP50Ms     float64           `json:"putP50Ms"`
	PutP99Ms     float64           `json:"putP99Ms"`
	PutMaxMs     float64           `json:"putMaxMs"`
}

// trial is one staging under one policy in one round.
type trial struct {
	Round  int    `json:"round"`
	Arm    string `json:"arm"`
	Policy string `json:"policy"`
	// LoadBefore and LoadAfter say how busy the machine was.
	LoadBefore hostLoad `json:"loadBefore"`
	LoadAfter  hostLoad `json:"loadAfter"`
	phase
	StageS     float64            `json:"stageSeconds"`
	StageMiBs  float64            `json:"stageMiBPerSecond"`
	Levers     []iso.AppliedLever `json:"levers"`
	Skipped    map[string]string  `json:"skippedLevers,omitempty"`
	Writer     string             `json:"writer"`
	P99Ratio   float64            `json:"p99Ratio"`
	MaxRatio   float64            `json:"maxRatio"`
	StageRatio float64            `json:"stageRatio"`
	// TargetMs is the governor's target in force (0: no governor), and
	// Target how it was chosen; Held tells whether the stage's p99 stayed
	// at or under it.
	TargetMs float64        `json:"targetMs,omitempty"`
	Target   string         `json:"target,omitempty"`
	Held     bool           `json:"held"`
	Governor []governorStep `json:"governor,omitempty"`
	// Series is etcd's WAL fsync histogram per --series-interval during
	// the stage, with the governed lever's value.
	Series governor.Series `json:"series"`
}

type governorStep struct {
	T     float64 `json:"t"`
	P99Ms float64 `json:"p99Ms"`
	Valid bool    `json:"valid"`
	Value float64 `json:"value"`
}

// measure runs idle, the interleaved rounds, and idle again.
func (b *bench) measure(ctx context.Context) (*report, error) {
	r := &report{
		Command: fmt.Sprint(os.Args), Started: time.Now(), Device: b.dev.Name,
		Image:         imageInfo{Ref: b.image.Ref, ContentBytes: b.image.ContentBytes, Files: b.image.Files},
		Load:          loadInfo{PutsPerSecond: b.c.rate, ValueBytes: b.c.valueSize},
		DefaultPolicy: iso.DefaultPolicyName(),
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		r.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	if len(b.dev.Disks) > 0 {
		r.Scheduler, _, _ = iso.ReadScheduler(b.dev.Disks[0])
	}
	scraper := governor.MetricsScraper{URL: b.etcd.MetricsURL}
	var err error
	if r.IdleBefore, err = b.idlePhase(ctx, scraper, "before"); err != nil {
		return r, err
	}
	r.Arms = b.c.arms()
	resolveTargets(r.Arms, r.IdleBefore.FsyncP99Ms)
	for _, a := range r.Arms {
		if a.Target != nil {
			fmt.Printf("bench-io: arm %s target_ms=%.2f\n", a.Name, a.TargetMs)
		}
	}
	for round := range b.c.trials {
		for i := range r.Arms {
			a := r.Arms[(i+round)%len(r.Arms)]
			t, err := b.stageUnder(ctx, round, a, scraper)
			if err != nil {
				return r, fmt.Errorf("round %d, %s: %w", round+1, a.Name, err)
			}
			r.Trials = append(r.Trials, t)
			if b.c.seriesDir != "" {
				s := t.Series
				s.Policy, s.TargetMs, s.IdleP99Ms = t.Policy, t.TargetMs, r.IdleBefore.FsyncP99Ms
				s.Source = fmt.Sprintf("make bench-io %s, %s, round %d, %s on %s; load average %.1f -> %.1f, I/O pressure %.0f%% -> %.0f%%",
					r.Started.Format("2006-01-02"), r.Command, t.Round, t.Arm, r.Device, t.LoadBefore.LoadAvg1, t.LoadAfter.LoadAvg1, t.LoadBefore.IOSomeP10, t.LoadAfter.IOSomeP10)
				if err := writeSeries(b.c.seriesDir, t, s); err != nil {
					return r, err
				}
			}
			fmt.Fprintf(os.Stderr, "bench-io: round=%d arm=%s stage_s=%.1f fsync_p99_ms=%.2f fsync_max_ms=%.0f put_p99_ms=%.2f put_max_ms=%.1f target=%s load=%.1f writer=%s levers=%v\n",
				round+1, a.Name, t.StageS, t.FsyncP99Ms, t.FsyncMaxMs, t.PutP99Ms, t.PutMaxMs, orDash(t.Target), t.LoadAfter.LoadAvg1, t.Writer, t.Levers)
		}
	}
	if r.IdleAfter, err = b.idlePhase(ctx, scraper, "after"); err != nil {
		return r, err
	}
	return r, nil
}

// idlePhase measures etcd with nothing staging.
func (b *bench) idlePhase(ctx context.Context, scraper governor.MetricsScraper, which string) (phase, error) {
	if err := b.quiet(ctx); err != nil {
		return phase{}, err
	}
	h0, err := scraper.Scrape(ctx)
	if err != nil {
		return phase{}, err
	}
	t0 := time.Now()
	select {
	case <-time.After(b.c.idle):
	case <-ctx.Done():
		return phase{}, ctx.Err()
	}
	t1 := time.Now()
	h1, err := scraper.Scrape(ctx)
	if err != nil {
		return phase{}, err
	}
	p := b.phase(h1.Sub(h0), t0, t1)
	fmt.Printf("bench-io: idle phase=%s fsync_p99_ms=%.2f fsync_max_ms=%.0f put_p99_ms=%.2f put_max_ms=%.1f puts=%d\n",
		which, p.FsyncP99Ms, p.FsyncMaxMs, p.PutP99Ms, p.PutMaxMs, p.Puts)
	return p, nil
}

func (b *bench) phase(d governor.Histogram, from, to time.Time) phase {
	p := phase{Seconds: to.Sub(from).Seconds()}
	p.FsyncP99Ms, p.FsyncMaxMs, p.FsyncCount, p.FsyncBuckets = fsyncFigures(d)
	lat, failed := b.rec.window(from, to)
	p.Puts, p.PutsFailed = len(lat), failed
	p.PutP50Ms, p.PutP99Ms, p.PutMaxMs = percentile(lat, 0.50), percentile(lat, 0.99), maxOf(lat)
	return p
}

// quiet lets the disk drain what earlier phases left (the previous
// sysroot's removal, dirty pages) before a phase starts.
func (b *bench) quiet(ctx context.Context) error {
	unix.Sync()
	select {
	case <-time.After(b.c.settle):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stageUnder stages the update on a fresh node under one policy, as the
// daemon does: the policy prepared with the node's options, rpm-ostree
// rebase run through the session's hook, the session closed (every knob
// restored) after.
func (b *bench) stageUnder(ctx context.Context, round int, a arm, scraper governor.MetricsScraper) (res trial, err error) {
	name := a.Policy
	res.Round, res.Policy, res.Arm = round+1, a.Policy, a.Name
	dir := filepath.Join(b.c.dir, "node")
	node := osdouble.NewNode(dir)
	if err := os.RemoveAll(dir); err != nil {
		return res, err
	}
	if err := node.Init(ctx, osdouble.InitialOS{}); err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	// The node set up for the (private) registry as an administrator
	// would: its CA in certs.d, its credentials in /etc/ostree/auth.json,
	// where rpm-ostree reads them.
	creds := b.registry.TrustFiles()
	creds["/etc/ostree/auth.json"] = string(b.registry.AuthJSON())
	if err := node.WriteFiles(creds); err != nil {
		return res, err
	}
	if err := ensureRegistriesConf(node.Sysroot); err != nil {
		return res, err
	}
	if err := b.quiet(ctx); err != nil {
		return res, err
	}
	var mu sync.Mutex
	var steps []governorStep
	var govStart time.Time
	o := b.c.policyOptions(node.Sysroot, &b.dev)
	o.CgroupName = name
	o.EtcdMetricsURL = b.etcd.MetricsURL
	if a.Target != nil {
		o.TargetP99 = time.Duration(a.TargetMs * float64(time.Millisecond))
	}
	var series *seriesRecorder
	o.OnGovernorStep = func(x governor.Sample, s governor.State) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, governorStep{T: time.Since(govStart).Seconds(), P99Ms: ms(x.P99), Valid: x.Valid, Value: s.Limit})
		if series != nil {
			series.setLever(s.Limit)
		}
	}
	p, err := iso.ParsePolicy(name, o)
	if err != nil {
		return res, err
	}
	h0, err := scraper.Scrape(ctx)
	if err != nil {
		return res, err
	}
	res.LoadBefore = readHostLoad()
	t0 := time.Now()
	govStart = t0
	rec, err := startSeries(ctx, scraper, b.c.seriesInterval)
	if err != nil {
		return res, err
	}
	mu.Lock()
	series = rec
	mu.Unlock()
	s, err := p.Prepare(ctx)
	if err != nil {
		rec.finish(ctx)
		return res, err
	}
	defer func() { err = errors.Join(err, s.Close(context.WithoutCancel(ctx))) }()
	res.Levers, res.Skipped = s.Applied(), s.Skipped()
	if gt := s.GovernorTarget(); gt.Target > 0 {
		res.TargetMs, res.Target = ms(gt.Target), gt.String()
	}
	for _, l := range res.Levers {
		if l.Name == p.Knobs().Steer && p.Knobs().Governed {
			rec.setLever(float64(l.Value))
		}
	}
	// The double's transaction daemon does the writes (as rpm-ostreed does):
	// the policy's cgroup and I/O class go on it, not on the CLI client.
	daemon, err := node.StartDaemonProcess(ctx, b.c.rpmOstree, filepath.Join(b.c.dir, "rpm-ostreed-"+a.Name+".log"))
	if err != nil {
		return res, err
	}
	defer func() { _ = daemon.Kill() }()
	res.Writer = fmt.Sprintf("rpm-ostreed (pid %d)", daemon.Pid())
	restore, err := s.ApplyToProcess(daemon.Pid())
	if err != nil {
		return res, fmt.Errorf("apply policy to the double's transaction daemon: %w", err)
	}
	defer func() { err = errors.Join(err, restore()) }()
	cmd := exec.CommandContext(ctx, b.c.rpmOstree, "rebase", "--lock-finalization", "ostree-unverified-registry:"+b.image.Ref)
	cmd.Env = append(os.Environ(), node.Env()...)
	out, err := os.Create(filepath.Join(b.c.dir, "stage-"+a.Name+".log"))
	if err != nil {
		return res, err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start the double: %w", err)
	}
	if err := cmd.Wait(); err != nil {
		return res, fmt.Errorf("staging failed (see %s): %w", out.Name(), err)
	}
	t1 := time.Now()
	res.LoadAfter = readHostLoad()
	res.Series = rec.finish(ctx)
	h1, err := scraper.Scrape(ctx)
	if err != nil {
		return res, err
	}
	res.phase = b.phase(h1.Sub(h0), t0, t1)
	res.Held = res.TargetMs > 0 && res.FsyncP99Ms <= res.TargetMs
	res.StageS = t1.Sub(t0).Seconds()
	res.StageMiBs = float64(b.image.ContentBytes) / (1 << 20) / res.StageS
	if _, locked, err := osdouble.StagedDeployment(node.Run); err != nil || !locked {
		return res, fmt.Errorf("no locked staged deployment after the rebase (locked=%v): %v", locked, err)
	}
	mu.Lock()
	res.Governor = steps
	mu.Unlock()
	return res, nil
}

// ensureRegistriesConf gives the double's containers/image an (empty)
// registries.conf where it looks for one, if the double did not make it.
func ensureRegistriesConf(sysroot string) error {
	p := filepath.Join(sysroot, "ostree", "containers-root", "registries.conf")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
