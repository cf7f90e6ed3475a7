package scale

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

// simOS is rpm-ostree as the daemon sees it (daemon.OS), kept in memory: a
// booted deployment and at most one staged one. Staging takes stageTime and
// reports progress as it goes; nothing is pulled or written. The contract
// it keeps is the one test/osdouble keeps on disk (pinned there to the
// rpm-ostree releases): a staged deployment is finalization-locked until
// finalize-deployment names its checksum, a reboot applies an unlocked
// staged deployment and drops a locked one (the lock and the staged state
// live in /run).
type simOS struct {
	stageTime time.Duration
	reboot    func() // asks the node to reboot (finalize-deployment does)

	mu     sync.Mutex
	booted daemon.Deployment
	staged *daemon.Deployment
	stages int // completed stages, for the report
}

func newSimOS(image string, stageTime time.Duration, reboot func()) *simOS {
	return &simOS{stageTime: stageTime, reboot: reboot, booted: deploymentOf(image)}
}

// deploymentOf is the deployment an image stages as: its checksum is
// derived from the reference, so the same image always stages the same.
func deploymentOf(image string) daemon.Deployment {
	sum := sha256.Sum256([]byte(image))
	return daemon.Deployment{Checksum: hex.EncodeToString(sum[:]), Image: daemon.NormalizeImage(image)}
}

func (o *simOS) Status(context.Context) (daemon.OSState, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := daemon.OSState{Booted: o.booted}
	if o.staged != nil {
		s := *o.staged
		st.Staged = &s
	}
	return st, nil
}

// Stage takes stageTime, calling progress about every 250 ms as rpm-ostree's
// pull reports layers; the daemon decides how often that reaches the API.
func (o *simOS) Stage(ctx context.Context, image, _ string, progress func(daemon.StageProgress)) (daemon.StageResult, error) {
	start := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(o.stageTime)
	defer deadline.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			return daemon.StageResult{}, fmt.Errorf("staging %s: %w", image, ctx.Err())
		case <-tick.C:
			if progress != nil && o.stageTime > 0 {
				pct := int(100 * time.Since(start) / o.stageTime)
				progress(daemon.StageProgress{Percent: min(pct, 99), Message: "pulling layers"})
			}
		case <-deadline.C:
			break wait
		}
	}
	d := deploymentOf(image)
	d.FinalizationLocked = true
	o.mu.Lock()
	o.staged = &d
	o.stages++
	o.mu.Unlock()
	if progress != nil {
		progress(daemon.StageProgress{Percent: 100, Message: "staged"})
	}
	return daemon.StageResult{Checksum: d.Checksum}, nil
}

// Finalize unlocks the staged deployment it names and reboots, as
// `rpm-ostree finalize-deployment` does.
func (o *simOS) Finalize(_ context.Context, checksum string) error {
	o.mu.Lock()
	if o.staged == nil || o.staged.Checksum != checksum {
		o.mu.Unlock()
		return fmt.Errorf("finalize-deployment %s: no such staged deployment", checksum)
	}
	o.staged.FinalizationLocked = false
	o.mu.Unlock()
	o.reboot()
	return nil
}

func (o *simOS) CleanupStaged(context.Context) error {
	o.mu.Lock()
	o.staged = nil
	o.mu.Unlock()
	return nil
}

// SetKernelArgs is not simulated: the bench's configs carry none, and a
// call means the bench no longer measures what it says.
func (o *simOS) SetKernelArgs(_ context.Context, add, del []string) error {
	return fmt.Errorf("the scale simulator does not simulate kernel arguments (append %v, delete %v)", add, del)
}

// KernelArgs is not simulated either.
func (o *simOS) KernelArgs(context.Context) ([]string, error) {
	return nil, fmt.Errorf("the scale simulator does not simulate kernel arguments")
}

// boot is the machine coming up again: an unlocked staged deployment is
// booted, a locked one is gone with /run.
func (o *simOS) boot() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.staged != nil && !o.staged.FinalizationLocked {
		o.booted = *o.staged
	}
	o.staged = nil
}

func (o *simOS) bootedImage() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.booted.Image
}
