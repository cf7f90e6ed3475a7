package node_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// The deciders of the property test, each called the way its controller
// calls it: the node planner through node.AdmitPool (the controller's own
// path); the HostMaintenance decider through the tenant controller itself
// (dpu.TenantController.Sync and its Gate, on the world's listers, writer
// and drainer: property_tenant_test.go); the infra side through its pure
// public entry points (dpu.DecideInfra, dpu.GateVerdict) with the thin
// adapter of the infra controller written out here.

var (
	errTimeout  = apierrors.NewTimeoutError("simulated: the apiserver did not answer in time", 1)
	errConflict = apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "node", errors.New("simulated: changed meanwhile"))
)

// plannerWriter is node.NodeWriter on the world, with faults: a write may be
// refused (not applied) or time out (applied, but answered with an error).
type plannerWriter struct {
	w *world
	c *cluster
}

func (p plannerWriter) SetAnnotation(_ context.Context, name, key, value string) error {
	n := p.c.node(name)
	if n == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
	}
	w := p.w
	if !w.calm {
		switch r := w.rng.Float64(); {
		case r < w.profile.writeRefuseP:
			w.stats.writeFaults++
			return errConflict
		case r < w.profile.writeRefuseP+w.profile.writeTimeoutP:
			w.stats.writeFaults++
			n.ann[key] = value
			return errTimeout
		}
	}
	n.ann[key] = value
	return nil
}

// RemoveAnnotation withdraws an annotation (the circuit breaker unstages
// this way). It is applied without write faults: the faults above model
// the planner's grants, which this is not.
func (p plannerWriter) RemoveAnnotation(_ context.Context, name, key string) error {
	n := p.c.node(name)
	if n == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
	}
	delete(n.ann, key)
	return nil
}

// RevokeGrant is the revocation's JSON patch on the world: its test ops
// against the node as it is now (a node that moved on refuses it, as the
// apiserver does), then desiredConfig back to currentConfig. No random
// faults: R-a judges every revocation the planner had to make.
func (p plannerWriter) RevokeGrant(_ context.Context, r node.Revocation) error {
	n := p.c.node(r.Node)
	if n == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, r.Node)
	}
	state, hasState := n.ann[constants.StateAnnotation]
	if n.ann[constants.DesiredConfigAnnotation] != r.Config || n.ann[constants.StageFailureAnnotation] != r.StageFailure ||
		state != r.State || hasState != (r.State != "") {
		p.w.stats.revocationConflicts++
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Node"}, r.Node, nil) // a failed test op
	}
	n.ann[constants.DesiredConfigAnnotation] = r.Current
	p.w.stats.revocations++
	return nil
}

// planPool is the node controller's sync of one pool.
func (w *world) planPool(c *cluster) {
	before, counted := w.admissionsOf(c), w.countedNow(c)
	facts := node.Facts{Now: w.now()}
	var etcdSnap *etcdSnapshot
	if w.etcd != nil && c == w.tenant {
		etcdSnap = w.etcd.snapshot(w)
		facts.Etcd = etcdSnap
	}
	switch {
	case c == w.infra:
		facts.Gates = []node.DisruptionGate{infraGate{w}}
	case w.kind == kindDPU:
		facts.Gates = []node.DisruptionGate{w.tenantCtl.Gate()}
	}
	desiredBefore := desiredNow(c)
	list := func() ([]*corev1.Node, error) { return c.cached(), nil }
	r, views, err := node.AdmitPool(w.ctx, c.adm, c.pool, list, facts, plannerWriter{w, c})
	if w.debug {
		for _, v := range views {
			fmt.Printf("step %d %s-view %s cur=%s des=%s state=%s unsched=%v ready=%v unavail=%v\n", w.step, c.name, v.Name, v.Current, v.Desired, v.State, v.Unschedulable, v.Ready, v.Unavailable())
		}
		fmt.Printf("step %d %s-plan grants=%v stages=%v holds=%v err=%v\n", w.step, c.name, r.Grant, r.Stage, r.Holds, err)
	}
	// A failed write ends the sync; the controller plans again on its next one.
	if r.Status != nil {
		c.pool.Status = *r.Status
	}
	st := w.stats
	st.plans++
	st.grants += len(r.Grant)
	st.stages += len(r.Stage)
	if c.pool.Paused {
		st.pausedPlans++
		if len(r.Grant) > 0 || len(r.Stage) > 0 || r.MoveLeader != nil {
			w.violate("R4: paused pool %s got grants %v stages %v move %v", c.pool.Name, r.Grant, r.Stage, r.MoveLeader)
		}
	}
	for _, h := range r.Holds {
		if h.Reason == node.HoldEtcdUnreachable || h.Reason == node.HoldEtcdUnhealthy {
			st.etcdHolds++
			break
		}
	}
	for _, g := range r.Grant {
		if g.Config != c.pool.Target {
			w.violate("grant %v is not the pool's target %s", g, c.pool.Target)
		}
	}
	w.judge(c, deciderPlanner, before, counted)
	w.judgeStageFailures(c, r, desiredBefore)
	if c == w.tenant {
		w.judgeOrder(c, r, desiredBefore)
	}
	if c == w.infra {
		for _, n := range c.nodes {
			if d := n.ann[constants.DesiredConfigAnnotation]; d != desiredBefore[n.name] && d == c.pool.Target {
				st.infraGrants++
				w.checkInfraGrant(n)
			}
		}
	}
	if etcdSnap != nil {
		w.etcd.judge(w, etcdSnap, r, desiredBefore)
	}
}

