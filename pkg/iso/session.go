package iso

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
	"k8s.io/klog/v2"
)

// writeLimiter is what cgroup-throttle and the governor drive as
// LeverWriteLimit: a direct cgroup or a systemd unit's properties.
type writeLimiter interface {
	SetWriteLimit(ctx context.Context, bps uint64) error
}

// writeLimit adapts a writeLimiter to the lever interface.
type writeLimit struct{ l writeLimiter }

func (w writeLimit) name() string { return LeverWriteLimit }
func (w writeLimit) apply(context.Context, *journal, uint64) (string, error) {
	return "", nil // set up by setWriteLimit, which records it
}
func (w writeLimit) Set(ctx context.Context, v uint64) error { return w.l.SetWriteLimit(ctx, v) }

// Session is a policy applied to the host for one staging. Close undoes it.
type Session struct {
	policy  *Policy
	device  BlockDevice
	lock    *hostLock
	journal *journal
	cgroup  *StagingCgroup
	unit    *UnitIO
	levers  map[string]lever
	applied []AppliedLever
	skipped map[string]string
	stopGov context.CancelFunc
	govDone chan error
	target  GovernorTarget
	// law and lastStep: the governor's law and its latest state, for
	// GovernorOutcome (the governor's goroutine writes lastStep).
	law       governor.Law
	stepMu    sync.Mutex
	lastStep  *governor.State
	closeOnce sync.Once
	closeErr  error
}

// AppliedLever is a lever in force during the session and the value it
// was set to (in the lever's unit: bytes/s, bytes, microseconds, KiB).
type AppliedLever struct {
	Name  string
	Value uint64
}

// Prepare applies the policy's host knobs: the repo's per-object fsync, the
// disk scheduler, the cgroup or unit limits, the writeback levers, the
// governor. Before it changes anything it takes the host lock, puts back
// whatever an interrupted session left changed, and records each knob's
// original value durably. On error it undoes what it did.
func (p *Policy) Prepare(ctx context.Context) (_ *Session, err error) {
	s := &Session{policy: p, levers: map[string]lever{}, skipped: map[string]string{}}
	k, o := p.knobs, p.opts
	if o.Unit != "" {
		// With a unit as the writer its I/O class is one of its drop-ins;
		// they apply from the unit's next start (see LayUnitDropIns).
		if _, err := LayUnitDropIns(ctx, "/", o.Unit, p, false); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
		}
	}
	if !k.HostKnobs() {
		klog.FromContext(ctx).Info("Staging I/O policy prepared", "policy", p.name)
		return s, nil
	}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("I/O policy %s: %w", p.name, err), s.Close(context.WithoutCancel(ctx)))
		}
	}()
	if err := s.lockHost(ctx); err != nil {
		return nil, err
	}
	if k.Scheduler != "" || k.Cgroup || len(k.Levers()) > 0 {
		if o.Device != nil {
			s.device = *o.Device
		} else if s.device, err = DeviceOf(o.Sysroot); err != nil {
			return nil, err
		}
	}
	if k.PerObjectFsync {
		if err := s.setRepoOption(ctx, RepoConfigPath(o.Sysroot), "core", PerObjectFsyncKey, "true"); err != nil {
			return nil, err
		}
	}
	if k.Scheduler != "" {
		if err := s.setScheduler(ctx, k.Scheduler); err != nil {
			return nil, err
		}
	}
	if k.Cgroup {
		if err := s.setWriteLimit(ctx); err != nil {
			return nil, err
		}
	}
	sys := sysfsRoot(o.Sysfs)
	for _, l := range []struct {
		on    bool
		lever lever
		value uint64
	}{
		{k.DirtyLimit, &dirtyLimit{dir: sys.bdiDir(s.device)}, o.DirtyLimit},
		{k.WBT, newWBT(sys, s.device.Disks), uint64(o.WBTLatency / time.Microsecond)},
		{k.RequestSize, newRequestSize(sys, s.device.Disks), o.RequestSizeKB},
		{k.IOCost, newIOCost(s.device), uint64(o.IOCostLatency / time.Microsecond)},
	} {
		if !l.on {
			continue
		}
		if err := s.applyLever(ctx, l.lever, l.value); err != nil {
			return nil, err
		}
	}
	if k.Governed {
		if err := s.startGovernor(ctx, k.Steer); err != nil {
			return nil, err
		}
	}
	klog.FromContext(ctx).Info("Staging I/O policy prepared", "policy", p.name, "device", s.device.Name, "io", s.Describe())
	return s, nil
}

