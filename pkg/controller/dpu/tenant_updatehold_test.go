package dpu

import (
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// vetoAll is a cluster gate (like blocking pods or alerts) that vetoes
// every node.
type vetoAll struct{}

func (vetoAll) Name() string { return "PrometheusAlerts" }
func (vetoAll) MayDisrupt(node.PoolView, node.NodeView) (bool, string) {
	return false, "1 active alert(s): KubeNodeNotReady"
}

// TestMarkUpdateHolds: the snapshot records, per node, the pool rules a
// coalesced update must pass: the manual hold, the breaker and the cluster
// gates, each of which would otherwise be bypassed by a maintenance reboot.
func TestMarkUpdateHolds(t *testing.T) {
	pool := func(ann map[string]string) *mcfgv1.MachineConfigPool {
		p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker", Annotations: ann}}
		p.Spec.Configuration.Name = cfgB
		return p
	}
	failing := func(n *TenantNode) {
		n.View.Desired, n.View.State = cfgB, constants.MachineConfigDaemonStateDegraded
	}
	tests := []struct {
		name  string
		pool  *mcfgv1.MachineConfigPool
		nodes []TenantNode
		gates []node.DisruptionGate
		// degraded are the MachineConfigNodes' NodeDegraded conditions (nil: not read)
		degraded node.DegradedConditions
		want     string // substring of w0's UpdateHeld; "" for none
	}{
		{name: "nothing holds", pool: pool(nil), nodes: []TenantNode{doneNode("w0")}},
		{name: "pool on hold", pool: pool(map[string]string{constants.DisruptionHoldAnnotation: "freeze"}),
			nodes: []TenantNode{doneNode("w0")}, want: "ManualHold: pool worker is on hold"},
		{name: "breaker open after a node failed on the target", pool: pool(nil),
			nodes: []TenantNode{doneNode("w0"), doneNode("w1", failing)}, want: "CircuitBreaker: 1 node(s) failed on " + cfgB},
		{name: "a node Degraded for less than the grace is a blip: nothing held", pool: pool(nil),
			nodes:    []TenantNode{doneNode("w0"), doneNode("w1", failing)},
			degraded: node.DegradedConditions{"w1": {True: true, Since: t0.Add(-time.Minute)}}},
		{name: "a node Degraded for the grace: breaker open", pool: pool(nil),
			nodes:    []TenantNode{doneNode("w0"), doneNode("w1", failing)},
			degraded: node.DegradedConditions{"w1": {True: true, Since: t0.Add(-node.DefaultFailedNodeGrace)}},
			want:     "CircuitBreaker: 1 node(s) failed on " + cfgB},
		{name: "a cluster gate vetoes", pool: pool(nil), nodes: []TenantNode{doneNode("w0")},
			gates: []node.DisruptionGate{vetoAll{}}, want: "PrometheusAlerts: 1 active alert(s)"},
		{name: "another pool's node is left alone", pool: pool(map[string]string{constants.DisruptionHoldAnnotation: "freeze"}),
			nodes: []TenantNode{doneNode("w0", func(n *TenantNode) { n.Pool = "infra" })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &TenantController{opts: TenantOptions{UpdateGates: tt.gates}}
			s := TenantSnapshot{Now: t0, Nodes: map[string]TenantNode{}}
			for _, n := range tt.nodes {
				s.Nodes[n.View.Name] = n
			}
			c.markUpdateHolds(s, tt.pool, tt.degraded)
			got := s.Nodes["w0"].UpdateHeld
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("UpdateHeld = %q, want %q", got, tt.want)
			}
		})
	}
}
