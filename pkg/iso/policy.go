// Package iso isolates OS staging I/O from etcd and other latency-sensitive
// writers on the same disk. A Policy names a combination of knobs (paced
// writes, an I/O class, the bfq scheduler, a cgroup or unit write limit, the
// disk's writeback levers: per-BDI dirty limit, wbt, request size, io.cost)
// and whether a governor steers one of them. Prepare takes the host lock,
// records every knob's original value durably before changing it, and
// returns a Session whose Hook or ApplyToProcess puts the writer under the
// per-process ones. Close restores everything from that record, and
// RestoreInterrupted does the same after a crash (the daemon calls it when it
// starts). Which policy is the default is decided by make bench-io (see
// docs/benchmarks.md).
package iso

import (
	"fmt"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

// Policy names.
const (
	PolicyNone           = "none"
	PolicyPerObjectFsync = "per-object-fsync"
	PolicyIdle           = "idle"
	PolicyIdleBFQ        = "idle-bfq"
	PolicyCgroupThrottle = "cgroup-throttle"
	PolicyWriteback      = "writeback"
	PolicyAdaptive       = "adaptive"
	PolicyAdaptiveWB     = "adaptive-writeback"
)

// DefaultPolicyName is the policy the daemon stages with when a pool names
// none. Chosen by measurement (make bench-io, docs/benchmarks.md).
func DefaultPolicyName() string { return PolicyAdaptive }

// Knobs is what a policy turns on.
type Knobs struct {
	// PerObjectFsync sets the repo's core.per-object-fsync: writes are
	// paced and submitted by the writer itself, so its I/O class and (on
	// cgroup v1) its cgroup apply to them.
	PerObjectFsync bool
	// IOPrio, when set, is the staging processes' I/O class.
	IOPrio *IOPrio
	// Scheduler, when set, is selected on the disk for the session.
	Scheduler string
	// Cgroup puts the staging processes under a write limit and weight.
	Cgroup bool
	// Governed puts a lever under the governor (Steer names it).
	Governed bool
	// Steer is the lever the governor moves (one of SteerableLevers).
	Steer string
	// DirtyLimit, WBT, RequestSize and IOCost set the writeback levers of
	// the same names (LeverDirtyLimit, ...) for the stage.
	DirtyLimit, WBT, RequestSize, IOCost bool
}

// HostKnobs tells whether the policy changes anything on the host.
func (k Knobs) HostKnobs() bool {
	return k.PerObjectFsync || k.IOPrio != nil || k.Scheduler != "" || k.Cgroup || k.Governed ||
		k.DirtyLimit || k.WBT || k.RequestSize || k.IOCost
}

// Levers lists the levers the policy sets, in the order it sets them.
func (k Knobs) Levers() []string {
	var out []string
	if k.Cgroup {
		out = append(out, LeverWriteLimit)
	}
	for _, l := range []struct {
		on   bool
		name string
	}{{k.DirtyLimit, LeverDirtyLimit}, {k.WBT, LeverWBT}, {k.RequestSize, LeverRequestSize}, {k.IOCost, LeverIOCost}} {
		if l.on {
			out = append(out, l.name)
		}
	}
	return out
}

// knobsOf is the table of policies. The I/O class and the cgroup limit act
// only on I/O the staging process submits itself; on cgroup v1 buffered
// writeback is submitted by kernel flusher threads, so the policies built on
// them pace writes with per-object fsync. The writeback policies act on the
// writeback itself (per-BDI dirty limit, wbt, request size, io.cost) and
// leave the writes buffered.
func knobsOf(name string, prio IOPrio) (Knobs, bool) {
	switch name {
	case PolicyNone:
		return Knobs{}, true
	case PolicyPerObjectFsync:
		return Knobs{PerObjectFsync: true}, true
	case PolicyIdle:
		return Knobs{PerObjectFsync: true, IOPrio: &prio}, true
	case PolicyIdleBFQ:
		return Knobs{PerObjectFsync: true, IOPrio: &prio, Scheduler: "bfq"}, true
	case PolicyCgroupThrottle:
		return Knobs{PerObjectFsync: true, Cgroup: true}, true
	case PolicyWriteback:
		return Knobs{DirtyLimit: true, WBT: true, RequestSize: true, IOCost: true}, true
	case PolicyAdaptive:
		return Knobs{PerObjectFsync: true, Cgroup: true, Governed: true, Steer: LeverWriteLimit}, true
	case PolicyAdaptiveWB:
		return Knobs{DirtyLimit: true, WBT: true, RequestSize: true, IOCost: true, Governed: true, Steer: LeverDirtyLimit}, true
	}
	return Knobs{}, false
}

// PolicyNames lists the valid names, in order of increasing machinery.
func PolicyNames() []string {
	return []string{PolicyNone, PolicyPerObjectFsync, PolicyIdle, PolicyIdleBFQ, PolicyCgroupThrottle, PolicyWriteback, PolicyAdaptive, PolicyAdaptiveWB}
}

// Options configure a policy for a host.
type Options struct {
	// Sysroot holds the OS repository (<Sysroot>/ostree/repo/config): the
	// node's /sysroot, or the test double's sysroot.
	Sysroot string
	// Device is the disk to isolate; nil resolves the device of Sysroot.
	Device *BlockDevice
	// Unit, when set, is the systemd unit that writes (rpm-ostreed.service
	// in production): the cgroup knobs become its runtime properties over
	// D-Bus and the Hook does nothing. Empty: the staging child process is
	// put in a cgroup made directly, and its I/O class set.
	Unit string
	// CgroupParent and CgroupName place the direct cgroup.
	CgroupParent, CgroupName string
	// WriteLimit is cgroup-throttle's limit and the governor's ceiling, in
	// bytes per second.
	WriteLimit uint64
	// MinWriteLimit is the governor's floor, bytes per second.
	MinWriteLimit uint64
	// StartWriteLimit is where the governor starts; 0: WriteLimit/2.
	StartWriteLimit uint64
	// Weight is the cgroup's I/O weight, 10..1000 (100 is the default of
	// everyone else); 0 leaves it.
	Weight uint16
	// IOPrio is the class of the idle policies; zero value: Idle.
	IOPrio IOPrio
	// EtcdMetricsURL is etcd's /metrics for the governor; empty: the
	// governor uses the disk's latency from /proc/diskstats.
	EtcdMetricsURL string
	// TargetP99, when set, is the governor's target for etcd's WAL fsync
	// p99. Zero (the default): TargetIdleMultiple times the p99 the
	// governor measures over BaselineSamples intervals before the stage
	// starts writing, at most TargetCeiling.
	TargetP99 time.Duration
	// TargetIdleMultiple is the relative target's multiple of the idle
	// latency (DefaultTargetIdleMultiple).
	TargetIdleMultiple float64
	// TargetCeiling caps a relative target on etcd's p99
	// (DefaultTargetCeiling, etcd's guidance).
	TargetCeiling time.Duration
	// DiskTarget, when set, is the governor's target mean write latency
	// when it reads /proc/diskstats instead of etcd; zero: relative, as
	// above, at most DefaultDiskCeiling.
	DiskTarget time.Duration
	// SampleInterval is how often the governor samples.
	SampleInterval time.Duration
	// BaselineSamples is how many intervals the governor measures the
	// idle latency for before the stage writes (DefaultBaselineSamples).
	BaselineSamples int
	// OnGovernorStep, when set, sees each governor step.
	OnGovernorStep func(governor.Sample, governor.State)

	// StateDir holds the durable record of the knobs a session changed
	// (RecordPath), written before each change so that RestoreInterrupted
	// can put them back after a crash; default DefaultStateDir.
	StateDir string
	// HostLock is the host-wide lock file sessions hold (DefaultHostLock),
	// LockWait how long Prepare waits for it (DefaultLockWait).
	HostLock string
	LockWait time.Duration
	// Steer overrides the lever the governor moves (SteerableLevers).
	Steer string
	// DirtyLimit is the per-BDI dirty limit in bytes (LeverDirtyLimit) and
	// where the governor starts it; MinDirtyLimit and MaxDirtyLimit bound
	// the governor.
	DirtyLimit, MinDirtyLimit, MaxDirtyLimit uint64
	// WBTLatency is the wbt_lat_usec target (LeverWBT).
	WBTLatency time.Duration
	// RequestSizeKB is max_sectors_kb for the stage (LeverRequestSize).
	RequestSizeKB uint64
	// IOCostLatency is io.cost's read and write p95 latency target.
	IOCostLatency time.Duration
	// Sysfs is the sysfs mount ("/sys"; a fake tree in tests).
	Sysfs string
}

// Defaults for the zero fields of Options.
const (
	DefaultCgroupParent  = "tandem"
	DefaultCgroupName    = "staging"
	DefaultWriteLimit    = 128 << 20
	DefaultMinWriteLimit = 16 << 20
	DefaultWeight        = 10
	// DefaultTargetIdleMultiple is the default target as a multiple of the
	// idle p99: the knee of make bench-io's frontier (docs/benchmarks.md).
	DefaultTargetIdleMultiple = 2.0
	// DefaultTargetCeiling is etcd's hardware guidance for the WAL fsync
	// p99 (10 ms): no relative target goes above it.
	DefaultTargetCeiling = 10 * time.Millisecond
	// DefaultDiskCeiling caps a relative target on the disk's mean write
	// latency (nodes without etcd).
	DefaultDiskCeiling     = 5 * time.Millisecond
	DefaultSampleInterval  = time.Second
	DefaultBaselineSamples = 3
	DefaultDirtyLimit      = 64 << 20
	DefaultMinDirtyLimit   = 8 << 20
	DefaultMaxDirtyLimit   = 512 << 20
	DefaultWBTLatency      = 2 * time.Millisecond
	DefaultRequestSizeKB   = 512
	DefaultIOCostLatency   = 5 * time.Millisecond
)

func (o Options) withDefaults() Options {
	if o.CgroupParent == "" {
		o.CgroupParent = DefaultCgroupParent
	}
	if o.CgroupName == "" {
		o.CgroupName = DefaultCgroupName
	}
	if o.WriteLimit == 0 {
		o.WriteLimit = DefaultWriteLimit
	}
	if o.MinWriteLimit == 0 {
		o.MinWriteLimit = DefaultMinWriteLimit
	}
	if o.StartWriteLimit == 0 {
		o.StartWriteLimit = max(o.WriteLimit/2, o.MinWriteLimit)
	}
	if o.Weight == 0 {
		o.Weight = DefaultWeight
	}
	if o.IOPrio == (IOPrio{}) {
		o.IOPrio = Idle
	}
	if o.TargetIdleMultiple == 0 {
		o.TargetIdleMultiple = DefaultTargetIdleMultiple
	}
	if o.TargetCeiling == 0 {
		o.TargetCeiling = DefaultTargetCeiling
	}
	if o.SampleInterval == 0 {
		o.SampleInterval = DefaultSampleInterval
	}
	if o.BaselineSamples == 0 {
		o.BaselineSamples = DefaultBaselineSamples
	}
	if o.StateDir == "" {
		o.StateDir = DefaultStateDir
	}
	if o.HostLock == "" {
		o.HostLock = DefaultHostLock
	}
	if o.LockWait == 0 {
		o.LockWait = DefaultLockWait
	}
	if o.DirtyLimit == 0 {
		o.DirtyLimit = DefaultDirtyLimit
	}
	if o.MinDirtyLimit == 0 {
		o.MinDirtyLimit = min(DefaultMinDirtyLimit, o.DirtyLimit)
	}
	if o.MaxDirtyLimit == 0 {
		o.MaxDirtyLimit = max(DefaultMaxDirtyLimit, o.DirtyLimit)
	}
	if o.WBTLatency == 0 {
		o.WBTLatency = DefaultWBTLatency
	}
	if o.RequestSizeKB == 0 {
		o.RequestSizeKB = DefaultRequestSizeKB
	}
	if o.IOCostLatency == 0 {
		o.IOCostLatency = DefaultIOCostLatency
	}
	if o.Sysfs == "" {
		o.Sysfs = "/sys"
	}
	return o
}

// Policy is a named set of knobs bound to a host's options.
type Policy struct {
	name  string
	knobs Knobs
	opts  Options
}

// ParsePolicy returns the policy called name ("" means the default). A
// governed policy's name may carry its governor's target after an "@"
// (ParseTargetSpec): "adaptive@3x" steers to 3x the idle p99, "adaptive@5ms"
// to 5 ms, overriding the options' target.
func ParsePolicy(name string, o Options) (*Policy, error) {
	if name == "" {
		name = DefaultPolicyName()
	}
	name, target, hasTarget := strings.Cut(name, "@")
	if hasTarget {
		t, err := ParseTargetSpec(target)
		if err != nil {
			return nil, fmt.Errorf("I/O policy %s@%s: %w", name, target, err)
		}
		t.apply(&o)
	}
	o = o.withDefaults()
	k, ok := knobsOf(name, o.IOPrio)
	if !ok {
		return nil, fmt.Errorf("unknown I/O policy %q: valid policies are %s", name, strings.Join(PolicyNames(), ", "))
	}
	if hasTarget && !k.Governed {
		return nil, fmt.Errorf("I/O policy %s has no governor: a target (@%s) needs %s or %s", name, target, PolicyAdaptive, PolicyAdaptiveWB)
	}
	if k.Governed && o.Steer != "" {
		k.Steer = o.Steer
	}
	if k.Governed && !contains(SteerableLevers(), k.Steer) {
		return nil, fmt.Errorf("I/O policy %s: the governor cannot steer %q: steerable levers are %s", name, k.Steer, strings.Join(SteerableLevers(), ", "))
	}
	if k.Governed && k.Steer == LeverWriteLimit {
		k.Cgroup = true
	}
	if k.Governed && k.Steer == LeverDirtyLimit {
		k.DirtyLimit = true
	}
	if k.Governed && k.Steer == LeverWBT {
		k.WBT = true
	}
	if k.Governed && k.Steer == LeverRequestSize {
		k.RequestSize = true
	}
	if k.PerObjectFsync && o.Sysroot == "" {
		return nil, fmt.Errorf("I/O policy %s paces writes in the OS repository: a sysroot is needed", name)
	}
	if _, err := o.IOPrio.value(); err != nil {
		return nil, fmt.Errorf("I/O policy %s: %w", name, err)
	}
	if o.MinWriteLimit > o.WriteLimit {
		return nil, fmt.Errorf("I/O policy %s: min write limit %d above write limit %d", name, o.MinWriteLimit, o.WriteLimit)
	}
	if o.MinDirtyLimit > o.DirtyLimit || o.DirtyLimit > o.MaxDirtyLimit {
		return nil, fmt.Errorf("I/O policy %s: dirty limit %d outside [%d, %d]", name, o.DirtyLimit, o.MinDirtyLimit, o.MaxDirtyLimit)
	}
	if k.Governed {
		rule := o.targetRule()
		if err := rule.Validate(); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", name, err)
		}
		if err := lawFor(o, k.Steer, rule.Resolve(0, false)).Validate(); err != nil {
			return nil, fmt.Errorf("I/O policy %s: %w", name, err)
		}
	}
	return &Policy{name: name, knobs: k, opts: o}, nil
}