// lockHost takes the host lock, restores what an interrupted session left,
// and starts this session's record.
func (s *Session) lockHost(ctx context.Context) error {
	o := s.policy.opts
	lock, previous, err := acquireHostLock(ctx, o.HostLock, o.LockWait)
	if err != nil {
		return err
	}
	s.lock = lock
	own := RecordPath(o.StateDir)
	if _, err := restoreLeftovers(ctx, own, previous); err != nil {
		// The record keeps what could not be put back; changing the
		// knobs now would record leftovers as originals.
		return fmt.Errorf("knobs left by an interrupted staging could not be restored: %w", err)
	}
	s.journal = newJournal(o.StateDir, s.policy.name)
	return lock.claim(own)
}

func (s *Session) setRepoOption(ctx context.Context, path, section, key, value string) error {
	prev, had, err := ReadRepoOption(path, section, key)
	if err != nil {
		return err
	}
	if err := s.journal.note(Entry{Kind: kindRepoOption, Lever: "per-object-fsync", Path: path, Section: section, Key: key, Had: had, Original: prev}); err != nil {
		return err
	}
	_, err = SetRepoOption(ctx, path, section, key, value)
	return err
}

func (s *Session) setScheduler(ctx context.Context, sched string) error {
	for _, disk := range s.device.Disks {
		cur, avail, err := ReadScheduler(disk)
		if err != nil {
			return err
		}
		if cur == sched {
			continue
		}
		if !contains(avail, sched) {
			// An optional lever: the policy's other knobs still apply.
			s.skip(ctx, LeverScheduler, fmt.Sprintf("%s offers no %s (schedulers: %s)", disk, sched, strings.Join(avail, " ")))
			continue
		}
		if err := s.journal.note(Entry{Kind: kindFile, Lever: "scheduler", Path: SchedulerPath(disk), Original: cur, Volatile: true}); err != nil {
			return err
		}
		if err := writeKnob(SchedulerPath(disk), sched); err != nil {
			return err
		}
		klog.FromContext(ctx).Info("I/O scheduler set", "disk", disk, "scheduler", sched, "was", cur)
	}
	return nil
}

// setWriteLimit makes the writer's cgroup (or sets the unit's properties)
// with the policy's limit and weight, and in host mode moves the writer in.
func (s *Session) setWriteLimit(ctx context.Context) error {
	k, o := s.policy.knobs, s.policy.opts
	limit := o.WriteLimit
	if k.Governed && k.Steer == LeverWriteLimit {
		limit = o.StartWriteLimit
	}
	var lim writeLimiter
	if o.Unit != "" {
		u, err := NewUnitIO(ctx, o.Unit, s.device.DevPath())
		if err != nil {
			return err
		}
		s.unit = u
		if err := s.journal.note(Entry{Kind: kindUnitIO, Lever: LeverWriteLimit, Path: o.Unit, Unit: o.Unit, Device: s.device.DevPath(), Weight: u.prevWeight, Volatile: true}); err != nil {
			return err
		}
		if err := u.Apply(ctx, limit, uint64(o.Weight)); err != nil {
			return err
		}
		lim = u
	} else {
		spec := CgroupSpec{Parent: o.CgroupParent, Name: o.CgroupName, Device: s.device, WriteBps: limit, Weight: o.Weight}
		_, parent, path, makesParent, err := CgroupPaths(spec)
		if err != nil {
			return err
		}
		if !makesParent {
			parent = ""
		}
		if err := s.journal.note(Entry{Kind: kindCgroup, Lever: LeverWriteLimit, Path: path, Parent: parent, Volatile: true}); err != nil {
			return err
		}
		if s.cgroup, err = CreateStagingCgroup(ctx, spec); errors.Is(err, ErrNoWriteLimit) {
			s.cgroup = nil
			s.skip(ctx, LeverWriteLimit, err.Error())
			return nil
		} else if err != nil {
			return err
		}
		if why := s.cgroup.WeightMissing(); why != "" {
			s.skip(ctx, LeverWeight, why)
		}
		lim = s.cgroup
	}
	s.levers[LeverWriteLimit] = writeLimit{lim}
	s.applied = append(s.applied, AppliedLever{Name: LeverWriteLimit, Value: limit})
	return nil
}

