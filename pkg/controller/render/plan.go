// Package render is tandem's render controller: for every MachineConfigPool
// it merges the MachineConfigs the pool selects into one rendered config,
// "rendered-<pool>-<hash>", points the pool's spec.configuration at it, and
// deletes rendered configs that no pool and no node uses any more.
//
// The decisions (which configs, what result, which condition, which garbage)
// are pure functions in this file and gc.go; controller.go and sync.go only
// move objects between the API and those functions.
package render

import (
	"errors"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// Reasons of the RenderDegraded condition.
const (
	ReasonInvalidMachineConfig = "InvalidMachineConfig"
	ReasonNoMachineConfigs     = "NoMachineConfigs"
	ReasonInvalidSelector      = "InvalidSelector"
	ReasonRenderFailed         = "RenderFailed"
)

var (
	poolKind          = mcfgv1.GroupVersion.WithKind("MachineConfigPool")
	machineConfigKind = mcfgv1.GroupVersion.WithKind("MachineConfig")
)

// PlanOptions are the inputs of Plan that do not come from the cluster's objects.
type PlanOptions struct {
	// ControllerConfig is the MCO's ControllerConfig, nil when there is none.
	// When set, it gives the defaults (DefaultsFromControllerConfig) and the
	// pool's certificate expiries, exactly as the MCO renders.
	ControllerConfig *mcfgv1.ControllerConfig
	// Defaults fill osImageURL and the extensions image when no MachineConfig
	// sets them and there is no ControllerConfig.
	Defaults mcfg.Defaults
	// ControllerVersion is written to the rendered config's
	// generated-by-controller-version annotation.
	ControllerVersion string
}

// Result is what Plan decided for one pool.
type Result struct {
	// SelectsAll is set when the pool's machineConfigSelector is empty. Like
	// the MCO, nothing is rendered and nothing is degraded; a warning event says why.
	SelectsAll bool
	// Rendered is the rendered MachineConfig (name, owner, annotations, spec),
	// nil when rendering failed.
	Rendered *mcfgv1.MachineConfig
	// Source lists the merged MachineConfigs in merge order.
	Source []corev1.ObjectReference
	// Err says why rendering failed; Reason is the matching condition reason.
	Err    error
	Reason string
	// Inputs is the ControllerConfig condition (which render inputs were used)
	// and CertExpirys the pool's certificate expiries from it.
	Inputs      mcfgv1.MachineConfigPoolCondition
	CertExpirys []mcfgv1.CertExpiry
}

// Degraded tells whether the pool's RenderDegraded condition should be True.
func (r Result) Degraded() bool { return r.Err != nil }

// Plan renders pool from all the MachineConfigs in the cluster. It never
// touches the pool's current rendered config: on failure the caller leaves
// spec.configuration as it is, so the last good config stays in force.
func Plan(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig, opts PlanOptions) Result {
	r := plan(pool, all, opts)
	r.Inputs = controllerConfigCondition(opts.ControllerConfig)
	r.CertExpirys = CertExpirys(opts.ControllerConfig)
	return r
}

func plan(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig, opts PlanOptions) Result {
	cc := opts.ControllerConfig
	if cc != nil {
		opts.Defaults = DefaultsFromControllerConfig(cc)
	}
	selected, err := SelectConfigs(pool, all)
	switch {
	case errors.Is(err, errSelectsAll):
		return Result{SelectsAll: true}
	case err != nil:
		return Result{Err: err, Reason: ReasonInvalidSelector}
	case len(selected) == 0:
		return Result{Err: fmt.Errorf("no MachineConfigs found matching the pool's machineConfigSelector"), Reason: ReasonNoMachineConfigs}
	}

	merged, err := mcfg.MergeWithDefaults(selected, opts.Defaults)
	if err != nil {
		reason := ReasonRenderFailed
		var ie *mcfg.InvalidConfigError
		if errors.As(err, &ie) {
			reason = ReasonInvalidMachineConfig
		}
		return Result{Err: err, Reason: reason}
	}
	name, err := mcfg.RenderedName(pool.Name, merged.Spec)
	if err != nil {
		return Result{Err: err, Reason: ReasonRenderFailed}
	}
	merged.Name = name
	merged.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(pool, poolKind)}
	merged.Annotations = renderedAnnotations(merged.Spec, opts)

	source := make([]corev1.ObjectReference, 0, len(selected))
	for _, mc := range mcfg.SortForMerge(selected) {
		source = append(source, corev1.ObjectReference{
			Kind: machineConfigKind.Kind, APIVersion: machineConfigKind.GroupVersion().String(), Name: mc.Name,
		})
	}
	return Result{Rendered: merged, Source: source}
}

// renderedAnnotations are the MCO's annotations of a rendered config: the
// controller version, the release version of the ControllerConfig, and
// whether a MachineConfig overrode the release's OS image.
func renderedAnnotations(spec mcfgv1.MachineConfigSpec, opts PlanOptions) map[string]string {
	a := map[string]string{}
	if opts.ControllerVersion != "" {
		a[constants.GeneratedByControllerVersionAnnotation] = opts.ControllerVersion
	}
	if cc := opts.ControllerConfig; cc != nil {
		a[ReleaseImageVersionAnnotation] = cc.Annotations[ReleaseImageVersionAnnotation]
		if spec.OSImageURL != cc.Spec.BaseOSContainerImage {
			a[OSImageURLOverriddenAnnotation] = "true"
		}
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

var errSelectsAll = errors.New("the pool's machineConfigSelector is empty and would select every MachineConfig")

// SelectConfigs returns the MachineConfigs pool's machineConfigSelector
// selects. Rendered configs (those controlled by a pool) are never selected,
// so a broad selector such as "role NotIn (master)" cannot feed a pool's
// rendered config back into itself. A nil selector selects nothing; an empty
// one is refused, as in the MCO.
func SelectConfigs(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig) ([]*mcfgv1.MachineConfig, error) {
	if pool.Spec.MachineConfigSelector == nil {
		return nil, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid machineConfigSelector: %w", err)
	}
	if sel.Empty() {
		return nil, errSelectsAll
	}
	var out []*mcfgv1.MachineConfig
	for _, mc := range all {
		if isRendered(mc) || !sel.Matches(labels.Set(mc.Labels)) {
			continue
		}
		out = append(out, mc)
	}
	return out, nil
}

// isRendered tells whether mc is a rendered config, i.e. controlled by a pool.
func isRendered(mc *mcfgv1.MachineConfig) bool {
	ref := metav1.GetControllerOf(mc)
	return ref != nil && ref.Kind == poolKind.Kind
}

// PoolsForConfig returns the pools whose rendering depends on mc: its owner
// for a rendered config, else the pools that select it.
func PoolsForConfig(mc *mcfgv1.MachineConfig, pools []*mcfgv1.MachineConfigPool) []*mcfgv1.MachineConfigPool {
	var out []*mcfgv1.MachineConfigPool
	if ref := metav1.GetControllerOf(mc); ref != nil && ref.Kind == poolKind.Kind {
		for _, p := range pools {
			if p.Name == ref.Name {
				out = append(out, p)
			}
		}
		return out
	}
	for _, p := range pools {
		if p.Spec.MachineConfigSelector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.MachineConfigSelector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(mc.Labels)) {
			continue
		}
		out = append(out, p)
	}
	return out
}