// Name is the policy's name.
func (p *Policy) Name() string { return p.name }

// Knobs tells what the policy turns on.
func (p *Policy) Knobs() Knobs { return p.knobs }

// Options are the options it was parsed with, defaults filled in.
func (p *Policy) Options() Options { return p.opts }

// targetRule is how the governor picks its target when a stage starts:
// etcd's WAL fsync p99 (or, without etcd, the disk's mean write latency),
// absolute when set, else relative to the idle latency it measures.
func (o Options) targetRule() governor.TargetRule {
	if o.EtcdMetricsURL == "" {
		return governor.TargetRule{Absolute: o.DiskTarget, Multiple: o.TargetIdleMultiple, Ceiling: DefaultDiskCeiling, Resolution: diskResolution}
	}
	return governor.TargetRule{Absolute: o.TargetP99, Multiple: o.TargetIdleMultiple, Ceiling: o.TargetCeiling, Resolution: etcdResolution}
}

// etcdResolution is the upper bound of the first bucket of etcd's WAL fsync
// histogram (go.etcd.io/etcd/server/v3 v3.6.16 storage/wal/metrics.go:
// ExponentialBuckets(0.001, 2, 14)): every fsync under it is counted alike. diskResolution is
// /proc/diskstats' unit, the millisecond.
const (
	etcdResolution = time.Millisecond
	diskResolution = time.Millisecond
)

// lawFor is the governor's law for the steered lever. Every steerable
// lever gives staging more throughput as its value grows (a higher write
// limit, more dirty memory, a laxer wbt target, larger requests), which is
// the direction the law assumes.
func lawFor(o Options, steer string, target time.Duration) governor.Law {
	lo, hi, _ := steerRange(o, steer)
	return governor.DefaultLaw(target, lo, hi)
}

// steerRange is the governor's floor, ceiling and start for a lever, in the
// lever's own unit (bytes/s, bytes, microseconds, KiB).
func steerRange(o Options, steer string) (lo, hi, start float64) {
	switch steer {
	case LeverDirtyLimit:
		return float64(o.MinDirtyLimit), float64(o.MaxDirtyLimit), float64(o.DirtyLimit)
	case LeverWBT:
		us := float64(o.WBTLatency / time.Microsecond)
		return max(us/4, 250), max(us*16, 75000), us
	case LeverRequestSize:
		kb := float64(o.RequestSizeKB)
		return max(kb/8, 16), max(kb*8, 4096), kb
	}
	return float64(o.MinWriteLimit), float64(o.WriteLimit), float64(o.StartWriteLimit)
}