// skip records an optional lever this host lacks, and logs it once.
func (s *Session) skip(ctx context.Context, lever, why string) {
	if prev, ok := s.skipped[lever]; ok {
		why = prev + "; " + why
	}
	s.skipped[lever] = why
	klog.FromContext(ctx).Info("I/O lever not available here; staging without it", "lever", lever, "why", why)
}

func (s *Session) applyLever(ctx context.Context, l lever, value uint64) error {
	skipped, err := l.apply(ctx, s.journal, value)
	if err != nil {
		return fmt.Errorf("lever %s: %w", l.name(), err)
	}
	if skipped != "" {
		s.skip(ctx, l.name(), skipped)
		return nil
	}
	s.levers[l.name()] = l
	s.applied = append(s.applied, AppliedLever{Name: l.name(), Value: value})
	return nil
}

func (s *Session) startGovernor(ctx context.Context, steer string) error {
	o := s.policy.opts
	l, ok := s.levers[steer]
	if !ok {
		// The governor is optional too: the stage runs with the levers
		// that are set, unsteered.
		s.skip(ctx, LeverGovernor, fmt.Sprintf("it steers %s, which this host lacks", steer))
		return nil
	}
	var sampler governor.Sampler
	if o.EtcdMetricsURL != "" {
		sampler = &governor.EtcdSampler{Scraper: governor.MetricsScraper{URL: o.EtcdMetricsURL}}
	} else {
		ds, err := governor.NewDiskSampler(s.device.LimitMajor, s.device.LimitMinor)
		if err != nil {
			return err
		}
		sampler = ds
	}
	// The idle latency is measured before the stage writes anything:
	// Prepare returns only after it.
	rule := o.targetRule()
	var idle governor.Idle
	if rule.Absolute == 0 {
		var err error
		if idle, err = governor.MeasureIdle(ctx, sampler, o.SampleInterval, o.BaselineSamples); err != nil {
			return err
		}
	}
	s.target = GovernorTarget{Rule: rule, Idle: idle, Target: rule.Resolve(idle.Latency, idle.OK), Etcd: o.EtcdMetricsURL != ""}
	klog.FromContext(ctx).Info("I/O governor target set", "target", s.target.Target, "rule", rule.String(), "idle", idle.Latency, "idleObservations", idle.Observations, "etcd", s.target.Etcd)
	_, _, start := steerRange(o, steer)
	g := governor.Governor{
		Law:      lawFor(o, steer, s.target.Target),
		Start:    start,
		Interval: o.SampleInterval,
		Sampler:  sampler,
		Lever:    l,
		OnStep: func(x governor.Sample, st governor.State) {
			s.stepMu.Lock()
			s.lastStep = &st
			s.stepMu.Unlock()
			if o.OnGovernorStep != nil {
				o.OnGovernorStep(x, st)
			}
		},
	}
	if err := g.Law.Validate(); err != nil {
		return err
	}
	s.law = g.Law
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopGov, s.govDone = cancel, make(chan error, 1)
	go func() { s.govDone <- g.Run(gctx) }()
	return nil
}

// GovernorTarget is the target a governed session steers to and how it
// was chosen.
type GovernorTarget struct {
	Rule governor.TargetRule
	// Idle is the latency measured before the stage (zero for an absolute
	// rule).
	Idle   governor.Idle
	Target time.Duration
	// Etcd tells whether the latency is etcd's WAL fsync p99 (else the
	// disk's mean write latency).
	Etcd bool
}

