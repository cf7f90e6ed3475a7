package node

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// PrimaryPool picks the one pool that manages node, like the MCO's
// GetPoolsForNode: among the pools whose nodeSelector matches, master wins;
// otherwise a single custom pool wins over worker; two custom pools are an
// error (the node would get two targets). Nil when no pool selects the node.
// A pool with an empty selector selects nothing (the MCO refuses to select
// all nodes). To place many nodes, parse the selectors once: NewMembership.
func PrimaryPool(pools []*mcfgv1.MachineConfigPool, node *corev1.Node) (*mcfgv1.MachineConfigPool, error) {
	return NewMembership(pools).Primary(node)
}

// Membership places nodes in pools (PrimaryPool) with each pool's selector
// parsed once: a controller places every node of a 1,000-node pool per
// plan, and parsing a selector per node and pool was most of the plan.
type Membership struct {
	pools []poolSelector
}

type poolSelector struct {
	pool  *mcfgv1.MachineConfigPool
	empty bool            // selects nothing
	sel   labels.Selector // nil when it does not parse
	err   error           // why it does not parse
	sure  []labels.Requirement
}

// NewMembership parses the pools' selectors.
func NewMembership(pools []*mcfgv1.MachineConfigPool) Membership {
	m := Membership{pools: make([]poolSelector, 0, len(pools))}
	for _, p := range pools {
		ps := poolSelector{pool: p}
		switch ns := p.Spec.NodeSelector; {
		case ns == nil || (len(ns.MatchLabels) == 0 && len(ns.MatchExpressions) == 0):
			ps.empty = true
		default:
			if ps.sel, ps.err = metav1.LabelSelectorAsSelector(ns); ps.err != nil {
				ps.sel, ps.sure = nil, validRequirements(ns)
			}
		}
		m.pools = append(m.pools, ps)
	}
	return m
}

// Primary is PrimaryPool of node among the membership's pools.
func (m Membership) Primary(node *corev1.Node) (*mcfgv1.MachineConfigPool, error) {
	var master, worker *mcfgv1.MachineConfigPool
	var custom []*mcfgv1.MachineConfigPool
	for i := range m.pools {
		ps := &m.pools[i]
		ok, err := ps.selects(node)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch p := ps.pool; p.Name {
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

// selects tells whether the pool's nodeSelector selects node. A selector
// that does not parse is judged by the requirements that do: a selector is
// the AND of its requirements, so a node that fails one of them is not
// selected whatever the broken ones say, and only a node that passes all of
// them is in doubt (an error). The MCO's ListPools (pkg/helpers/helpers.go)
// fails every node when any pool's selector is invalid; here one broken
// pool only stops the nodes it might select.
func (ps *poolSelector) selects(node *corev1.Node) (bool, error) {
	if ps.empty {
		return false, nil
	}
	set := labels.Set(node.Labels)
	if ps.sel != nil {
		return ps.sel.Matches(set), nil
	}
	for _, req := range ps.sure {
		if !req.Matches(set) {
			return false, nil
		}
	}
	return false, fmt.Errorf("pool %s has an invalid nodeSelector that may select node %s: %w", ps.pool.Name, node.Name, ps.err)
}

// selects is poolSelector.selects of one pool.
func selects(p *mcfgv1.MachineConfigPool, node *corev1.Node) (bool, error) {
	ps := NewMembership([]*mcfgv1.MachineConfigPool{p}).pools[0]
	return ps.selects(node)
}

// validRequirements returns what sel surely requires: the requirements that
// parse on their own, and, for a label with an invalid value that it must
// equal (or be in), that the label exists.
func validRequirements(sel *metav1.LabelSelector) []labels.Requirement {
	var out []labels.Requirement
	exists := func(key string) {
		if r, err := labels.NewRequirement(key, selection.Exists, nil); err == nil {
			out = append(out, *r)
		}
	}
	for k, v := range sel.MatchLabels {
		if r, err := labels.NewRequirement(k, selection.Equals, []string{v}); err == nil {
			out = append(out, *r)
		} else {
			exists(k)
		}
	}
	for _, e := range sel.MatchExpressions {
		one := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{e}}
		if s, err := metav1.LabelSelectorAsSelector(one); err == nil {
			reqs, _ := s.Requirements()
			out = append(out, reqs...)
		} else if e.Operator == metav1.LabelSelectorOpIn {
			exists(e.Key)
		}
	}
	return out
}
