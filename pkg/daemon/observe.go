package daemon

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// parsedConfig is a MachineConfig the daemon fetched and parsed; actions
// use it, Next only sees its ConfigState.
type parsedConfig struct {
	mc  *mcfgv1.MachineConfig
	ign *ign3types.Config
}

// observation is one turn's view: what Next sees plus what actions need.
type observation struct {
	Observed
	node    *corev1.Node
	configs map[string]*parsedConfig
}

// NodeStateOf reads the protocol annotations of a node.
func NodeStateOf(n *corev1.Node) NodeState {
	a := n.Annotations
	return NodeState{
		Current:          a[constants.CurrentConfigAnnotation],
		Desired:          a[constants.DesiredConfigAnnotation],
		Stage:            a[constants.StageConfigAnnotation],
		Staged:           a[constants.StagedConfigAnnotation],
		State:            a[constants.StateAnnotation],
		Reason:           a[constants.ReasonAnnotation],
		DesiredDrain:     a[constants.DesiredDrainAnnotation],
		LastAppliedDrain: a[constants.LastAppliedDrainAnnotation],
		RebootRequest:    a[constants.RebootRequestAnnotation],
		LastReboot:       a[constants.LastRebootAnnotation],
		Unschedulable:    n.Spec.Unschedulable,
		StageFailure:     stageFailureConfig(a[constants.StageFailureAnnotation]),
	}
}

// stageFailureConfig is the config a stageFailure annotation names; a value
// that does not parse reads as "(unreadable)", so that Next clears it.
func stageFailureConfig(v string) string {
	f, ok, err := constants.ParseStageFailure(v)
	switch {
	case err != nil:
		return "(unreadable)"
	case !ok:
		return ""
	}
	return f.Config
}

func (d *Daemon) observe(ctx context.Context) (*observation, error) {
	node, err := d.opts.Cluster.Node(ctx)
	if err != nil {
		return nil, err
	}
	ob := &observation{node: node, configs: map[string]*parsedConfig{}}
	ob.Node = NodeStateOf(node)
	ob.Order = d.opts.Order
	if ob.Record, err = d.store.Load(); err != nil {
		return nil, err
	}
	if ob.OS, err = d.opts.OS.Status(ctx); err != nil {
		return nil, fmt.Errorf("reading rpm-ostree status: %w", err)
	}
	if ob.BootID, err = readBootID(d.opts.BootIDFile); err != nil {
		return nil, err
	}
	if d.opts.CmdlineFile != "" {
		b, err := os.ReadFile(d.opts.CmdlineFile)
		if err != nil {
			return nil, fmt.Errorf("reading the kernel command line: %w", err)
		}
		ob.Cmdline = ParseCmdline(string(b))
	}
	names := []string{ob.Node.Current, ob.Node.Desired, ob.Node.Stage}
	if r := ob.Record; r != nil {
		names = append(names, r.Config, r.FromConfig)
	}
	ob.Configs = map[string]ConfigState{}
	for _, name := range names {
		if name == "" || ob.configs[name] != nil {
			continue
		}
		if _, seen := ob.Configs[name]; seen {
			continue
		}
		mc, err := d.opts.Cluster.MachineConfig(ctx, name)
		if err != nil {
			return nil, err
		}
		if mc == nil {
			ob.Configs[name] = ConfigState{Name: name}
			continue
		}
		pc := &parsedConfig{mc: mc}
		if cfg, err := mcfg.Parse(mc); err == nil {
			pc.ign = cfg
		}
		ob.configs[name] = pc
	}
	for name, pc := range ob.configs {
		ob.Configs[name] = d.configState(ob, name, pc)
	}
	if err := d.observeOnDisk(ob); err != nil {
		return nil, err
	}
	if err := d.observeDisruption(ctx, ob); err != nil {
		return nil, err
	}
	ob.OnDisk = d.checkOnDisk(ob)
	return ob, nil
}

// checkOnDisk compares the files and units on disk with currentConfig, as
// the MCO's validateOnDiskState does, once per boot and daemon process (and
// on every observation while they differ). An update in progress is judged
// by its record instead.
func (d *Daemon) checkOnDisk(ob *observation) OnDiskCheck {
	cur := ob.Node.Current
	pc := ob.configs[cur]
	if ob.Record != nil || cur == "" || pc == nil {
		return OnDiskCheck{}
	}
	key := cur + "@" + ob.BootID
	if d.validated == key {
		return OnDiskCheck{Config: cur}
	}
	drift := d.filesDrift(pc)
	if drift == "" {
		d.validated = key
	}
	return OnDiskCheck{Config: cur, Drift: drift}
}

func (d *Daemon) filesDrift(pc *parsedConfig) string {
	if pc.ign == nil {
		return "failed to parse Ignition for validation"
	}
	nodes, err := files.Plan(d.opts.Root, nil, pc.ign, d.owners())
	if err != nil {
		return fmt.Sprintf("cannot plan the config's files: %v", err)
	}
	if err := d.writer.Verify(validated(nodes)); err != nil {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return ""
}

// configState judges whether a config can be applied in place on a node
// running the current config: valid Ignition, only reconcilable changes
// (MCO rules), features this daemon implements, files it can write.
func (d *Daemon) configState(ob *observation, name string, pc *parsedConfig) ConfigState {
	mc := pc.mc
	cs := ConfigState{Name: name, Found: true, Image: NormalizeImage(mc.Spec.OSImageURL), KernelArgs: mc.Spec.KernelArguments,
		ExtensionsImage: mc.Spec.BaseOSExtensionsContainerImage}
	layering, layeringBad := layeringProblem(name, mc.Spec.KernelType, mc.Spec.Extensions, mc.Spec.BaseOSExtensionsContainerImage, runtime.GOARCH)
	cs.Layering = layering
	if name == ob.Node.Current {
		return cs // the node runs it; nothing to judge
	}
	invalid := func(format string, args ...any) ConfigState {
		cs.Invalid = fmt.Sprintf(format, args...)
		return cs
	}
	if err := mcfg.Validate(mc); err != nil {
		return invalid("%v", err)
	}
	if pc.ign == nil {
		return invalid("its Ignition config cannot be parsed")
	}
	var old *ign3types.Config
	if cur := ob.configs[ob.Node.Current]; cur != nil && cur.ign != nil {
		old = cur.ign
		if err := mcfg.Reconcilable(old, pc.ign); err != nil {
			return invalid("%v (changing them needs a reprovision)", err)
		}
	} else if err := mcfg.ValidateForDaemon(pc.ign); err != nil {
		return invalid("%v", err)
	}
	if layeringBad != "" {
		return invalid("%s", layeringBad)
	}
	if mc.Spec.FIPS && (ob.configs[ob.Node.Current] == nil || !ob.configs[ob.Node.Current].mc.Spec.FIPS) {
		return invalid("enabling FIPS needs a reprovision")
	}
	if _, err := files.Plan(d.opts.Root, old, pc.ign, d.owners()); err != nil {
		return invalid("%v", err)
	}
	return cs
}

func (d *Daemon) owners() files.Owners { return files.PasswdOwners{Root: d.opts.Root} }

func readBootID(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading boot id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if id == "" {
		return "", fmt.Errorf("boot id file %s is empty", path)
	}
	return id, nil
}
