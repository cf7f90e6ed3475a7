package node

// PlacesUsed counts the places of a pool's maxUnavailable that nodes take
// while the pool rolls out target. It is the one rule every decider that
// admits disruption in a pool uses: the planner (desiredConfig grants) and
// the DPU HostMaintenance controller (holds).
//
// The rule is the MCO's getAllCandidateMachines
// (openshift/machine-config-operator pkg/controller/node/node_controller.go):
//   - every unavailable node (Unavailable: not ready, cordoned, or working
//     on a config change) takes a place;
//   - so does every node failing on the target (desiredConfig is the target
//     and the daemon is Degraded or Unreconcilable): if its failure clears,
//     it updates at once, so its place must stay free.
//
// A node that is both takes two places, as in the MCO, which subtracts the
// two counts separately.
func PlacesUsed(target string, nodes ...NodeView) int {
	used := 0
	for _, n := range nodes {
		if n.Unavailable() {
			used++
		}
		if n.Desired == target && n.failing() {
			used++
		}
	}
	return used
}
