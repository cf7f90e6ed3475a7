package node

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/nodemeta"
)

// taintFold lets the plan's stageConfig and desiredConfig writes carry the
// MCO's UpdateInProgress taint (nodemeta.FoldTaint): on when a node is
// staged for the pool's new config, off when it is granted it. The node
// metadata controller still owns the taint and sets whatever a fold did
// not (a refused fold, a node the plan did not write), after its delay.
func (c *Controller) taintFold(pool *mcfgv1.MachineConfigPool) func(node, key, value string) ([]byte, bool) {
	return func(name, key, value string) ([]byte, bool) {
		if key != constants.StageConfigAnnotation && key != constants.DesiredConfigAnnotation {
			return nil, false
		}
		n, err := c.nodes.Get(name)
		if err != nil {
			return nil, false
		}
		return nodemeta.FoldTaint(n, pool, key, value)
	}
}
