package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// stageProgressInterval spaces the stageProgress annotation writes: at a
// thousand nodes staging at once, a write a second each is a thousand
// writes a second (make bench-scale). The first comes after one interval,
// and 100% is written with stagedConfig.
const stageProgressInterval = 30 * time.Second

// perform carries out one action. Each case does one thing and records
// its progress durably before (or, when idempotent, after) changing the
// machine.
func (d *Daemon) perform(ctx context.Context, ob *observation, a Action) error {
	now := time.Now()
	m := d.opts.Metrics
	switch a.Kind {
	case ActStage:
		return d.stage(ctx, ob, a)

	case ActCleanupStaged:
		if err := d.opts.OS.CleanupStaged(ctx); err != nil {
			return err
		}
		if _, ok := ob.node.Annotations[constants.StagedConfigAnnotation]; ok {
			// Nothing is staged any more: say so, or the controller would
			// count the node as staged (e.g. after the circuit breaker
			// withdrew its stageConfig).
			if err := d.opts.Cluster.SetAnnotations(ctx, nil, []string{constants.StagedConfigAnnotation}); err != nil {
				return err
			}
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActReportStaged:
		tl := d.store.LoadTimeline()
		tl.StagedAt = now
		_ = d.store.SaveTimeline(tl)
		var remove []string
		if ob.Node.StageFailure != "" {
			// The failure and the success in one patch: no reader sees a
			// staged node that still reports its stage failing.
			remove = append(remove, constants.StageFailureAnnotation)
		}
		if err := d.opts.Cluster.SetAnnotations(ctx, map[string]string{
			constants.StagedConfigAnnotation:  a.Config,
			constants.StageProgressAnnotation: a.Config + " 100%",
		}, remove); err != nil {
			return err
		}
		if len(remove) > 0 {
			d.stageRecovered(ctx, ob, a.Config+" is staged")
		}
		return nil

	case ActClearStageFailure:
		if err := d.opts.Cluster.SetAnnotations(ctx, nil, []string{constants.StageFailureAnnotation}); err != nil {
			return err
		}
		d.stageRecovered(ctx, ob, a.Reason)
		return nil

	case ActReportUnreconcilable, ActReportDegraded:
		state := constants.MachineConfigDaemonStateDegraded
		if a.Kind == ActReportUnreconcilable {
			state = constants.MachineConfigDaemonStateUnreconcilable
		}
		m.Failures.WithLabelValues(state).Inc()
		for name, c := range ob.Configs {
			if !c.Found {
				m.ConfigMissing(name)
			}
		}
		klog.FromContext(ctx).Info("cannot apply config", "state", state, "reason", a.Reason)
		if err := d.setState(ctx, state, a.Reason); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActSetWorking:
		metrics.ObserveSince(m.GrantWait, d.store.LoadTimeline().StagedAt, now)
		if err := d.setState(ctx, constants.MachineConfigDaemonStateWorking, ""); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActRequestDrain:
		tl := d.store.LoadTimeline()
		request := map[string]string{constants.DesiredDrainAnnotation: constants.DrainRequest(a.Config)}
		if a.Working {
			metrics.ObserveSince(m.GrantWait, tl.StagedAt, now)
		}
		tl.DrainRequestedAt, tl.DrainedAt = now, time.Time{}
		_ = d.store.SaveTimeline(tl)
		var err error
		if a.Working {
			err = d.setStateWith(ctx, constants.MachineConfigDaemonStateWorking, "", request)
		} else {
			err = d.opts.Cluster.SetAnnotations(ctx, request, nil)
		}
		if err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActWriteFiles:
		return d.writeFiles(ctx, ob, a)

	case ActRollbackFiles:
		return d.rollback(ctx, ob, a)

	case ActLayerPackages:
		return d.layerPackages(ctx, a)

	case ActApplyKernelArgs:
		return d.applyKernelArgs(ctx, ob, a)

	case ActStopKubelet:
		if err := d.opts.Host.StopKubelet(ctx); err != nil {
			return fmt.Errorf("stopping kubelet: %w", err)
		}
		return d.advance(ob, PhaseKubeletStopped)

	case ActFinalize:
		// Record first: finalize-deployment reboots the machine.
		if err := d.advance(ob, PhaseRebooting); err != nil {
			return err
		}
		if err := d.hookAt(ctx, "Finalize.advanced"); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsBefore(a))
		d.flushConditions(ctx) // the machine goes down
		m.Reboots.WithLabelValues("update").Inc()
		if err := d.opts.OS.Finalize(ctx, a.Checksum); err != nil {
			return fmt.Errorf("finalizing deployment %s: %w", a.Checksum, err)
		}
		return nil

	case ActReboot:
		if ob.Record != nil && ob.Record.Kind == RecordUpdate {
			if err := d.advance(ob, PhaseRebooting); err != nil {
				return err
			}
			if err := d.hookAt(ctx, "Reboot.advanced"); err != nil {
				return err
			}
			m.Reboots.WithLabelValues("update").Inc()
		}
		d.conditions(ctx, ConditionsBefore(a))
		d.flushConditions(ctx) // the machine goes down
		return d.opts.Host.Reboot(ctx, a.String())

	case ActServeRebootRequest:
		r := &Record{Kind: RecordReboot, RebootToken: a.Token, BootID: ob.BootID, Phase: PhaseRebooting, UpdatedAt: now}
		if err := d.store.Save(r); err != nil {
			return err
		}
		if err := d.hookAt(ctx, "ServeRebootRequest.recorded"); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsBefore(a))
		d.flushConditions(ctx) // the machine goes down
		if err := d.opts.Host.StopKubelet(ctx); err != nil {
			return fmt.Errorf("stopping kubelet: %w", err)
		}
		m.Reboots.WithLabelValues("request").Inc()
		return d.opts.Host.Reboot(ctx, a.String())

	case ActVerify:
		return d.verify(ctx, ob, a)

	case ActRequestUncordon:
		if err := d.opts.Cluster.SetAnnotations(ctx, map[string]string{constants.DesiredDrainAnnotation: constants.UncordonRequest(a.Config)}, nil); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActAdoptOnDiskConfig:
		// The disk was checked against the config when observed: record the
		// update as verified, so it completes like any other (the uncordon
		// handshake, then currentConfig and Done), as the MCO's
		// updateConfigAndState does for the on-disk config.
		r := &Record{Kind: RecordUpdate, Config: a.Config, FromConfig: ob.Node.Current, TargetImage: ob.OS.Booted.Image,
			BootID: ob.BootID, Phase: PhaseVerified, UpdatedAt: now}
		if err := d.store.Save(r); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActSetDone:
		// The on-disk currentconfig first: it is what a stock MCD believes
		// after a restart, so it never lags the annotation.
		if err := d.storeOnDiskConfig(ob, a.Config); err != nil {
			return err
		}
		set := map[string]string{
			constants.CurrentConfigAnnotation: a.Config,
			constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
		}
		if a.Token != "" {
			set[constants.LastRebootAnnotation] = a.Token
		}
		if err := d.opts.Cluster.SetAnnotations(ctx, set, []string{constants.ReasonAnnotation}); err != nil {
			return err
		}
		if r := ob.Record; r != nil {
			metrics.ObserveSince(m.DisruptionWindow, r.CordonedAt, now)
		}
		m.UpdateCompleted(a.Config)
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActLoadInitialAnnotations:
		klog.FromContext(ctx).Info("bootstrapping: setting the initial node annotations", "file", InitialAnnotationsPath, "currentConfig", a.Config)
		if err := d.opts.Cluster.SetAnnotations(ctx, initialAnnotationsToSet(ob.InitialAnnotations), []string{constants.ReasonAnnotation}); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActFinishBootstrap:
		return d.finishBootstrap(ob, a.Config)

	case ActAckReboot:
		if err := d.opts.Cluster.SetAnnotations(ctx, map[string]string{constants.LastRebootAnnotation: a.Token}, nil); err != nil {
			return err
		}
		d.conditions(ctx, ConditionsAfter(a, ""))
		return nil

	case ActPostConfigAction:
		return d.postConfigAction(ctx, ob, a)

	case ActClearRecord:
		// Backups first: a record without backups is only ever Verified here,
		// while backups without a record would be left behind.
		if err := d.writer.DropBackups(); err != nil {
			return err
		}
		_ = d.store.SaveTimeline(Timeline{})
		// Deleting the record is the last act: the update is over.
		return d.store.Clear()
	}
	return fmt.Errorf("unknown action %q", a.Kind)
}

