package render

import (
	"sort"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// nodeConfigAnnotations are the node annotations that name a rendered config
// a node runs, is told to run, stages or has staged. A config named there
// must not be deleted: the daemon reads it.
var nodeConfigAnnotations = []string{
	constants.CurrentConfigAnnotation,
	constants.DesiredConfigAnnotation,
	constants.StageConfigAnnotation,
	constants.StagedConfigAnnotation,
}

// ConfigsInUse returns the rendered config names that some pool (spec or
// status configuration) or some node (see nodeConfigAnnotations) refers to.
func ConfigsInUse(pools []*mcfgv1.MachineConfigPool, nodes []*corev1.Node) sets.Set[string] {
	used := sets.New[string]()
	for _, p := range pools {
		used.Insert(p.Spec.Configuration.Name, p.Status.Configuration.Name)
	}
	for _, n := range nodes {
		for _, a := range nodeConfigAnnotations {
			used.Insert(n.Annotations[a])
		}
	}
	used.Delete("")
	return used
}

// Garbage returns the rendered configs of pool that nobody uses and that are
// older than grace, sorted by name; and, when some unused config is still
// younger than grace, how long until the youngest of them may go. The grace
// period covers a node controller that is about to hand out a config it read
// from the pool a moment before the pool moved on.
func Garbage(pool string, configs []*mcfgv1.MachineConfig, inUse sets.Set[string], now time.Time, grace time.Duration) ([]string, time.Duration) {
	var out []string
	var recheck time.Duration
	for _, mc := range configs {
		if !mcfg.IsRenderedFor(pool, mc.Name) || inUse.Has(mc.Name) || mc.DeletionTimestamp != nil {
			continue
		}
		age := now.Sub(mc.CreationTimestamp.Time)
		if age < grace {
			if wait := grace - age; wait > recheck {
				recheck = wait
			}
			continue
		}
		out = append(out, mc.Name)
	}
	sort.Strings(out)
	return out, recheck
}
