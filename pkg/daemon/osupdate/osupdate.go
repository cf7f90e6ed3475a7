// Package osupdate is the daemon's adapter to rpm-ostree (pkg/ostree): it
// reports deployments as the decision sees them and stages under an I/O
// policy (pkg/iso).
package osupdate

import (
	"context"
	"errors"
	"os/exec"
	"syscall"

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
}

// Adapter implements daemon.OS.
type Adapter struct {
	o Options
}

var _ daemon.OS = (*Adapter)(nil)

// New returns an Adapter.
func New(o Options) *Adapter { return &Adapter{o: o} }

func (a *Adapter) client(hook func(*exec.Cmd) (func(int) error, error), progress func(ostree.StageProgress)) *ostree.Client {
	return ostree.NewClient(ostree.Options{
		Binary: a.o.Binary, Env: a.o.Env, ClientID: constants.RPMOstreeClientID,
		StartHook: hook, OnProgress: progress,
	})
}

// Status reports the booted and the staged deployment.
func (a *Adapter) Status(ctx context.Context) (daemon.OSState, error) {
	st, err := a.client(nil, nil).Status(ctx)
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

func view(d *ostree.Deployment) daemon.Deployment {
	return daemon.Deployment{
		Checksum:           d.GetBaseChecksum(),
		Image:              daemon.NormalizeImage(d.ContainerImageReference),
		FinalizationLocked: d.FinalizationLocked,
	}
}

// Stage stages image finalization-locked under the I/O policy. The bytes
// written are those the rpm-ostree child processes wrote; with a real
// rpm-ostree the writer is the rpm-ostreed service and they read ~0.
func (a *Adapter) Stage(ctx context.Context, image, policy string, progress func(daemon.StageProgress)) (daemon.StageResult, error) {
	if policy == "" {
		policy = a.o.DefaultPolicy
	}
	pol, err := iso.ParsePolicy(policy, a.o.PolicyOptions)
	if err != nil {
		return daemon.StageResult{}, err
	}
	sess, err := pol.Prepare(ctx)
	if err != nil {
		return daemon.StageResult{}, err
	}
	defer func() {
		if cerr := sess.Close(context.WithoutCancel(ctx)); cerr != nil {
			klog.FromContext(ctx).Error(cerr, "closing I/O policy session", "policy", policy)
		}
	}()
	before := childWriteBytes()
	if progress != nil {
		progress(daemon.StageProgress{Percent: 0, Message: "staging " + image + " (I/O policy " + pol.Name() + ")"})
	}
	var onProgress func(ostree.StageProgress)
	if progress != nil {
		onProgress = func(p ostree.StageProgress) { progress(percent(p)) }
	}
	d, err := a.client(sess.Hook(), onProgress).Stage(ctx, image)
	if errors.Is(err, ostree.ErrAlreadyBooted) {
		err = nil // nothing to stage: the booted deployment carries the image
	}
	if err != nil {
		return daemon.StageResult{}, err
	}
	if progress != nil {
		progress(daemon.StageProgress{Percent: 100, Message: "staged " + image})
	}
	return daemon.StageResult{Checksum: d.GetBaseChecksum(), BytesWritten: childWriteBytes() - before}, nil
}

// Finalize unlocks the staged deployment (rpm-ostree then reboots).
func (a *Adapter) Finalize(ctx context.Context, checksum string) error {
	return a.client(nil, nil).Finalize(ctx, checksum)
}

// CleanupStaged discards the staged deployment.
func (a *Adapter) CleanupStaged(ctx context.Context) error {
	return a.client(nil, nil).CleanupPending(ctx)
}

// SetKernelArgs edits the kernel arguments of the pending deployment.
func (a *Adapter) SetKernelArgs(ctx context.Context, add, del []string) error {
	return a.client(nil, nil).SetKernelArgs(ctx, add, del)
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