func (d *Daemon) setState(ctx context.Context, state, reason string) error {
	return d.setStateWith(ctx, state, reason, nil)
}

// setStateWith writes state and reason (none: the reason is removed) and
// the annotations in also, in one patch.
func (d *Daemon) setStateWith(ctx context.Context, state, reason string, also map[string]string) error {
	set := map[string]string{constants.StateAnnotation: state}
	maps.Copy(set, also)
	var remove []string
	if reason != "" {
		set[constants.ReasonAnnotation] = reason
	} else {
		remove = append(remove, constants.ReasonAnnotation)
	}
	if err := d.opts.Cluster.SetAnnotations(ctx, set, remove); err != nil {
		return err
	}
	d.opts.Metrics.StateReported(state, reason)
	return nil
}

// advance moves the record to phase p within this boot.
func (d *Daemon) advance(ob *observation, p Phase) error {
	r := ob.Record
	if r == nil {
		return fmt.Errorf("no update record to advance to %s", p)
	}
	r.Phase, r.BootID, r.UpdatedAt = p, ob.BootID, time.Now()
	return d.store.Save(r)
}

// applyKernelArgs runs the update's kernel argument edit once: `--append`
// is not idempotent, so the pending deployment's arguments are saved in the
// record first, and after a crash between the edit and the phase change the
// edit is not repeated when they have changed since (nothing else edits
// the pending deployment of an update in progress).
func (d *Daemon) applyKernelArgs(ctx context.Context, ob *observation, a Action) error {
	r := ob.Record
	if r == nil {
		return fmt.Errorf("no update record for the kernel arguments of %s", a.Config)
	}
	cur, err := d.opts.OS.KernelArgs(ctx)
	if err != nil {
		return fmt.Errorf("reading the pending deployment's kernel arguments: %w", err)
	}
	if r.KernelArgsStarted && !slices.Equal(cur, r.KernelArgsBefore) {
		klog.FromContext(ctx).Info("Kernel arguments already set before a restart", "before", r.KernelArgsBefore, "now", cur)
		return d.advance(ob, PhaseKernelArgs)
	}
	if !r.KernelArgsStarted {
		r.KernelArgsStarted, r.KernelArgsBefore = true, cur
		if err := d.store.Save(r); err != nil {
			return err
		}
	}
	if err := d.opts.OS.SetKernelArgs(ctx, a.KernelArgsAppend, a.KernelArgsDelete); err != nil {
		return fmt.Errorf("setting kernel arguments (append %v, delete %v): %w", a.KernelArgsAppend, a.KernelArgsDelete, err)
	}
	if err := d.hookAt(ctx, "ApplyKernelArgs.applied"); err != nil {
		return err
	}
	return d.advance(ob, PhaseKernelArgs)
}

