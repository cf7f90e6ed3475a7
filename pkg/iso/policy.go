// Package iso isolates OS staging I/O from etcd and other latency-sensitive
// writers on the same disk. A Policy names a combination of knobs (paced
// writes, an I/O class, the bfq scheduler, a cgroup write limit, an adaptive
// governor); Prepare applies the host-wide ones and returns a Session whose
// Hook puts the staging process under the per-process ones. Close undoes
// everything. Which policy is the default was decided by make bench-io (see
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
	PolicyAdaptive       = "adaptive"
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
	// Governed makes the write limit adaptive (implies Cgroup).
	Governed bool
}

// knobsOf is the table of policies. The I/O class and the cgroup limit act
// only on I/O the staging process submits itself; on cgroup v1 buffered
// writeback is submitted by kernel flusher threads, so every policy past
// "none" paces writes with per-object fsync.
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
	case PolicyAdaptive:
		return Knobs{PerObjectFsync: true, Cgroup: true, Governed: true}, true
	}
	return Knobs{}, false
}

// PolicyNames lists the valid names, in order of increasing machinery.
func PolicyNames() []string {
	return []string{PolicyNone, PolicyPerObjectFsync, PolicyIdle, PolicyIdleBFQ, PolicyCgroupThrottle, PolicyAdaptive}
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
	// TargetP99 is the governor's target for etcd's WAL fsync p99.
	TargetP99 time.Duration
	// DiskTarget is the governor's target mean write latency when it
	// reads /proc/diskstats instead of etcd.
	DiskTarget time.Duration
	// SampleInterval is how often the governor samples.
	SampleInterval time.Duration
	// OnGovernorStep, when set, sees each governor step.
	OnGovernorStep func(governor.Sample, governor.State)
}

// Defaults for the zero fields of Options.
const (
	DefaultCgroupParent   = "tandem"
	DefaultCgroupName     = "staging"
	DefaultWriteLimit     = 128 << 20
	DefaultMinWriteLimit  = 16 << 20
	DefaultWeight         = 10
	DefaultTargetP99      = 10 * time.Millisecond
	DefaultDiskTarget     = 5 * time.Millisecond
	DefaultSampleInterval = time.Second
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
	if o.TargetP99 == 0 {
		o.TargetP99 = DefaultTargetP99
	}
	if o.DiskTarget == 0 {
		o.DiskTarget = DefaultDiskTarget
	}
	if o.SampleInterval == 0 {
		o.SampleInterval = DefaultSampleInterval
	}
	return o
}

// Policy is a named set of knobs bound to a host's options.
type Policy struct {
	name  string
	knobs Knobs
	opts  Options
}

// ParsePolicy returns the policy called name ("" means the default).
func ParsePolicy(name string, o Options) (*Policy, error) {
	if name == "" {
		name = DefaultPolicyName()
	}
	o = o.withDefaults()
	k, ok := knobsOf(name, o.IOPrio)
	if !ok {
		return nil, fmt.Errorf("unknown I/O policy %q: valid policies are %s", name, strings.Join(PolicyNames(), ", "))
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
	if k.Governed {
		if err := lawFor(o).Validate(); err != nil {
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

func lawFor(o Options) governor.Law {
	target := o.TargetP99
	if o.EtcdMetricsURL == "" {
		target = o.DiskTarget
	}
	return governor.DefaultLaw(target, float64(o.MinWriteLimit), float64(o.WriteLimit))
}
