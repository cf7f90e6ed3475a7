package daemon

import (
	"context"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	opv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// Cluster is the daemon's view of the apiserver (pkg/daemon/kube).
type Cluster interface {
	// Node reads the node from the apiserver (not from a cache).
	Node(ctx context.Context) (*corev1.Node, error)
	// SetAnnotations sets and removes node annotations in one patch.
	SetAnnotations(ctx context.Context, set map[string]string, remove []string) error
	// MachineConfig returns the named MachineConfig, nil when it does not exist.
	MachineConfig(ctx context.Context, name string) (*mcfgv1.MachineConfig, error)
	// MachineConfiguration returns the MachineConfiguration "cluster"
	// (operator.openshift.io/v1), nil when there is none.
	MachineConfiguration(ctx context.Context) (*opv1.MachineConfiguration, error)
	// ReportConditions updates the node's MachineConfigNode status.
	ReportConditions(ctx context.Context, node *corev1.Node, conds []metav1.Condition) error
	// Event records an event about the node in namespace (eventType:
	// Normal or Warning).
	Event(ctx context.Context, namespace, eventType, reason, message string) error
}

// StageProgress is a staging progress report.
type StageProgress struct {
	Percent int
	Message string
}

// StageResult describes a finished stage.
type StageResult struct {
	Checksum string
	// BytesWritten to the sysroot (0 when unknown).
	BytesWritten int64
	// IO describes the I/O policy the stage ran under, with the governor's
	// target when one steered (e.g. "adaptive, governor target 2ms (2x
	// idle 1ms)").
	IO string
	// Prepared is how long the policy took before the stage wrote: the
	// host lock (another stage on this host) and the idle measurement.
	Prepared time.Duration
}

// OS is rpm-ostree as the daemon uses it (pkg/daemon/osupdate wraps pkg/ostree).
type OS interface {
	Status(ctx context.Context) (OSState, error)
	// Stage pulls image and stages it finalization-locked, under the I/O
	// policy named ioPolicy ("" for the daemon's default). progress may be
	// called while it runs.
	Stage(ctx context.Context, image, ioPolicy string, progress func(StageProgress)) (StageResult, error)
	// Finalize unlocks the staged deployment checksum and reboots into it.
	Finalize(ctx context.Context, checksum string) error
	// CleanupStaged discards a staged deployment.
	CleanupStaged(ctx context.Context) error
	// SetKernelArgs changes the kernel arguments of the pending deployment
	// (appends add, deletes del if present; not idempotent).
	SetKernelArgs(ctx context.Context, add, del []string) error
	// KernelArgs returns the kernel arguments of the pending deployment
	// (the staged one, else the booted one).
	KernelArgs(ctx context.Context) ([]string, error)
}

// Host performs host actions (pkg/daemon/host).
type Host interface {
	StopKubelet(ctx context.Context) error
	Reboot(ctx context.Context, reason string) error
	// ReloadUnit and RestartUnit reload or restart a systemd unit and wait
	// for the job; DaemonReload is systemctl daemon-reload. They carry out
	// the node disruption policy actions of a rebootless update.
	ReloadUnit(ctx context.Context, unit string) error
	RestartUnit(ctx context.Context, unit string) error
	DaemonReload(ctx context.Context) error
}

// Hook is called before each step the daemon performs (point is the
// action kind) and at a few points inside steps ("WriteFiles.mid"). Tests
// use it to crash the daemon at every transition; nil in production.
type Hook func(ctx context.Context, point string) error

// Options configure a Daemon.
type Options struct {
	NodeName string
	// Root prefixes every path the daemon writes ("/" on a real node).
	Root string
	// BootIDFile identifies the running boot (/proc/sys/kernel/random/boot_id).
	BootIDFile string
	// CmdlineFile holds the running kernel's command line (/proc/cmdline on
	// a node); empty: kernel arguments are not checked.
	CmdlineFile string
	Cluster     Cluster
	OS          OS
	Host        Host
	Metrics     *metrics.Daemon
	Hook        Hook
	// Wake signals that the node may have changed (a watch); Resync is the
	// longest the daemon waits without a signal.
	Wake   <-chan struct{}
	Resync time.Duration
	// MaxBackoff caps the wait after a failed step.
	MaxBackoff time.Duration
	// RebootWait is how long the daemon waits for the machine to go down
	// after asking for a reboot before it observes (and asks) again.
	RebootWait time.Duration
	// Order is when the OS is staged: OrderStaged (default, tandem) or
	// OrderStock (after the drain, as a stock MCO does; a benchmark baseline).
	Order UpdateOrder
	// Extensions provides the repository of a config's extensions image to
	// rpm-ostree (kernelType and extensions, layering.go); nil: configs
	// that layer packages fail.
	Extensions ExtensionsRepo
}

// Daemon is the machine-config-daemon's loop: observe, decide with Next,
// perform one action, repeat. It keeps no decision in memory.
type Daemon struct {
	opts   Options
	store  Store
	writer *files.Writer
	// validated is "<config>@<boot id>" once the files and units on disk
	// matched that config in that boot; the comparison is repeated on every
	// observation until they do, and again in a new process or boot. It is
	// an observation kept to save I/O, not a decision: Next sees the result.
	validated string
	// lastWaitHooked is the last Wait reason the test hook saw.
	lastWaitHooked string
	// pending are MachineConfigNode conditions not written yet (see
	// conditions): reports for people, never read back by a decision.
	pending pendingConditions
	// waitingSince is when the daemon last began to wait: the first Wait
	// after an action. Wake-ups that end in another Wait do not move it.
	waitingSince time.Time
}

// New returns a Daemon.
func New(o Options) (*Daemon, error) {
	if o.NodeName == "" || o.Cluster == nil || o.OS == nil || o.Host == nil {
		return nil, fmt.Errorf("daemon: node name, cluster, OS and host are required")
	}
	if o.Root == "" {
		o.Root = "/"
	}
	if o.BootIDFile == "" {
		o.BootIDFile = "/proc/sys/kernel/random/boot_id"
	}
	if o.Metrics == nil {
		o.Metrics = metrics.NewDaemon(nil)
	}
	if o.Resync <= 0 {
		o.Resync = time.Minute
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	if o.RebootWait <= 0 {
		o.RebootWait = 2 * time.Minute
	}
	order, err := ParseUpdateOrder(string(o.Order))
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	o.Order = order
	st := NewStore(o.Root)
	return &Daemon{opts: o, store: st, writer: &files.Writer{Root: o.Root, BackupDir: st.BackupDir()}}, nil
}

// setWaiting records since when the daemon waits (zero: it acts).
func (d *Daemon) setWaiting(since time.Time) {
	d.waitingSince = since
	if since.IsZero() {
		d.opts.Metrics.WaitingSince.Set(0)
		return
	}
	d.opts.Metrics.WaitingSince.Set(float64(since.Unix()))
}

// Run loops until ctx ends.
func (d *Daemon) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithValues("node", d.opts.NodeName)
	ctx = klog.NewContext(ctx, log)
	// A kill -9 may have left a temporary file of the record or timeline.
	if err := files.RemoveStaleTemps(d.store.Dir); err != nil {
		log.Error(err, "removing stale temporary files", "dir", d.store.Dir)
	}
	d.reportAtStart(ctx)
	backoff := time.Duration(0)
	lastWait := ""
	for {
		if err := ctx.Err(); err != nil {
			d.flushOnExit(ctx)
			return nil
		}
		a, err := d.Step(ctx)
		backoff = nextBackoff(backoff, a.Kind, err != nil, d.opts.MaxBackoff)
		switch {
		case err != nil:
			log.Error(err, "step failed", "action", a.String(), "retryIn", backoff)
			d.flushConditions(ctx)
			d.setWaiting(time.Time{})
			d.sleep(ctx, backoff, false)
		case a.Kind == ActWait:
			if d.waitingSince.IsZero() {
				d.setWaiting(time.Now())
			}
			if a.Reason != lastWait {
				log.Info("waiting", "reason", a.Reason)
				lastWait = a.Reason
			}
			d.waitAndReport(ctx)
		case a.Kind == ActFinalize || a.Kind == ActReboot || a.Kind == ActServeRebootRequest:
			lastWait = ""
			d.setWaiting(time.Time{})
			log.Info("reboot requested; waiting for the machine to go down", "action", a.String())
			d.sleep(ctx, d.opts.RebootWait, false)
		default:
			lastWait = ""
			d.setWaiting(time.Time{})
		}
	}
}

// nextBackoff is the pause before the step after one of kind that failed
// or not. A failure doubles it (200 ms first, ceiling at most); only a wait
// clears it. A step that succeeds in between (state=Working before the
// failing stage, say) keeps it, or a failing step would be retried every
// 200 ms forever.
func nextBackoff(prev time.Duration, kind ActionKind, failed bool, ceiling time.Duration) time.Duration {
	switch {
	case failed:
		return min(max(2*prev, 200*time.Millisecond), ceiling)
	case kind == ActWait:
		return 0
	default:
		return prev
	}
}

// sleep waits dur, or less when ctx ends or (wakeable) the node changes;
// it reports whether it slept the whole time.
func (d *Daemon) sleep(ctx context.Context, dur time.Duration, wakeable bool) bool {
	t := time.NewTimer(dur)
	defer t.Stop()
	var wake <-chan struct{}
	if wakeable {
		wake = d.opts.Wake
	}
	select {
	case <-ctx.Done():
	case <-t.C:
		return true
	case <-wake:
	}
	return false
}

// reportDelay is how long the daemon must have been waiting before the
// queued conditions are written: a handshake answered within it (an
// uncordon, a drain of a node without pods, a grant to a staged node) does
// not cost a write of its own; its conditions go with the next ones. It
// counts from the start of the wait, not from the oldest condition: after a
// long step (a stage) a grant that comes at once still shares the write. At
// 2 s a busy apiserver made most handshakes outlast it (make bench-scale).
const reportDelay = 5 * time.Second

// waitAndReport waits for the node to change (at most Resync), writing the
// queued conditions once the daemon has waited reportDelay since its last
// action (so frequent wake-ups cannot hold them back).
func (d *Daemon) waitAndReport(ctx context.Context) {
	if len(d.pending.conds) == 0 {
		d.sleep(ctx, d.opts.Resync, true)
		return
	}
	left := reportDelay - time.Since(d.waitingSince)
	if left <= 0 {
		d.flushConditions(ctx)
		d.sleep(ctx, d.opts.Resync, true)
		return
	}
	if d.opts.Resync <= left {
		// The resync comes first; the next turn's wait still counts from
		// waitingSince.
		d.sleep(ctx, d.opts.Resync, true)
		return
	}
	if !d.sleep(ctx, left, true) {
		return // woken (or stopping): carry on, the conditions wait
	}
	d.flushConditions(ctx)
	d.sleep(ctx, d.opts.Resync-left, true)
}

// Step observes, decides and performs one action. A failed action is
// reported as Degraded with its error as the reason.
func (d *Daemon) Step(ctx context.Context) (Action, error) {
	// A wake-up signalled before this observation is answered by it (the
	// node is read after it, from the apiserver): most are the echo of the
	// daemon's own last write, and each cost another turn and read.
	if d.opts.Wake != nil {
		select {
		case <-d.opts.Wake:
		default:
		}
	}
	ob, err := d.observe(ctx)
	if err != nil {
		return Action{Kind: ActWait}, fmt.Errorf("observing: %w", err)
	}
	a := Next(ob.Observed)
	if a.Kind == ActWait {
		if d.opts.Hook != nil && a.Reason != d.lastWaitHooked {
			// Crash tests crash the daemon while it waits, too.
			d.lastWaitHooked = a.Reason
			if err := d.opts.Hook(ctx, string(ActWait)); err != nil {
				return a, fmt.Errorf("hook: %w", err)
			}
		}
		return a, nil
	}
	d.lastWaitHooked = ""
	log := klog.FromContext(ctx)
	log.Info("step", "action", a.String())
	if d.opts.Hook != nil {
		if err := d.opts.Hook(ctx, string(a.Kind)); err != nil {
			return a, fmt.Errorf("hook: %w", err)
		}
	}
	d.opts.Metrics.Actions.WithLabelValues(string(a.Kind)).Inc()
	d.recordEvents(ctx, EventsBefore(a, d.opts.NodeName))
	if err := d.perform(ctx, ob, a); err != nil {
		d.opts.Metrics.StepFailed(string(a.Kind), err)
		if a.Kind == ActStage && StageFailureHarmless(ob.Observed) {
			d.reportStageFailure(ctx, ob, a, err)
		} else {
			d.reportFailure(ctx, ob, a, err)
		}
		return a, err
	}
	d.recordEvents(ctx, EventsAfter(a))
	if settles(a.Kind) {
		// The state people wait for (Done, Degraded, Unreconcilable)
		// shows on the MachineConfigNode at once, with the burst queued
		// before it: the conditions live only in memory, and no later
		// step would bring them back after a crash.
		d.flushConditions(ctx)
	}
	return a, nil
}

// recordEvents records the node events of a step. A failed write is
// logged, not the step's failure: the MCO's recorder drops events too.
func (d *Daemon) recordEvents(ctx context.Context, evs []NodeEvent) {
	for _, e := range evs {
		if err := d.opts.Cluster.Event(ctx, e.Namespace, e.Type, e.Reason, e.Message); err != nil {
			klog.FromContext(ctx).Error(err, "recording a node event", "reason", e.Reason)
		}
	}
}

// settles tells whether an action ends a burst: it reports the state the
// node stays in until something changes.
func settles(k ActionKind) bool {
	switch k {
	case ActSetDone, ActReportDegraded, ActReportUnreconcilable, ActLoadInitialAnnotations, ActClearStageFailure:
		return true
	}
	return false
}

// reportFailure shows a failed step on the node (state=Degraded, reason)
// and its MachineConfigNode, best effort.
func (d *Daemon) reportFailure(ctx context.Context, ob *observation, a Action, err error) {
	reason := fmt.Sprintf("%s failed: %v", a.Kind, err)
	if len(reason) > 1024 {
		reason = reason[:1024] + "..."
	}
	log := klog.FromContext(ctx)
	if perr := d.setState(ctx, "Degraded", reason); perr != nil {
		log.Error(perr, "reporting Degraded")
	}
	d.conditions(ctx, ConditionsAfter(Action{Kind: ActReportDegraded, Reason: reason}, ""))
	var fallback *corev1.Node
	if ob != nil {
		fallback = ob.node
	}
	d.flushConditionsWith(ctx, fallback)
}

// durableWriteHooks are the test hook's points inside each path's durable
// replacement of a WriteFiles: "WriteFiles.written" (the new content
// written, not yet fsynced) and "WriteFiles.renamed" (renamed over the
// path, the directory not yet fsynced), one occurrence per path. Every
// path, not only the first: a crash between two config files leaves the
// node between two configs, and the crash suite judges each file there.
func (d *Daemon) durableWriteHooks(ctx context.Context) (written, renamed func(string) error) {
	written = func(string) error { return d.hookAt(ctx, "WriteFiles.written") }
	renamed = func(string) error { return d.hookAt(ctx, "WriteFiles.renamed") }
	return written, renamed
}

// hookAt calls the test hook at a point inside a step.
func (d *Daemon) hookAt(ctx context.Context, point string) error {
	if d.opts.Hook == nil {
		return nil
	}
	if err := d.opts.Hook(ctx, point); err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	return nil
}