// checkInfraGrant is R6 at the grant: the DPU's own Drain request for its
// host is Drained.
func (w *world) checkInfraGrant(d *simNode) {
	if d.pair == "" {
		return
	}
	hm := w.hms[dpu.DrainRequestName(d.name)]
	if hm == nil || hm.Spec.NodeName != d.pair || hm.Status.Phase != dpuv1.PhaseDrained {
		phase := "none"
		if hm != nil {
			phase = string(hm.Status.Phase)
		}
		w.violate("R6: DPU %s granted while its host %s is not held Drained (request %s: %s)", d.name, d.pair, dpu.DrainRequestName(d.name), phase)
	}
}

// checkPhysical is R6 in the world: a DPU rebooting for its update has its
// host held and cordoned.
func (w *world) checkPhysical() {
	if w.infra == nil {
		return
	}
	for _, d := range w.infra.nodes {
		if d.reboot == 0 || !d.orderly || d.record == nil || d.record.Kind != "Update" {
			continue
		}
		h := w.tenant.node(d.pair)
		if h == nil {
			continue
		}
		if _, held := h.ann[constants.MaintenanceCordonAnnotation]; !held || !h.unschedulable {
			w.violate("R6: DPU %s reboots for its update while its host is not held and cordoned: %s", d.name, describeNode(h))
		}
	}
}

// announceWait is the tenant controller's AnnounceWait in the simulation.
const announceWait = 5 * time.Second

// infraGate is the infra controller's Gate over dpu.GateVerdict.
type infraGate struct{ w *world }

func (infraGate) Name() string { return "DPUTenantHost" }

func (g infraGate) MayDisrupt(_ node.PoolView, v node.NodeView) (bool, string) {
	d := g.w.infra.node(v.Name)
	if d == nil || d.pair == "" {
		return true, ""
	}
	ok, reason, _ := dpu.GateVerdict(dpu.GateInput{Mode: dpu.ModeLeader, Node: v.Name, Host: d.pair,
		Requests: g.w.requestsFor(d.pair), Now: g.w.now()})
	return ok, reason
}

func (w *world) requestsFor(host string) []*dpuv1.HostMaintenance {
	var out []*dpuv1.HostMaintenance
	for _, name := range w.requestNames() {
		if hm := w.hms[name]; hm.Spec.NodeName == host {
			out = append(out, hm)
		}
	}
	return out
}

