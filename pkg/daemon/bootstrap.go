package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// A new node's first `start` (openshift/machine-config-operator
// release-4.21, pkg/daemon/node.go loadNodeAnnotations and
// pkg/daemon/daemon.go checkStateOnFirstRun, getStateAndConfigs,
// updateConfigAndState). The machine-config-server laid
// node-annotations.json ({currentConfig, desiredConfig, state: Done}, the
// config it served); the first boot brought the OS to that config. The
// MCO's daemon, finding no currentConfig annotation on its Node, sets the
// file's annotations; while the file is there it is bootstrapping: when
// the booted OS is the current config's it renames the file to
// node-annotation.json.bak and stores the cluster's current config as the
// on-disk currentconfig (the first boot stored the encapsulated one, whose
// Ignition is empty). Then it reconciles as on any start.
//
// tandem does the same, with two differences said here: it sets only the
// three annotations above (a currentImage/desiredImage of on-cluster
// layering, which tandem does not do, is not set), and a node whose
// booted OS is not its current config's while bootstrapping is not pivoted
// (the MCO rebases and reboots): it stays bootstrapping and the on-disk
// validation reports it Degraded. The first boot leaves that state only
// when it crashed between renaming the encapsulated config and its reboot.

// The machine-config-server's initial annotations (the MCO's
// pkg/daemon/constants, release-4.21; the .bak name is the MCO's, singular).
const (
	InitialAnnotationsPath    = "/etc/machine-config-daemon/node-annotations.json"
	InitialAnnotationsBakPath = "/etc/machine-config-daemon/node-annotation.json.bak"
)

// Actions of a new node's first start.
const (
	// ActLoadInitialAnnotations sets currentConfig, desiredConfig and state
	// from node-annotations.json on a node without currentConfig.
	ActLoadInitialAnnotations ActionKind = "LoadInitialAnnotations"
	// ActFinishBootstrap stores Config (the cluster's) as the on-disk
	// currentconfig and renames node-annotations.json to .bak.
	ActFinishBootstrap ActionKind = "FinishBootstrap"
)

// bootstrapStep is the bootstrap's next step, ok=false when there is none.
func bootstrapStep(o Observed) (Action, bool) {
	ia := o.InitialAnnotations
	if ia == nil || o.Record != nil {
		return Action{}, false
	}
	if o.Node.Current == "" {
		cur := ia[constants.CurrentConfigAnnotation]
		if cur == "" {
			return *report(o.Node, constants.MachineConfigDaemonStateDegraded,
				fmt.Sprintf("%s names no %s", InitialAnnotationsPath, constants.CurrentConfigAnnotation)), true
		}
		return Action{Kind: ActLoadInitialAnnotations, Config: cur,
			Reason: fmt.Sprintf("the node has no currentConfig; %s names %s", InitialAnnotationsPath, cur)}, true
	}
	c, ok := o.Configs[o.Node.Current]
	if !ok || !c.Found {
		return Action{}, false // reported as a missing config
	}
	if c.Image != "" && c.Image != o.OS.Booted.Image {
		return Action{}, false // not pivoted: the on-disk validation reports it
	}
	return Action{Kind: ActFinishBootstrap, Config: o.Node.Current}, true
}

// initialAnnotations returns the annotations in node-annotations.json
// under root, nil when the file is absent.
func initialAnnotations(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, InitialAnnotationsPath))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", InitialAnnotationsPath, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", InitialAnnotationsPath, err)
	}
	return m, nil
}

// initialAnnotationsToSet are the annotations ActLoadInitialAnnotations
// writes: the file's currentConfig, its desiredConfig (else the current
// one) and its state (else Done).
func initialAnnotationsToSet(ia map[string]string) map[string]string {
	cur := ia[constants.CurrentConfigAnnotation]
	set := map[string]string{
		constants.CurrentConfigAnnotation: cur,
		constants.DesiredConfigAnnotation: cur,
		constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
	}
	if v := ia[constants.DesiredConfigAnnotation]; v != "" {
		set[constants.DesiredConfigAnnotation] = v
	}
	if v := ia[constants.StateAnnotation]; v != "" {
		set[constants.StateAnnotation] = v
	}
	return set
}

// finishBootstrap is ActFinishBootstrap.
func (d *Daemon) finishBootstrap(ob *observation, name string) error {
	pc := ob.configs[name]
	if pc == nil {
		return fmt.Errorf("MachineConfig %s is not available to record in %s", name, OnDiskConfigPath)
	}
	if err := storeMachineConfigOnDisk(d.opts.Root, pc.mc); err != nil {
		return err
	}
	if err := os.Rename(d.hostPath(InitialAnnotationsPath), d.hostPath(InitialAnnotationsBakPath)); err != nil {
		return fmt.Errorf("renaming the initial node annotations: %w", err)
	}
	return files.SyncDir(filepath.Dir(d.hostPath(InitialAnnotationsPath)))
}