// String is the target as a report shows it, e.g. "2ms (2x idle 1ms)".
func (t GovernorTarget) String() string {
	target := t.Target.Round(10 * time.Microsecond)
	switch {
	case t.Target == 0:
		return "none"
	case t.Rule.Absolute > 0:
		return target.String()
	case !t.Idle.OK:
		return fmt.Sprintf("%v (ceiling: no idle latency measured)", target)
	}
	return fmt.Sprintf("%v (%gx idle %v)", target, t.Rule.Multiple, t.Idle.Latency.Round(10*time.Microsecond))
}

// GovernorTarget is the governed session's target; zero Target when the
// policy has no governor.
func (s *Session) GovernorTarget() GovernorTarget { return s.target }

// GovernorOutcome is what the governor achieved so far (whether the
// stage's p99 stayed under the target, and whether the lever ran out);
// false when the policy has no governor or it has not sampled yet.
func (s *Session) GovernorOutcome() (governor.Outcome, bool) {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	if s.lastStep == nil {
		return governor.Outcome{}, false
	}
	return s.law.Outcome(*s.lastStep), true
}

// Applied lists the levers in force, with the values they were set to (the
// governor moves the steered one from there).
func (s *Session) Applied() []AppliedLever { return slices.Clone(s.applied) }

// Describe says, for the node's Staged condition and the log, which
// levers the session runs with and which it goes without and why, e.g.
// "levers per-object-fsync write-limit, without weight (no blkio.weight or
// blkio.bfq.weight; schedulers: none mq-deadline kyber)". It is "" for a
// policy that sets nothing on the host.
func (s *Session) Describe() string {
	var on []string
	if s.policy.knobs.PerObjectFsync {
		on = append(on, "per-object-fsync")
	}
	if s.policy.knobs.IOPrio != nil {
		on = append(on, "io-class")
	}
	if s.policy.knobs.Scheduler != "" && s.skipped[LeverScheduler] == "" {
		on = append(on, LeverScheduler+"="+s.policy.knobs.Scheduler)
	}
	for _, a := range s.applied {
		on = append(on, a.Name)
	}
	if s.stopGov != nil {
		on = append(on, LeverGovernor)
	}
	var parts []string
	if len(on) > 0 {
		parts = append(parts, "levers "+strings.Join(on, " "))
	}
	for _, name := range slices.Sorted(maps.Keys(s.skipped)) {
		parts = append(parts, fmt.Sprintf("without %s (%s)", name, s.skipped[name]))
	}
	return strings.Join(parts, ", ")
}

// Skipped maps the policy's levers this host lacks to the reason.
func (s *Session) Skipped() map[string]string { return maps.Clone(s.skipped) }

// Policy is the policy this session applies.
func (s *Session) Policy() *Policy { return s.policy }

// Device is the disk the session isolates (zero when no knob needs one).
func (s *Session) Device() BlockDevice { return s.device }

// Cgroup is the direct staging cgroup, nil when the policy has none or the
// unit's properties are used instead.
func (s *Session) Cgroup() *StagingCgroup { return s.cgroup }

