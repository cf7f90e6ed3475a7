package node

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// PrimaryPool picks the one pool that manages node, like the MCO's
// GetPoolsForNode: among the pools whose nodeSelector matches, master wins;
// otherwise a single custom pool wins over worker; two custom pools are an
// error (the node would get two targets). Nil when no pool selects the node.
// A pool with an empty selector selects nothing (the MCO refuses to select
// all nodes).
func PrimaryPool(pools []*mcfgv1.MachineConfigPool, node *corev1.Node) (*mcfgv1.MachineConfigPool, error) {
	var master, worker *mcfgv1.MachineConfigPool
	var custom []*mcfgv1.MachineConfigPool
	for _, p := range pools {
		ok, err := selects(p, node)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch p.Name {
		case constants.MasterPool:
			master = p
		case constants.WorkerPool:
			worker = p
		default:
			custom = append(custom, p)
		}
	}
	switch {
	case master != nil:
		return master, nil
	case len(custom) > 1:
		return nil, fmt.Errorf("node %s belongs to %d custom pools (%s, %s, ...); it must belong to at most one",
			node.Name, len(custom), custom[0].Name, custom[1].Name)
	case len(custom) == 1:
		return custom[0], nil
	}
	return worker, nil
}

func selects(p *mcfgv1.MachineConfigPool, node *corev1.Node) (bool, error) {
	if p.Spec.NodeSelector == nil || (len(p.Spec.NodeSelector.MatchLabels) == 0 && len(p.Spec.NodeSelector.MatchExpressions) == 0) {
		return false, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
	if err != nil {
		return false, fmt.Errorf("pool %s: invalid nodeSelector: %w", p.Name, err)
	}
	return sel.Matches(labels.Set(node.Labels)), nil
}