// stage pulls and stages the image, reporting progress on the node.
func (d *Daemon) stage(ctx context.Context, ob *observation, a Action) error {
	d.conditions(ctx, ConditionsBefore(a))
	image := a.Image
	if pc := ob.configs[a.Config]; pc != nil && pc.mc.Spec.OSImageURL != "" {
		image = pc.mc.Spec.OSImageURL
	}
	start := time.Now()
	lastReport := start
	progress := func(p StageProgress) {
		if time.Since(lastReport) < stageProgressInterval || p.Percent >= 100 {
			return // 100% goes out with stagedConfig
		}
		lastReport = time.Now()
		val := fmt.Sprintf("%s %d%%", a.Config, p.Percent)
		if err := d.opts.Cluster.SetAnnotations(ctx, map[string]string{constants.StageProgressAnnotation: val}, nil); err != nil {
			klog.FromContext(ctx).V(2).Info("reporting stage progress", "err", err)
		}
	}
	d.opts.Metrics.StageStarted()
	var res StageResult
	err := d.withExtensions(ctx, a.ExtensionsImage, func() (err error) {
		res, err = d.opts.OS.Stage(ctx, image, ob.node.Annotations[constants.IOPolicyAnnotation], progress)
		return err
	})
	d.opts.Metrics.StageEnded(err == nil)
	if err != nil {
		// Nothing may stay staged for a failed stage.
		if cerr := d.opts.OS.CleanupStaged(ctx); cerr != nil {
			klog.FromContext(ctx).Error(cerr, "cleaning up after a failed stage")
		}
		return fmt.Errorf("staging %s for %s: %w", image, a.Config, err)
	}
	dur := time.Since(start)
	d.opts.Metrics.StageDuration.Observe(dur.Seconds())
	d.opts.Metrics.StageBytes.Add(float64(res.BytesWritten))
	d.conditions(ctx, ConditionsAfter(a, StagedDetail(res, dur)))
	return nil
}

// ignOf returns a config's parsed Ignition, an empty one for "" (no config).
func ignOf(ob *observation, name string) (*ign3types.Config, error) {
	if name == "" {
		return nil, nil
	}
	pc := ob.configs[name]
	if pc == nil || pc.ign == nil {
		return nil, fmt.Errorf("MachineConfig %s is not available", name)
	}
	return pc.ign, nil
}