func (w *world) requestNames() []string {
	names := make([]string, 0, len(w.hms))
	for n := range w.hms {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// decideTenant is the tenant controller's own Sync (dpu.TenantController,
// on the world's edges: property_tenant_test.go): under the admission lock,
// its snapshot, DecideTenant, its node writes and their expectations; then
// its status writes.
func (w *world) decideTenant() {
	c := w.tenant
	before, counted, desiredBefore := w.admissionsOf(c), w.countedNow(c), desiredNow(c)
	if _, err := w.tenantCtl.Sync(w.ctx); err != nil && w.debug {
		fmt.Printf("step %d tenant-sync failed (retried next step): %v\n", w.step, err)
	}
	w.judge(c, deciderHostMaintenance, before, counted)
	w.judgeKeptOut(c, deciderHostMaintenance, desiredBefore)
}

// decideInfra is the infra controller's Sync of every DPU (leader mode,
// drains asked ahead, host reboots on). The requests are read fresh (the
// real controller reads them through an informer of the tenant cluster).
func (w *world) decideInfra() {
	c := w.infra
	for _, d := range c.nodes {
		// The infra controller reads its node from the apiserver (its cycle
		// annotation is its own write); the planner and the gate read caches.
		o := d.object()
		from, hasCycle := o.Annotations[constants.HostMaintenanceCycleAnnotation]
		s := dpu.InfraSnapshot{
			Pool: dpu.InfraPool{Name: c.pool.Name, Target: c.pool.Target, Paused: c.pool.Paused},
			Node: node.ViewOfNode(o), Host: d.pair, CycleFrom: from, HasCycle: hasCycle,
			Drain: w.hms[dpu.DrainRequestName(d.name)], Reboot: w.hms[dpu.RebootRequestName(d.name)],
			Pair:       w.hms[dpu.PairRequestName(d.name)],
			RebootHost: true, Ahead: true,
		}
		acts := dpu.DecideInfra(s)
		if w.debug && len(acts) > 0 {
			fmt.Printf("step %d infra-decide %s cycle=%v/%q cur=%s des=%s state=%s ready=%v: %+v\n", w.step, d.name, hasCycle, from,
				s.Node.Current, s.Node.Desired, s.Node.State, s.Node.Ready, acts)
		}
		for _, a := range acts {
			if err := w.applyInfra(d, from, a); err != nil {
				break
			}
		}
	}
}

func (w *world) applyInfra(d *simNode, from string, a dpu.InfraAction) error {
	if !w.calm && w.rng.Float64() < w.profile.dpuRef {
		w.stats.writeFaults++
		return errConflict
	}
	switch a.Kind {
	case dpu.OpenCycle:
		d.ann[constants.HostMaintenanceCycleAnnotation] = a.From
	case dpu.CloseCycle:
		if d.ann[constants.HostMaintenanceCycleAnnotation] != from {
			return errConflict // the JSON patch's test
		}
		delete(d.ann, constants.HostMaintenanceCycleAnnotation)
	case dpu.CreateRequest:
		if w.hms[a.Name] != nil {
			return nil // AlreadyExists: the informer has not shown it yet
		}
		w.hmSeq++
		w.hms[a.Name] = &dpuv1.HostMaintenance{
			ObjectMeta: metav1.ObjectMeta{Name: a.Name, UID: types.UID(fmt.Sprint(w.hmSeq)), ResourceVersion: "1",
				CreationTimestamp: metav1.NewTime(w.now().Add(time.Duration(w.hmSeq) * time.Nanosecond))},
			Spec: dpuv1.HostMaintenanceSpec{NodeName: d.pair, Action: a.Action, Reason: a.Reason},
		}
	case dpu.DeleteRequest:
		delete(w.hms, a.Name)
	}
	return nil
}

// judgeStageFailures applies R-a and R-b after one plan of c. Daemon facts
// (stageFailure, state, desiredDrain, currentConfig) are taken as the cache
// showed them to the planner; desiredConfig, the planner's own write, from
// the world.
func (w *world) judgeStageFailures(c *cluster, r node.Result, desiredBefore map[string]string) {
	// R-b: no node is granted a config its stageFailure names.
	for _, g := range r.Grant {
		if ext := c.cache[g.Node]; ext != nil {
			if f, ok, _ := constants.ParseStageFailure(ext.Annotations[constants.StageFailureAnnotation]); ok && f.Config == g.Config {
				w.violate("R-b: %s granted %s, whose stage it reported failed (%s)", g.Node, g.Config, f.Reason)
			}
		}
	}
	for _, h := range r.Holds {
		if h.Reason == node.HoldStageFailed {
			w.stats.stageFailedHolds++
			break
		}
	}
	// R-a: no grant kept by a node whose stage failed for its desired
	// config while it is not Working and has no drain requested. A paused
	// pool's nodes are not written (R4), so nothing is given back there.
	if c.pool.Paused {
		return
	}
	for _, n := range c.nodes {
		ext := c.cache[n.name]
		if ext == nil {
			continue
		}
		ea := ext.Annotations
		desired := desiredBefore[n.name]
		f, ok, _ := constants.ParseStageFailure(ea[constants.StageFailureAnnotation])
		// A cordoned node keeps its grant: the cordon takes its place anyway,
		// and a HostMaintenance may wait for that update (the reboot it
		// coalesced with the grant).
		if !ok || ext.Spec.Unschedulable || f.Config != desired || desired != c.pool.Target || desired == ea[constants.CurrentConfigAnnotation] ||
			ea[constants.CurrentConfigAnnotation] == "" ||
			ea[constants.StateAnnotation] == constants.MachineConfigDaemonStateWorking ||
			ea[constants.DesiredDrainAnnotation] == constants.DrainRequest(desired) {
			continue
		}
		// The revocation's test ops fail, rightly, when the daemon moved on
		// since the cache's picture (the planner cannot know better).
		if n.ann[constants.StageFailureAnnotation] != ea[constants.StageFailureAnnotation] ||
			n.ann[constants.StateAnnotation] != ea[constants.StateAnnotation] {
			continue
		}
		if n.ann[constants.DesiredConfigAnnotation] == desired {
			w.violate("R-a: %s keeps its grant of %s though its stage failed (%s), it is not Working and asked no drain: %s",
				n.name, desired, f.Reason, describeNode(n))
		}
	}
}