// Hook returns the start hook for the staging process (pkg/ostree's
// Options.StartHook): before Start it makes the child lead its own process
// group; after Start it moves the child into the cgroup and sets its I/O
// class on all its threads. With a systemd unit as the writer it does
// nothing: the unit's properties apply.
func (s *Session) Hook() func(cmd *exec.Cmd) (func(pid int) error, error) {
	k := s.policy.knobs
	prio := k.IOPrio
	cg := s.cgroup
	if s.policy.opts.Unit != "" || (prio == nil && cg == nil) {
		return func(*exec.Cmd) (func(int) error, error) { return func(int) error { return nil }, nil }
	}
	return func(cmd *exec.Cmd) (func(int) error, error) {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		if prio != nil {
			cmd.SysProcAttr.Setpgid = true
			cmd.SysProcAttr.Pgid = 0
		}
		// On cgroup v2 the child is born in the cgroup (CLONE_INTO_CGROUP).
		// v1 has no such thing: the child is moved in right after Start,
		// so its first milliseconds run outside the limit.
		var dir *os.File
		if cg != nil && cg.V2() {
			var err error
			if dir, err = os.Open(cg.Path()); err != nil {
				return nil, fmt.Errorf("open cgroup %s: %w", cg.Path(), err)
			}
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = int(dir.Fd())
		}
		return func(pid int) error {
			if dir != nil {
				dir.Close()
			}
			if cg != nil {
				if err := cg.Attach(pid); err != nil {
					return err
				}
			}
			if prio != nil {
				if err := ApplyIOPrio(pid, *prio); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}
}

// TargetsProcess tells whether the policy acts on the writing process
// itself (a direct cgroup or an I/O class), so that a writer must be named:
// the staging child (Hook) or a running daemon (ApplyToProcess). With a
// systemd unit the unit's properties apply instead.
func (s *Session) TargetsProcess() bool {
	return s.policy.opts.Unit == "" && (s.policy.knobs.IOPrio != nil || s.cgroup != nil)
}

// ApplyToProcess applies the policy's per-process knobs (the direct cgroup,
// the I/O class) to a running process and all its threads: rpm-ostree's
// transaction daemon on a host without systemd, where the stage's writes
// happen (the CLI child Hook sees is only a client). Its cgroup and I/O
// class are recorded first, like every knob, so a crash before Close puts
// them back too. It returns a function that puts the process back into its
// cgroup and its threads' I/O classes back; Close does the same. With a
// systemd unit as the writer it does nothing: the unit's properties apply.
func (s *Session) ApplyToProcess(pid int) (restore func() error, err error) {
	noop := func() error { return nil }
	if !s.TargetsProcess() {
		return noop, nil
	}
	var undo []func() error
	restore = func() error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			errs = append(errs, undo[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, restore())
			restore = noop
		}
	}()
	start, err := procStartTime(pid)
	if err != nil {
		return nil, err
	}
	if cg := s.cgroup; cg != nil {
		home, err := cg.dirOf(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err != nil {
			return nil, err
		}
		if err := s.journal.note(Entry{Kind: kindProcessCgroup, Lever: LeverWriteLimit, PID: pid, StartTime: start, Path: home, Volatile: true}); err != nil {
			return nil, err
		}
		if err := cg.Attach(pid); err != nil {
			return nil, err
		}
		undo = append(undo, func() error { return moveProcess(pid, start, home) })
	}
	if prio := s.policy.knobs.IOPrio; prio != nil {
		cur, err := GetThreadIOPrio(pid)
		if err != nil {
			return nil, err
		}
		v, err := cur.value()
		if err != nil {
			return nil, err
		}
		if err := s.journal.note(Entry{Kind: kindProcessIOPrio, Lever: "io-class", PID: pid, StartTime: start, Original: strconv.Itoa(int(v)), Volatile: true}); err != nil {
			return nil, err
		}
		orig, err := setThreadsIOPrio(pid, *prio)
		undo = append(undo, func() error { return restoreThreadsIOPrio(pid, orig) })
		if err != nil {
			return nil, err
		}
	}
	return restore, nil
}

// Close stops the governor, then puts every knob back from the session's
// record (the same code that restores them after a crash), removes the
// record and releases the host lock. It is idempotent and tries every step
// even when one fails; what it could not restore stays in the record for
// the next RestoreInterrupted.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.stopGov != nil {
			s.stopGov()
			if err := <-s.govDone; err != nil {
				errs = append(errs, fmt.Errorf("governor: %w", err))
			}
		}
		if s.journal != nil {
			errs = append(errs, s.journal.restore(ctx))
		}
		if s.unit != nil {
			s.unit.conn.Close()
		}
		errs = append(errs, s.lock.release())
		s.closeErr = errors.Join(errs...)
		klog.FromContext(ctx).Info("Staging I/O policy undone", "policy", s.policy.name, "err", s.closeErr)
	})
	return s.closeErr
}
