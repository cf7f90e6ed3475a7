package mcooracle

import (
	"reflect"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMCNPoolCounts pins the transcription to what status.go's loop does,
// case by case from its source (release-4.21): the first matching condition
// decides, a MachineConfigNode without conditions or without its node ends
// the walk, and "updated" needs status.configVersion.desired to be the
// pool's target and no desired image.
func TestMCNPoolCounts(t *testing.T) {
	pool := &mcfgv1.MachineConfigPool{}
	pool.Spec.Configuration.Name = "rendered-b"
	node := func(name string) *corev1.Node { n := &corev1.Node{}; n.Name = name; return n }
	mcn := func(name, desired string, conds ...metav1.Condition) *mcfgv1.MachineConfigNode {
		m := &mcfgv1.MachineConfigNode{}
		m.Name = name
		m.Status.Conditions = conds
		if desired != "" {
			m.Status.ConfigVersion = &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{Desired: desired}
		}
		return m
	}
	c := func(t mcfgv1.StateProgress, s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: string(t), Status: s, Message: "msg"}
	}
	up, deg := mcfgv1.MachineConfigNodeUpdated, mcfgv1.MachineConfigNodeNodeDegraded
	T, F := metav1.ConditionTrue, metav1.ConditionFalse
	nodes := []*corev1.Node{node("a"), node("b"), node("c")}
	cases := []struct {
		name string
		mcns []*mcfgv1.MachineConfigNode
		want PoolCounts
	}{
		{"updated on the target", []*mcfgv1.MachineConfigNode{mcn("a", "rendered-b", c(up, T), c(deg, F))},
			PoolCounts{Updated: []string{"a"}}},
		{"updated on another config", []*mcfgv1.MachineConfigNode{mcn("a", "rendered-a", c(up, T), c(deg, F))},
			PoolCounts{}},
		{"Updated before NodeDegraded: counted updated only", []*mcfgv1.MachineConfigNode{mcn("a", "rendered-b", c(up, T), c(deg, T))},
			PoolCounts{Updated: []string{"a"}}},
		{"NodeDegraded before Updated: counted degraded only", []*mcfgv1.MachineConfigNode{mcn("a", "rendered-b", c(deg, T), c(up, T))},
			PoolCounts{Degraded: []string{"a"}, DegradedReasons: []string{`Node a is reporting: "msg"`}}},
		{"no conditions: later nodes unread", []*mcfgv1.MachineConfigNode{
			mcn("a", "rendered-b", c(up, T)), mcn("b", ""), mcn("c", "rendered-b", c(up, T))},
			PoolCounts{Updated: []string{"a"}, StoppedAt: "b", Why: "no conditions"}},
		{"unknown node: later nodes unread", []*mcfgv1.MachineConfigNode{mcn("x", "rendered-b", c(up, T)), mcn("a", "rendered-b", c(up, T))},
			PoolCounts{StoppedAt: "x", Why: "no node of that name in the pool"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := MCNPoolCounts(tc.mcns, pool, nodes, true); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	// Without the gate, updated machines come from the nodes, not from here.
	if got := MCNPoolCounts([]*mcfgv1.MachineConfigNode{mcn("a", "rendered-b", c(up, T))}, pool, nodes, false); len(got.Updated) != 0 {
		t.Errorf("without ImageModeStatusReporting: %+v", got)
	}
}
