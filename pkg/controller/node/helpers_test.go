package node

import (
	"errors"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

const (
	oldCfg = "rendered-worker-old"
	newCfg = "rendered-worker-new"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// done returns a node running cfg, idle and schedulable; age orders it
// (smaller is older).
func doneNode(name string, cfg string, age int) NodeView {
	return NodeView{Name: name, Created: epoch.Add(time.Duration(age) * time.Minute),
		Current: cfg, Desired: cfg, State: constants.MachineConfigDaemonStateDone, Ready: true}
}

func with(n NodeView, f func(*NodeView)) NodeView { f(&n); return n }

func staged(n NodeView) NodeView {
	return with(n, func(n *NodeView) { n.Stage, n.Staged = newCfg, newCfg })
}

func zone(n NodeView, z string) NodeView {
	return with(n, func(n *NodeView) { n.Zone, n.HasZone = z, true })
}

func granted(n NodeView) NodeView {
	return with(n, func(n *NodeView) { n.Desired, n.State = newCfg, constants.MachineConfigDaemonStateWorking })
}

func updatedNode(name string, age int) NodeView { return doneNode(name, newCfg, age) }

func pool(name string) PoolView { return PoolView{Name: name, Target: newCfg} }

func intOrStr(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

func grantNames(r Result) []string {
	var out []string
	for _, a := range r.Grant {
		out = append(out, a.Node)
	}
	return out
}

func stageNames(r Result) []string {
	var out []string
	for _, a := range r.Stage {
		out = append(out, a.Node)
	}
	return out
}

func holdOf(r Result, node string) HoldReason {
	for _, h := range r.Holds {
		if h.Node == node {
			return h.Reason
		}
	}
	return ""
}

func hasEvent(r Result, reason string) bool {
	return slices.ContainsFunc(r.Events, func(e Event) bool { return e.Reason == reason })
}

// fakeEtcd is a literal etcd snapshot.
type fakeEtcd struct {
	err       error
	leader    string
	members   []string
	unhealthy map[string]string
}

func (f fakeEtcd) Err() error        { return f.err }
func (f fakeEtcd) Leader() string    { return f.leader }
func (f fakeEtcd) Members() []string { return f.members }
func (f fakeEtcd) Healthy(m string) (bool, string) {
	if why, bad := f.unhealthy[m]; bad {
		return false, why
	}
	return true, ""
}

func etcd3(leader string, unhealthy ...string) fakeEtcd {
	f := fakeEtcd{leader: leader, members: []string{"m0", "m1", "m2"}, unhealthy: map[string]string{}}
	for _, u := range unhealthy {
		f.unhealthy[u] = "connection refused"
	}
	return f
}

var errUnreachable = errors.New("context deadline exceeded")

// vetoGate vetoes the nodes it names.
type vetoGate map[string]string

func (vetoGate) Name() string { return "test-gate" }
func (g vetoGate) MayDisrupt(_ PoolView, n NodeView) (bool, string) {
	if why, ok := g[n.Name]; ok {
		return false, why
	}
	return true, ""
}

// tolerant lifts the circuit breaker's limit, for cases about the MCO's own
// rules around failed nodes.
func tolerant(p PoolView) PoolView {
	p.Annotations = map[string]string{constants.MaxFailedNodesAnnotation: "100"}
	return p
}
