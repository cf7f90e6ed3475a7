package node_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/daemon"
)

// The simulated world of the planner's property test: nodes as machines
// (booted OS, staged deployment, the daemon's on-disk record, reboots that
// take time), each running the real daemon decision (daemon.Next) and the
// real drain decision (drain.Decide), and a stale informer cache per
// cluster that shows every node write late. Everything the deciders write
// goes to the world; what they read comes from the cache.

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Who last wrote a node's spec.unschedulable.
const (
	cordonByDecider = "decider" // a HostMaintenance hold or release
	cordonByDrain   = "drain"   // the drain controller
)

// simNode is one machine and its Node object.
type simNode struct {
	name    string
	labels  map[string]string
	created time.Time
	addrs   []string
	// pair is the tenant host of a DPU, or the DPU of a host.
	pair string

	ann           map[string]string // the Node's annotations
	unschedulable bool
	cordonBy      string // who last set unschedulable: cordonByDecider or cordonByDrain
	flap          int    // steps left NotReady after an outside fault (kubelet, network)
	netDown       bool   // a host whose DPU reboots has no network
	// The machine.
	booted     string // booted image
	staged     *daemon.Deployment
	bootID     int
	record     *daemon.Record
	stageLeft  int // steps left in a pull
	stageImage string
	stageCfg   string // the config the pull is for
	reboot     int    // steps left in a reboot (NotReady)
	orderly    bool   // the reboot is an orderly one (applies an unlocked staged deployment)
	backoff    int    // steps the daemon waits after a failed step
	drainLeft  int    // the drain controller's eviction in progress
}

func (n *simNode) ready() bool { return n.flap == 0 && n.reboot == 0 && !n.netDown }

// object is the Node as the apiserver holds it now.
func (n *simNode) object() *corev1.Node {
	status := corev1.ConditionTrue
	if !n.ready() {
		status = corev1.ConditionFalse
	}
	o := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: n.labels, Annotations: maps.Clone(n.ann),
			CreationTimestamp: metav1.NewTime(n.created)},
		Spec:   corev1.NodeSpec{Unschedulable: n.unschedulable},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}},
	}
	for _, a := range n.addrs {
		o.Status.Addresses = append(o.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a})
	}
	return o
}

// cluster is one cluster's pool, nodes, stale cache and admission.
type cluster struct {
	name  string
	pool  node.PoolView
	nodes []*simNode
	adm   *node.Admission
	// images[cfg] is each rendered config's OS image.
	images map[string]string
	// cache: what the informer shows; history: the Node objects of the last
	// steps, to show late.
	cache   map[string]*corev1.Node
	shown   map[string]int
	history map[string][]snapshot
	// drains are the HostMaintenance drainer's evictions (tenant only).
	drains map[string]*drainJob
}

type snapshot struct {
	step int
	obj  *corev1.Node
}

type drainJob struct {
	left      int
	succeeded bool
}

