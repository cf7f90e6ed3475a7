// Package osupdate is the daemon's adapter to rpm-ostree (pkg/ostree): it
// reports deployments as the decision sees them and stages under an I/O
// policy (pkg/iso).
package osupdate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/iso"
	"github.com/tandem-mco/tandem/pkg/ostree"
)

// Options configure the adapter.
type Options struct {
	// Binary is the rpm-ostree program; Env is added to its environment.
	Binary string
	Env    []string
	// DefaultPolicy stages when the node names no I/O policy.
	DefaultPolicy string
	// PolicyOptions bind policies to this host (sysroot, unit, limits).
	PolicyOptions iso.Options
	// HostRun is the host's /run as the daemon sees it (ostree's staged
	// deployment lives there); default /run.
	HostRun string
	// Root is the host's root as the daemon sees it: the pull secret is
	// read there and linked for rpm-ostree before every pull.
	Root string
	// DaemonPIDFile, on a host without systemd, names the pid file of
	// rpm-ostree's transaction daemon, the process that writes a stage: the
	// I/O policy's cgroup and I/O class are applied to it (with a systemd
	// unit, PolicyOptions.Unit, the unit's properties are used instead).
	DaemonPIDFile string
}

// Adapter implements daemon.OS.
type Adapter struct {
	o   Options
	rpm *ostree.Client // knows the rpm-ostree release once read
}

var _ daemon.OS = (*Adapter)(nil)

// New returns an Adapter.
func New(o Options) *Adapter {
	return &Adapter{o: o, rpm: ostree.NewClient(ostree.Options{
		Binary: o.Binary, Env: o.Env, ClientID: constants.RPMOstreeClientID, HostRun: o.HostRun, Root: o.Root,
	})}
}

func (a *Adapter) client() *ostree.Client { return a.rpm }

// Status reports the booted and the staged deployment.
func (a *Adapter) Status(ctx context.Context) (daemon.OSState, error) {
	st, err := a.client().Status(ctx)
	if err != nil {
		return daemon.OSState{}, err
	}
	b, err := st.Booted()
	if err != nil {
		return daemon.OSState{}, err
	}
	out := daemon.OSState{Booted: view(b)}
	if s := st.StagedDeployment(); s != nil {
		v := view(s)
		out.Staged = &v
	}
	if r := st.Rollback(); r != nil {
		v := view(r)
		out.Rollback = &v
	}
	return out, nil
}

// view is a deployment as the decision compares it with a MachineConfig:
// the image it really carries (pkg/ostree Deployment.Image: transport
// stripped like the MCO, containers-storage included, pinned to the
// trusted digest; "" when unknown).
func view(d *ostree.Deployment) daemon.Deployment {
	v := daemon.Deployment{
		Checksum:           d.GetBaseChecksum(),
		Image:              d.Image(),
		FinalizationLocked: d.FinalizationLocked,
		Packages:           d.RequestedPackages,
		BaseRemovals:       d.RequestedBaseRemovals,
		InstalledPackages:  d.Packages,
	}
	for _, r := range d.BaseRemovals {
		v.RemovedPackages = append(v.RemovedPackages, r.Name)
	}
	return v
}

var _ daemon.PackageLayerer = (*Adapter)(nil)

// LayerPackages layers ch onto the deployment that boots next, keeping it
// finalization-locked (pkg/ostree Client.Layer).
func (a *Adapter) LayerPackages(ctx context.Context, ch daemon.PackageChange) error {
	return a.client().Layer(ctx, ostree.PackageChange{Install: ch.Install, Uninstall: ch.Uninstall, Remove: ch.Remove, Reset: ch.Reset})
}