// plan lists the paths to write for going from `from` to `to`. An old
// config that is gone only means its stale files are not removed.
func (d *Daemon) plan(ob *observation, from, to string) ([]files.Node, error) {
	newCfg, err := ignOf(ob, to)
	if err != nil {
		return nil, err
	}
	oldCfg, err := ignOf(ob, from)
	if err != nil {
		klog.Background().Info("old config unavailable; its files are not removed", "config", from)
		oldCfg = nil
	}
	nodes, err := files.Plan(d.opts.Root, oldCfg, newCfg, d.owners())
	if err != nil {
		return nil, err
	}
	return forUpdate(nodes), nil
}

// writeFiles backs up, records, then replaces every path of the config.
func (d *Daemon) writeFiles(ctx context.Context, ob *observation, a Action) error {
	d.conditions(ctx, ConditionsBefore(a))
	nodes, err := d.plan(ob, a.From, a.Config)
	if err != nil {
		return err
	}
	backups, err := d.writer.Backup(nodes)
	if err != nil {
		return err
	}
	tl := d.store.LoadTimeline()
	now := time.Now()
	metrics.ObserveSince(d.opts.Metrics.DrainDuration, tl.DrainRequestedAt, now)
	r := &Record{
		Kind: RecordUpdate, Config: a.Config, FromConfig: a.From,
		OSChange: a.OSChange, TargetImage: a.Image, TargetChecksum: a.Checksum,
		BootID: ob.BootID, Phase: PhaseWriting, Files: backups, RebootToken: a.Token, BootKernelArgs: ob.Cmdline,
		CordonedAt: tl.DrainRequestedAt, UpdatedAt: now,
		Rebootless: a.Rebootless, PostActions: a.PostActions,
	}
	if !a.OSChange {
		r.TargetImage = ob.OS.Booted.Image
	}
	// Write-ahead: the backups are recorded before any file changes.
	if err := d.store.Save(r); err != nil {
		return err
	}
	// The force file is spent once an update that honours it is recorded.
	if err := d.consumeForceFile(ob); err != nil {
		return err
	}
	var hookErr error
	hooks := files.Hooks{AfterEach: func(i int) {
		if i == 0 && len(nodes) > 1 && d.opts.Hook != nil && hookErr == nil {
			hookErr = d.opts.Hook(ctx, "WriteFiles.mid")
		}
	}}
	if d.opts.Hook != nil {
		hooks.Written, hooks.Renamed = d.durableWriteHooks(ctx)
	}
	err = d.writer.ApplyHooked(nodes, hooks)
	if err != nil {
		return err
	}
	if hookErr != nil {
		return hookErr
	}
	r.Phase, r.UpdatedAt = PhaseFilesWritten, time.Now()
	if err := d.store.Save(r); err != nil {
		return err
	}
	d.conditions(ctx, ConditionsAfter(a, fmt.Sprintf(" (%d paths)", len(nodes))))
	return nil
}

// rollback restores the record's backups and forgets the record.
func (d *Daemon) rollback(ctx context.Context, ob *observation, a Action) error {
	r := ob.Record
	if r == nil {
		return fmt.Errorf("no record to roll back")
	}
	klog.FromContext(ctx).Info("rolling back files", "config", r.Config, "reason", a.Reason, "paths", len(r.Files))
	if err := d.writer.Restore(r.Files); err != nil {
		return err
	}
	if err := d.store.Clear(); err != nil {
		return err
	}
	if err := d.writer.DropBackups(); err != nil {
		return err
	}
	d.conditions(ctx, ConditionsAfter(a, ""))
	return nil
}

// verify checks, after the reboot, that the node booted the config's OS
// and that its files are in place.
func (d *Daemon) verify(ctx context.Context, ob *observation, a Action) error {
	r := ob.Record
	if r.TargetImage != "" && ob.OS.Booted.Image != r.TargetImage {
		return fmt.Errorf("booted image %s, want %s", ob.OS.Booted.Image, r.TargetImage)
	}
	nodes, err := d.plan(ob, r.FromConfig, r.Config)
	if err != nil {
		return err
	}
	if err := d.writer.Verify(nodes); err != nil {
		return fmt.Errorf("files of %s differ after the reboot: %w", r.Config, err)
	}
	if err := d.advance(ob, PhaseVerified); err != nil {
		return err
	}
	d.conditions(ctx, ConditionsAfter(a, fmt.Sprintf(" (booted %s)", short(ob.OS.Booted.Checksum))))
	return nil
}