func (c *cluster) node(name string) *simNode {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

func (c *cluster) configs() map[string]daemon.ConfigState {
	out := make(map[string]daemon.ConfigState, len(c.images))
	for name, img := range c.images {
		out[name] = daemon.ConfigState{Name: name, Found: true, Image: img}
	}
	return out
}

// record adds the nodes' objects to the history when they changed.
func (c *cluster) record(step int) {
	for _, n := range c.nodes {
		obj := n.object()
		h := c.history[n.name]
		if len(h) > 0 && sameNode(h[len(h)-1].obj, obj) {
			continue
		}
		c.history[n.name] = append(h, snapshot{step, obj})
	}
}

func sameNode(a, b *corev1.Node) bool {
	return a.Spec.Unschedulable == b.Spec.Unschedulable && maps.Equal(a.Annotations, b.Annotations) &&
		a.Status.Conditions[0].Status == b.Status.Conditions[0].Status
}

// refreshCache moves each node's cached object forward by a random lag of up
// to maxLag steps (never backwards): the cache shows writes late.
func (c *cluster) refreshCache(rng *rand.Rand, step, maxLag int) {
	for _, n := range c.nodes {
		at := max(c.shown[n.name], step-rng.IntN(maxLag+1))
		c.shown[n.name] = at
		h := c.history[n.name]
		if len(h) == 0 {
			continue // a node that just joined: the cache shows it next step
		}
		i := len(h) - 1
		for i > 0 && h[i].step > at {
			i--
		}
		c.cache[n.name] = h[i].obj
		if i > 0 {
			c.history[n.name] = h[i:] // older ones are never shown again
		}
	}
	for name := range c.cache {
		if c.node(name) == nil {
			delete(c.cache, name)
			delete(c.shown, name)
			delete(c.history, name)
		}
	}
}

// cached lists the cached objects of the pool's nodes, by name.
func (c *cluster) cached() []*corev1.Node {
	out := make([]*corev1.Node, 0, len(c.cache))
	for _, n := range c.nodes {
		if o := c.cache[n.name]; o != nil {
			out = append(out, o)
		}
	}
	return out
}

func newSimNode(name, role, cfg, image string, created time.Time) *simNode {
	return &simNode{
		name:    name,
		labels:  map[string]string{constants.NodeRoleLabelPrefix + role: ""},
		created: created,
		ann: map[string]string{
			constants.CurrentConfigAnnotation: cfg,
			constants.DesiredConfigAnnotation: cfg,
			constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
		},
		booted: image,
		bootID: 1,
	}
}

// daemonStep runs one step of n's machine-config-daemon: daemon.Next on what
// it observes (the apiserver's node, not the cache), then the action, which
// may take several steps (a pull, a reboot) or fail.
func (w *world) daemonStep(c *cluster, n *simNode) {
	switch {
	case n.reboot > 0:
		if n.reboot--; n.reboot == 0 {
			w.boot(n)
		}
		return
	case n.backoff > 0:
		n.backoff--
		return
	case n.stageLeft > 0:
		if n.stageLeft--; n.stageLeft == 0 {
			if !w.calm && w.rng.Float64() < w.profile.stageFailP {
				const why = "pulling the image: simulated registry error"
				if w.stageFailureHarmless(n) {
					w.failStage(n, why)
					return
				}
				w.failStep(n, daemon.ActStage, why)
				return
			}
			n.staged = &daemon.Deployment{Checksum: "commit-" + n.stageImage, Image: n.stageImage, FinalizationLocked: true}
			// The real daemon drops the failure with the stagedConfig it
			// reports; here at once, which the planner cannot tell apart.
			if f, ok, _ := constants.ParseStageFailure(n.ann[constants.StageFailureAnnotation]); ok && f.Config == n.stageCfg {
				delete(n.ann, constants.StageFailureAnnotation)
			}
		}
		return
	}
	if f, ok, _ := constants.ParseStageFailure(n.ann[constants.StageFailureAnnotation]); ok &&
		(f.Config == n.ann[constants.CurrentConfigAnnotation] ||
			(f.Config != n.ann[constants.StageConfigAnnotation] && f.Config != n.ann[constants.DesiredConfigAnnotation])) {
		delete(n.ann, constants.StageFailureAnnotation) // the config is no longer wanted
	}
	obs := daemon.Observed{
		Node: daemon.NodeState{
			Current: n.ann[constants.CurrentConfigAnnotation], Desired: n.ann[constants.DesiredConfigAnnotation],
			Stage: n.ann[constants.StageConfigAnnotation], Staged: n.ann[constants.StagedConfigAnnotation],
			State: n.ann[constants.StateAnnotation], Reason: n.ann[constants.ReasonAnnotation],
			DesiredDrain: n.ann[constants.DesiredDrainAnnotation], LastAppliedDrain: n.ann[constants.LastAppliedDrainAnnotation],
			RebootRequest: n.ann[constants.RebootRequestAnnotation], LastReboot: n.ann[constants.LastRebootAnnotation],
			Unschedulable: n.unschedulable,
		},
		OS:      daemon.OSState{Booted: daemon.Deployment{Checksum: "commit-" + n.booted, Image: n.booted}, Staged: n.staged},
		BootID:  fmt.Sprint(n.bootID),
		Record:  n.record,
		Configs: c.configs(),
	}
	a := daemon.Next(obs)
	if a.Kind == daemon.ActWait {
		return
	}
	if !w.calm && a.Kind != daemon.ActReportDegraded && w.rng.Float64() < w.profile.daemonFailP {
		w.failStep(n, a.Kind, "simulated failure")
		return
	}
	w.perform(n, obs, a)
}

// stageFailureHarmless is the daemon's rule for a background stage: the
// node is not Working and no drain was asked for its desired config, so
// the failure leaves it serving (stageFailure, not Degraded).
func (w *world) stageFailureHarmless(n *simNode) bool {
	return n.ann[constants.StateAnnotation] != constants.MachineConfigDaemonStateWorking &&
		n.ann[constants.DesiredDrainAnnotation] != constants.DrainRequest(n.ann[constants.DesiredConfigAnnotation])
}

// failStage reports a failed background stage in stageFailure and retries
// after a backoff; the state stays as it was.
func (w *world) failStage(n *simNode, why string) {
	f, ok, _ := constants.ParseStageFailure(n.ann[constants.StageFailureAnnotation])
	if !ok || f.Config != n.stageCfg {
		f = constants.StageFailure{Config: n.stageCfg, Since: w.now()}
	}
	f.Reason, f.Attempts = why, f.Attempts+1
	n.ann[constants.StageFailureAnnotation] = f.Encode()
	n.backoff = 1 + w.rng.IntN(4)
	w.stats.stageFailures++
}

// failStep is the daemon's reportFailure: Degraded with the step's error,
// then a retry after a backoff.
func (w *world) failStep(n *simNode, kind daemon.ActionKind, why string) {
	n.ann[constants.StateAnnotation] = constants.MachineConfigDaemonStateDegraded
	n.ann[constants.ReasonAnnotation] = fmt.Sprintf("%s failed: %s", kind, why)
	n.backoff = 1 + w.rng.IntN(4)
	w.stats.daemonFailures++
}

func (w *world) perform(n *simNode, o daemon.Observed, a daemon.Action) {
	r := n.record
	switch a.Kind {
	case daemon.ActStage:
		n.stageLeft, n.stageImage, n.stageCfg = 1+w.rng.IntN(w.profile.stageSlow), a.Image, a.Config
	case daemon.ActCleanupStaged:
		n.staged = nil
	case daemon.ActReportStaged:
		n.ann[constants.StagedConfigAnnotation] = a.Config
	case daemon.ActReportUnreconcilable, daemon.ActReportDegraded:
		state := constants.MachineConfigDaemonStateDegraded
		if a.Kind == daemon.ActReportUnreconcilable {
			state = constants.MachineConfigDaemonStateUnreconcilable
		}
		n.ann[constants.StateAnnotation], n.ann[constants.ReasonAnnotation] = state, a.Reason
	case daemon.ActSetWorking:
		n.ann[constants.StateAnnotation] = constants.MachineConfigDaemonStateWorking
		delete(n.ann, constants.ReasonAnnotation)
	case daemon.ActRequestDrain:
		n.ann[constants.DesiredDrainAnnotation] = constants.DrainRequest(a.Config)
		if a.Working {
			n.ann[constants.StateAnnotation] = constants.MachineConfigDaemonStateWorking
			delete(n.ann, constants.ReasonAnnotation)
		}
	case daemon.ActWriteFiles:
		img := a.Image
		if !a.OSChange {
			img = o.OS.Booted.Image
		}
		n.record = &daemon.Record{Kind: daemon.RecordUpdate, Config: a.Config, FromConfig: a.From, OSChange: a.OSChange,
			TargetImage: img, TargetChecksum: a.Checksum, BootID: o.BootID, Phase: daemon.PhaseFilesWritten, RebootToken: a.Token}
	case daemon.ActRollbackFiles, daemon.ActClearRecord:
		n.record = nil
	case daemon.ActApplyKernelArgs:
		r.Phase = daemon.PhaseKernelArgs
	case daemon.ActStopKubelet:
		r.Phase = daemon.PhaseKubeletStopped
	case daemon.ActFinalize:
		r.Phase, r.BootID = daemon.PhaseRebooting, o.BootID
		if n.staged != nil {
			n.staged.FinalizationLocked = false
		}
		w.startReboot(n, true)
	case daemon.ActReboot:
		if r != nil && r.Kind == daemon.RecordUpdate {
			r.Phase, r.BootID = daemon.PhaseRebooting, o.BootID
		}
		w.startReboot(n, true)
	case daemon.ActServeRebootRequest:
		n.record = &daemon.Record{Kind: daemon.RecordReboot, RebootToken: a.Token, BootID: o.BootID, Phase: daemon.PhaseRebooting}
		w.startReboot(n, true)
	case daemon.ActVerify:
		r.Phase = daemon.PhaseVerified
	case daemon.ActRequestUncordon:
		n.ann[constants.DesiredDrainAnnotation] = constants.UncordonRequest(a.Config)
	case daemon.ActSetDone:
		n.ann[constants.CurrentConfigAnnotation] = a.Config
		n.ann[constants.StateAnnotation] = constants.MachineConfigDaemonStateDone
		delete(n.ann, constants.ReasonAnnotation)
		if a.Token != "" {
			n.ann[constants.LastRebootAnnotation] = a.Token
		}
	case daemon.ActAckReboot:
		n.ann[constants.LastRebootAnnotation] = a.Token
	default:
		// A new kind of step (issue 13's rebootless actions) must be
		// modelled here, or this simulation no longer tells the truth.
		w.violate("the simulated daemon does not know action kind %s (%v): teach property_world_test.go", a.Kind, a)
	}
}

func (w *world) startReboot(n *simNode, orderly bool) {
	n.reboot, n.orderly = 2+w.rng.IntN(4), orderly
	n.stageLeft = 0
	w.stats.reboots++
}

// powerLoss: the machine goes down at once; nothing staged survives.
func (w *world) powerLoss(n *simNode) {
	n.staged = nil
	w.startReboot(n, false)
}

// boot ends a reboot: an orderly one applies an unlocked staged deployment;
// any reboot discards what is staged (a locked deployment, /run).
func (w *world) boot(n *simNode) {
	if n.orderly && n.staged != nil && !n.staged.FinalizationLocked {
		n.booted = n.staged.Image
	}
	n.staged = nil
	n.bootID++
}

// drainStep is the drain controller: drain.Decide on the node as it is now.
func (w *world) drainStep(n *simNode) {
	d := drain.Decide(n.object())
	switch d.Action {
	case drain.ActionDrain:
		if d.RecordCordon != "" {
			n.ann[constants.CordonedByAdminAnnotation] = d.RecordCordon
		}
		n.unschedulable, n.cordonBy = true, cordonByDrain
		if n.drainLeft == 0 {
			n.drainLeft = 1 + w.rng.IntN(3)
		} else if n.drainLeft--; n.drainLeft == 0 {
			n.ann[constants.LastAppliedDrainAnnotation] = d.Request
		}
	case drain.ActionUncordon:
		if d.MakeSchedulable {
			n.unschedulable, n.cordonBy = false, cordonByDrain
		}
		if d.ClearRecord {
			delete(n.ann, constants.CordonedByAdminAnnotation)
		}
		n.ann[constants.LastAppliedDrainAnnotation] = d.Request
		n.drainLeft = 0
	}
}

// failing is the MCO's IsNodeMCDFailing on one node's facts.
func failingState(state string) bool {
	return state == constants.MachineConfigDaemonStateDegraded || state == constants.MachineConfigDaemonStateUnreconcilable
}

func (w *world) violate(format string, args ...any) {
	w.failures = append(w.failures, fmt.Sprintf("step %d: ", w.step)+fmt.Sprintf(format, args...))
}

func nodeNames(ns []*simNode) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.name)
	}
	slices.Sort(out)
	return out
}

func describeNode(n *simNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(cur=%s des=%s stage=%s staged=%s state=%s", n.name, n.ann[constants.CurrentConfigAnnotation],
		n.ann[constants.DesiredConfigAnnotation], n.ann[constants.StageConfigAnnotation], n.ann[constants.StagedConfigAnnotation],
		n.ann[constants.StateAnnotation])
	if r := n.ann[constants.ReasonAnnotation]; r != "" {
		fmt.Fprintf(&b, " reason=%q", r)
	}
	fmt.Fprintf(&b, " cordoned=%v ready=%v drain=%s/%s", n.unschedulable, n.ready(),
		n.ann[constants.DesiredDrainAnnotation], n.ann[constants.LastAppliedDrainAnnotation])
	if _, ok := n.ann[constants.MaintenanceCordonAnnotation]; ok {
		b.WriteString(" held")
	}
	if rr := n.ann[constants.RebootRequestAnnotation]; rr != "" {
		fmt.Fprintf(&b, " reboot=%s/%s", rr, n.ann[constants.LastRebootAnnotation])
	}
	if n.record != nil {
		fmt.Fprintf(&b, " record=%s/%s", n.record.Kind, n.record.Phase)
	}
	b.WriteString(")")
	return b.String()
}
