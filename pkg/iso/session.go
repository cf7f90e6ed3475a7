package iso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
	"k8s.io/klog/v2"
)

// writeLimiter is what the governor and cgroup-throttle drive: a direct
// cgroup or a systemd unit's properties.
type writeLimiter interface {
	SetWriteLimit(ctx context.Context, bps uint64) error
}

// Session is a policy applied to the host for one staging. Close undoes it.
type Session struct {
	policy    *Policy
	device    BlockDevice
	repo      *RepoOptionChange
	scheduler *SchedulerChange
	cgroup    *StagingCgroup
	unit      *UnitIO
	stopGov   context.CancelFunc
	govDone   chan error
	closeOnce sync.Once
	closeErr  error
}

// Prepare applies the policy's host-wide knobs: the repo's per-object
// fsync, the disk scheduler, the cgroup or unit limits, the governor. On
// error it undoes what it did.
func (p *Policy) Prepare(ctx context.Context) (_ *Session, err error) {
	s := &Session{policy: p}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close(context.WithoutCancel(ctx)))
		}
	}()
	k, o := p.knobs, p.opts
	if k.Scheduler != "" || k.Cgroup {
		if o.Device != nil {
			s.device = *o.Device
		} else if s.device, err = DeviceOf(o.Sysroot); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
		}
	}
	if k.PerObjectFsync {
		if s.repo, err = SetRepoOption(ctx, RepoConfigPath(o.Sysroot), "core", PerObjectFsyncKey, "true"); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
		}
	}
	if k.Scheduler != "" {
		if s.scheduler, err = SetScheduler(ctx, s.device.Disks, k.Scheduler); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
		}
	}
	if k.Cgroup {
		limit := o.WriteLimit
		if k.Governed {
			limit = o.StartWriteLimit
		}
		var lim writeLimiter
		if o.Unit != "" {
			if s.unit, err = NewUnitIO(ctx, o.Unit, s.device.DevPath()); err != nil {
				return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
			}
			if err = s.unit.Apply(ctx, limit, uint64(o.Weight)); err != nil {
				return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
			}
			lim = s.unit
		} else {
			spec := CgroupSpec{Parent: o.CgroupParent, Name: o.CgroupName, Device: s.device, WriteBps: limit, Weight: o.Weight}
			if s.cgroup, err = CreateStagingCgroup(ctx, spec); err != nil {
				return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
			}
			lim = s.cgroup
		}
		if k.Governed {
			if err = s.startGovernor(ctx, lim); err != nil {
				return nil, fmt.Errorf("I/O policy %s: %w", p.name, err)
			}
		}
	}
	klog.FromContext(ctx).Info("Staging I/O policy prepared", "policy", p.name, "device", s.device.Name)
	return s, nil
}

func (s *Session) startGovernor(ctx context.Context, lim writeLimiter) error {
	o := s.policy.opts
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
	g := governor.Governor{
		Law:      lawFor(o),
		Start:    float64(o.StartWriteLimit),
		Interval: o.SampleInterval,
		Sampler:  sampler,
		Limiter:  lim,
		OnStep:   o.OnGovernorStep,
	}
	if err := g.Law.Validate(); err != nil {
		return err
	}
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopGov, s.govDone = cancel, make(chan error, 1)
	go func() { s.govDone <- g.Run(gctx) }()
	return nil
}

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
// happen (the CLI child Hook sees is only a client). It returns a function
// that puts the process back into its cgroup and its threads' I/O classes
// back; call it before Close, which removes the cgroup. With a systemd unit
// as the writer it does nothing: the unit's properties apply.
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
	if cg := s.cgroup; cg != nil {
		home, err := cg.dirOf(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err != nil {
			return nil, err
		}
		if err := cg.Attach(pid); err != nil {
			return nil, err
		}
		undo = append(undo, func() error { return cg.moveTo(home, pid) })
	}
	if prio := s.policy.knobs.IOPrio; prio != nil {
		orig, err := setThreadsIOPrio(pid, *prio)
		undo = append(undo, func() error { return restoreThreadsIOPrio(pid, orig) })
		if err != nil {
			return nil, err
		}
	}
	return restore, nil
}

// Close stops the governor, removes the cgroup (or lifts the unit's
// limits), restores the scheduler and the repo option. It is idempotent
// and tries every step even when one fails.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.stopGov != nil {
			s.stopGov()
			if err := <-s.govDone; err != nil {
				errs = append(errs, fmt.Errorf("governor: %w", err))
			}
		}
		if s.cgroup != nil {
			errs = append(errs, s.cgroup.Destroy(ctx))
		}
		if s.unit != nil {
			errs = append(errs, s.unit.Close(ctx))
		}
		errs = append(errs, s.scheduler.Restore(ctx), s.repo.Restore(ctx))
		s.closeErr = errors.Join(errs...)
		klog.FromContext(ctx).Info("Staging I/O policy undone", "policy", s.policy.name, "err", s.closeErr)
	})
	return s.closeErr
}