// Stage stages image finalization-locked under the I/O policy. The bytes
// written are those of the process that writes: rpm-ostree's transaction
// daemon when DaemonPIDFile names it (/proc/<pid>/io), else the daemon's
// finished children (with a systemd rpm-ostreed that reads ~0).
func (a *Adapter) Stage(ctx context.Context, image, policy string, progress func(daemon.StageProgress)) (daemon.StageResult, error) {
	if policy == "" {
		policy = a.o.DefaultPolicy
	}
	pol, err := iso.ParsePolicy(policy, a.o.PolicyOptions)
	if err != nil {
		return daemon.StageResult{}, err
	}
	begin := time.Now()
	sess, err := pol.Prepare(ctx)
	if err != nil {
		return daemon.StageResult{}, err
	}
	io := pol.Name()
	if gt := sess.GovernorTarget(); gt.Target > 0 {
		io += ", governor target " + gt.String()
	}
	if d := sess.Describe(); d != "" {
		// What this host let the policy do: a lever it lacks is named
		// here, in the node's Staged condition, not a failed stage.
		io += ", " + d
	}
	prepared := time.Since(begin)
	defer func() {
		if cerr := sess.Close(context.WithoutCancel(ctx)); cerr != nil {
			klog.FromContext(ctx).Error(cerr, "closing I/O policy session", "policy", policy)
		}
	}()
	written := childWriteBytes
	if a.o.DaemonPIDFile != "" {
		pid, err := readPID(a.o.DaemonPIDFile)
		if err != nil {
			return daemon.StageResult{}, fmt.Errorf("staging under I/O policy %s: %w", pol.Name(), err)
		}
		restore, err := sess.ApplyToProcess(pid)
		if err != nil {
			return daemon.StageResult{}, fmt.Errorf("applying I/O policy %s to rpm-ostree's transaction daemon (pid %d): %w", pol.Name(), pid, err)
		}
		defer func() {
			if err := restore(); err != nil {
				klog.FromContext(ctx).Error(err, "restoring rpm-ostree's transaction daemon after staging", "pid", pid)
			}
		}()
		written = func() int64 { return processWriteBytes(pid) }
	} else if sess.TargetsProcess() {
		return daemon.StageResult{}, fmt.Errorf("I/O policy %s limits the process that writes the stage, but neither a systemd unit nor the transaction daemon's pid file is configured", pol.Name())
	}
	before := written()
	if progress != nil {
		progress(daemon.StageProgress{Percent: 0, Message: "staging " + image + " (I/O policy " + pol.Name() + ")"})
	}
	var onProgress func(ostree.StageProgress)
	if progress != nil {
		onProgress = func(p ostree.StageProgress) { progress(percent(p)) }
	}
	d, err := a.client().With(sess.Hook(), onProgress).Stage(ctx, image)
	if errors.Is(err, ostree.ErrAlreadyBooted) {
		err = nil // nothing to stage: the booted deployment carries the image
	}
	if err != nil {
		return daemon.StageResult{}, err
	}
	if progress != nil {
		progress(daemon.StageProgress{Percent: 100, Message: "staged " + image})
	}
	if o, ok := sess.GovernorOutcome(); ok {
		// Whether the target held is part of what the stage did: a target
		// missed at the lever's floor tells the user to pick another one
		// (docs/benchmarks.md, the knob).
		io += ", " + o.String()
	}
	return daemon.StageResult{Checksum: d.GetBaseChecksum(), BytesWritten: written() - before, IO: io, Prepared: prepared}, nil
}

// Finalize unlocks the staged deployment (rpm-ostree then reboots).
func (a *Adapter) Finalize(ctx context.Context, checksum string) error {
	return a.client().Finalize(ctx, checksum)
}

// CleanupStaged discards the staged deployment.
func (a *Adapter) CleanupStaged(ctx context.Context) error {
	return a.client().CleanupPending(ctx)
}

// SetKernelArgs edits the kernel arguments of the pending deployment.
func (a *Adapter) SetKernelArgs(ctx context.Context, add, del []string) error {
	return a.client().SetKernelArgs(ctx, add, del)
}

// LinkPullSecret hands rpm-ostree the cluster's pull secret (pkg/ostree
// Client.LinkPullSecret); the daemon calls it when it starts.
func (a *Adapter) LinkPullSecret(ctx context.Context) error { return a.client().LinkPullSecret(ctx) }

// KernelArgs returns the pending deployment's kernel arguments.
func (a *Adapter) KernelArgs(ctx context.Context) ([]string, error) {
	return a.client().KernelArgs(ctx)
}

// percent turns rpm-ostree's pull progress into a percentage (bytes when
// known, else layers), below 100 until Stage returns.
func percent(p ostree.StageProgress) daemon.StageProgress {
	pc := 0
	switch {
	case p.BytesTotal > 0:
		pc = int(p.BytesDone * 100 / p.BytesTotal)
	case p.LayersTotal > 0:
		pc = p.LayersDone * 100 / p.LayersTotal
	}
	return daemon.StageProgress{Percent: min(pc, 99), Message: p.Line}
}

// childWriteBytes returns the bytes written by the daemon's finished child
// processes (getrusage RUSAGE_CHILDREN; Linux counts ru_oublock in
// 512-byte units of write_bytes accounting).
func childWriteBytes() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return ru.Oublock * 512
}

func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("rpm-ostree transaction daemon: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("rpm-ostree transaction daemon pid file %s: %q", path, b)
	}
	return pid, nil
}

// processWriteBytes is the write_bytes of /proc/<pid>/io: what the process
// caused to be written to storage (0 when unreadable).
func processWriteBytes(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
