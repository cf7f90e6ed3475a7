package nodemeta

import (
	"encoding/json"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// FoldTaint returns a JSON patch (RFC 6902) that sets annotation key to
// value on node n and, in the same write, makes the UpdateInProgress taint
// what Decide asks for once the annotation is set; false when the taint
// needs no change (the caller makes its usual annotation write).
//
// The node controller's stageConfig and desiredConfig writes are the moments
// the taint changes: a node that must move to the pool's new config is
// staged (taint on), and granted (taint off). Carried by those writes, the
// taint costs no writes of its own (make bench-scale: 1.75 node writes per
// node per rollout). The patch first tests that the node's taints are still
// those of n (a patch carries no resourceVersion): if another writer changed
// them meanwhile, the apiserver refuses the whole patch and the caller falls
// back to the annotation alone, leaving the taint to the controller's own
// pass (Controller), which reads the node fresh.
func FoldTaint(n *corev1.Node, pool *mcfgv1.MachineConfigPool, key, value string) ([]byte, bool) {
	after := *n
	after.Annotations = make(map[string]string, len(n.Annotations)+1)
	for k, v := range n.Annotations {
		after.Annotations[k] = v
	}
	after.Annotations[key] = value
	ch := Decide(&after, pool, "")
	if !ch.SetTaints || len(n.Annotations) == 0 {
		// No annotations map: the add below has no parent to go into.
		return nil, false
	}
	// A nil list is tested as null, which the apiserver's JSON patch
	// (gopkg.in/evanphx/json-patch.v4, test) takes as "absent".
	var old any
	if n.Spec.Taints != nil {
		old = n.Spec.Taints
	}
	ops := []map[string]any{
		{"op": "test", "path": "/spec/taints", "value": old},
		{"op": "add", "path": "/spec/taints", "value": orEmpty(ch.Taints)},
		{"op": "add", "path": "/metadata/annotations/" + escapePointer(key), "value": value},
	}
	b, err := json.Marshal(ops)
	if err != nil {
		return nil, false
	}
	return b, true
}

func orEmpty(ts []corev1.Taint) []corev1.Taint {
	if ts == nil {
		return []corev1.Taint{}
	}
	return ts
}

// escapePointer escapes a JSON pointer token (RFC 6901): ~ and /.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// FoldWindow is by default how long after a pool's target changes the controller
// leaves adding the taint to the node controller's stageConfig writes,
// which carry it (FoldTaint). A stage wave of N nodes takes N over the node
// controller's QPS: 36 s at 2,000 nodes and 50 QPS. Added sooner, each taint
// was a write of its own and made the wave's fold on that node fail (make
// bench-scale: 195 refused folds at 2,000 nodes with a 3 s delay).
const FoldWindow = time.Minute

// LeaveToFold tells whether the controller should not write ch to n yet:
// ch only adds the taint, the node has no stageConfig for the pool's
// target yet (the node controller's write, which would carry the taint, is
// to come), and the target is younger than window. Removals, other
// changes and nodes whose stage write came without the taint are written.
func LeaveToFold(n *corev1.Node, pool *mcfgv1.MachineConfigPool, ch Change, targetAge, window time.Duration) bool {
	if targetAge >= window || !ch.SetTaints || len(ch.Annotations) > 0 {
		return false
	}
	if n.Annotations[constants.StageConfigAnnotation] == pool.Spec.Configuration.Name {
		return false
	}
	has := false
	for _, t := range n.Spec.Taints {
		if t.MatchTaint(&UpdateInProgressTaint) {
			has = true
		}
	}
	return !has // a change that adds the taint
}
