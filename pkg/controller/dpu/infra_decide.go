package dpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// Mode says who drives the tenant maintenance of infra updates.
type Mode string

const (
	// ModeLeader (default): the infra controller writes the HostMaintenance
	// requests itself.
	ModeLeader Mode = "leader"
	// ModeExternal: an external coordinator writes them; the infra
	// controller only gates grants on a Drained request for the host.
	ModeExternal Mode = "external"
)

// InfraSnapshot is what DecideInfra knows about one infra node.
type InfraSnapshot struct {
	// Pool is the node's pool: its target config and whether it is paused.
	Pool InfraPool
	Node node.NodeView
	// Host is the paired tenant host; "" when unpaired.
	Host string
	// CycleFrom is HostMaintenanceCycleAnnotation's value; HasCycle its presence.
	CycleFrom string
	HasCycle  bool
	// Drain, Reboot and Pair are this node's requests in the tenant cluster
	// (looked up by DrainRequestName/RebootRequestName/PairRequestName);
	// nil when absent.
	Drain, Reboot, Pair *dpuv1.HostMaintenance
	// Wanted: the infra planner asked the gate to grant the node.
	Wanted bool
	// RebootHost: ask for a host reboot after the infra node rebooted.
	RebootHost bool
	// Ahead: request the host's drain as soon as the node needs the pool's
	// target, not only when the planner asks for it.
	Ahead bool
}

// InfraPool is what DecideInfra knows of the infra node's pool.
type InfraPool struct {
	Name   string
	Target string
	Paused bool
}

// InfraActionKind is one step of the infra side.
type InfraActionKind string

const (
	// OpenCycle sets HostMaintenanceCycleAnnotation=From on the infra node.
	OpenCycle InfraActionKind = "OpenCycle"
	// CloseCycle removes HostMaintenanceCycleAnnotation from the infra node.
	CloseCycle InfraActionKind = "CloseCycle"
	// CreateRequest creates Name asking Action of the tenant host, with
	// Reason when set.
	CreateRequest InfraActionKind = "CreateRequest"
	// DeleteRequest deletes the request Name.
	DeleteRequest InfraActionKind = "DeleteRequest"
	// RecordDownSince sets DPUDownSinceAnnotation=From on the infra node.
	RecordDownSince InfraActionKind = "RecordDownSince"
	// ClearDownSince removes DPUDownSinceAnnotation from the infra node.
	ClearDownSince InfraActionKind = "ClearDownSince"
)

// InfraAction is one step; steps apply in order and stop at the first error.
type InfraAction struct {
	Kind   InfraActionKind
	From   string                      // OpenCycle, RecordDownSince
	Name   string                      // CreateRequest, DeleteRequest
	Action dpuv1.HostMaintenanceAction // CreateRequest
	Reason string                      // CreateRequest; "" for the default
	// Warning, when set, is recorded as a warning event on the infra node.
	Warning string
}

// DecideInfra decides the infra (leader) side for one infra node. It is pure.
//
// A maintenance cycle is open on the infra node from the drain request of
// its host until the host's reboot (or, without host reboots, the infra
// node's reboot) completed. Its annotation keeps the config the infra node
// ran when it opened, which tells a reboot onto a new config apart from a
// cycle whose update was withdrawn.
//
//   - No cycle: delete leftovers of a closed cycle; open one (and ask for
//     the Drain) when the node needs the pool's target, is not granted yet,
//     the pool is not paused, and either drains are asked ahead or the
//     planner wants to grant it.
//   - Cycle open, node rebooted onto another config and done and Ready: ask
//     for the host's Reboot; once Completed (or Rejected: warned), close
//     the cycle, then delete both requests. Without host reboots, close and
//     delete at once.
//   - Cycle open, update withdrawn before it was granted: close, delete.
//   - Otherwise keep (re-create) the Drain request: the host must stay
//     drained until the infra node is back.
//
// Closing before deleting means a crash in between leaves requests without
// a cycle, which the next decision deletes; it never re-asks for a reboot.
//
// Apart from cycles, a paired node keeps a Pair request for its host (the
// tenant then knows the host has a DPU, and reports the host's pending
// update in it); an unpaired node has none. A host whose own update is
// pending (the Pair's status.pendingUpdate) opens the cycle at once even
// on demand, so that the host's update drain serves the DPU too.
func DecideInfra(s InfraSnapshot) []InfraAction {
	return append(decidePair(s), decideCycle(s)...)
}

func decidePair(s InfraSnapshot) []InfraAction {
	switch {
	case s.Host != "" && s.Pair == nil:
		return []InfraAction{{Kind: CreateRequest, Name: PairRequestName(s.Node.Name), Action: dpuv1.ActionPair,
			Reason: fmt.Sprintf("host %s has DPU %s; its updates are coordinated with the DPU's", s.Host, s.Node.Name)}}
	case s.Host != "" && s.Pair.Spec.NodeName != s.Host, s.Host == "" && s.Pair != nil:
		return []InfraAction{{Kind: DeleteRequest, Name: PairRequestName(s.Node.Name)}}
	}
	return nil
}

// hostUpdatePending: the tenant reports the host's own update pending.
func (s InfraSnapshot) hostUpdatePending() bool {
	return s.Pair != nil && s.Pair.Spec.NodeName == s.Host && s.Pair.Status.PendingUpdate != ""
}

func decideCycle(s InfraSnapshot) []InfraAction {
	x := s.Node.Name
	drainName, rebootName := DrainRequestName(x), RebootRequestName(x)
	deletes := func() []InfraAction {
		var out []InfraAction
		if s.Reboot != nil {
			out = append(out, InfraAction{Kind: DeleteRequest, Name: rebootName})
		}
		if s.Drain != nil {
			out = append(out, InfraAction{Kind: DeleteRequest, Name: drainName})
		}
		return out
	}
	v := s.Node
	target := s.Pool.Target
	needs := target != "" && v.Current != target
	granted := needs && v.Desired == target

	if s.Host == "" {
		if s.HasCycle {
			return append([]InfraAction{{Kind: CloseCycle, Warning: "infra node lost its tenant host pairing during a maintenance cycle; closing it"}}, deletes()...)
		}
		return deletes()
	}
	if !s.HasCycle {
		var out []InfraAction
		if s.Reboot != nil {
			out = append(out, InfraAction{Kind: DeleteRequest, Name: rebootName})
		}
		if granted && s.Drain != nil {
			// Granted on the Drain of a cycle that was closing (the gate saw
			// it Drained, the close had not deleted it yet): the host must
			// stay held while the node reboots for this update. Adopt the
			// Drain in a new cycle instead of deleting it (found by the node
			// planner's property test, pkg/controller/node, seed 386).
			return append(out, InfraAction{Kind: OpenCycle, From: v.Current})
		}
		if needs && !granted && !s.Pool.Paused && (s.Ahead || s.Wanted || s.hostUpdatePending()) {
			out = append(out, InfraAction{Kind: OpenCycle, From: v.Current})
			if s.Drain == nil {
				out = append(out, InfraAction{Kind: CreateRequest, Name: drainName, Action: dpuv1.ActionDrain})
			}
			return out
		}
		if s.Drain != nil {
			out = append(out, InfraAction{Kind: DeleteRequest, Name: drainName})
		}
		return out
	}

	done := v.Current != "" && v.Current == v.Desired && v.State == constants.MachineConfigDaemonStateDone && v.Ready
	switch {
	case done && v.Current != s.CycleFrom:
		if !s.RebootHost {
			return append([]InfraAction{{Kind: CloseCycle}}, deletes()...)
		}
		switch {
		case s.Reboot == nil:
			return []InfraAction{{Kind: CreateRequest, Name: rebootName, Action: dpuv1.ActionReboot}}
		case s.Reboot.Status.Phase == dpuv1.PhaseCompleted:
			return append([]InfraAction{{Kind: CloseCycle}}, deletes()...)
		case s.Reboot.Status.Phase == dpuv1.PhaseRejected:
			return append([]InfraAction{{Kind: CloseCycle, Warning: fmt.Sprintf(
				"the tenant cluster rejected the reboot of host %s (%s); it was not rebooted after its DPU", s.Host, s.Reboot.Status.Message)}},
				deletes()...)
		}
		return nil
	case !needs && v.Desired == v.Current && v.Current == s.CycleFrom:
		return append([]InfraAction{{Kind: CloseCycle}}, deletes()...)
	case s.Drain == nil:
		return []InfraAction{{Kind: CreateRequest, Name: drainName, Action: dpuv1.ActionDrain}}
	}
	return nil
}

// GateInput is what GateVerdict looks at for one infra node.
type GateInput struct {
	Mode Mode
	Node string
	Host string
	// Requests are the open and closed requests for Host in the tenant cluster.
	Requests []*dpuv1.HostMaintenance
	// WaitingSince is when the planner first wanted to grant the node
	// during this wait; Now - WaitingSince is the hold.
	WaitingSince time.Time
	Now          time.Time
	Threshold    time.Duration
}

// GateVerdict decides whether the infra planner may grant an infra node: only
// while its tenant host is held Drained. In leader mode that must be the
// infra controller's own Drain request for this node (so the host's reboot
// follows); in external mode any Drain request for the host. overdue reports
// a hold longer than the threshold. It is pure.
func GateVerdict(in GateInput) (ok bool, reason string, overdue bool) {
	if in.Host == "" {
		return true, "", false
	}
	own := DrainRequestName(in.Node)
	if in.Mode == ModeLeader {
		// A Reboot request of this node means its maintenance cycle is
		// ending: the node rebooted onto its update, and the cycle's Drain
		// is about to be deleted with it. A grant now (the pool's target
		// moved on) would reboot the node again while its host is released.
		// The next update waits for the next cycle's Drain.
		reboot := RebootRequestName(in.Node)
		for _, hm := range in.Requests {
			if hm.Name == reboot && hm.DeletionTimestamp == nil {
				return false, fmt.Sprintf("the maintenance cycle of tenant host %s is ending (HostMaintenance %s is %s); the next update waits for the next cycle",
					in.Host, hm.Name, orNone(string(hm.Status.Phase))), false
			}
		}
	}
	var mine *dpuv1.HostMaintenance
	for _, hm := range in.Requests {
		if hm.DeletionTimestamp != nil || hm.Spec.Action != dpuv1.ActionDrain || hm.Spec.NodeName != in.Host {
			continue
		}
		if in.Mode == ModeLeader && hm.Name != own {
			continue
		}
		if hm.Status.Phase == dpuv1.PhaseDrained {
			return true, "", false
		}
		if mine == nil || hm.Name == own {
			mine = hm
		}
	}
	switch {
	case mine == nil && in.Mode == ModeExternal:
		reason = fmt.Sprintf("waiting for a Drain HostMaintenance of tenant host %s (external coordinator)", in.Host)
	case mine == nil:
		reason = fmt.Sprintf("asking the tenant cluster to drain host %s", in.Host)
	case mine.Status.Phase == dpuv1.PhaseRejected:
		reason = fmt.Sprintf("the tenant cluster rejected the drain of host %s (HostMaintenance %s): %s", in.Host, mine.Name, mine.Status.Message)
	default:
		phase := mine.Status.Phase
		if phase == "" {
			phase = dpuv1.PhasePending
		}
		reason = fmt.Sprintf("waiting for tenant host %s to drain (HostMaintenance %s is %s)", in.Host, mine.Name, phase)
	}
	if !in.WaitingSince.IsZero() && in.Threshold > 0 && in.Now.Sub(in.WaitingSince) >= in.Threshold {
		overdue = true
		reason = fmt.Sprintf("tenant host %s has held this update back for more than %s: %s", in.Host, in.Threshold, reason)
	}
	return false, reason, overdue
}

// DrainRequestName is the name of the Drain request for an infra node's host.
func DrainRequestName(infraNode string) string { return requestName(infraNode, "drain") }

// RebootRequestName is the name of the Reboot request for an infra node's host.
func RebootRequestName(infraNode string) string { return requestName(infraNode, "reboot") }

// PairRequestName is the name of the Pair request for an infra node's host.
func PairRequestName(infraNode string) string { return requestName(infraNode, "pair") }

// OutageRequestName is the name of the Taint request for the host of an
// infra node that is down.
func OutageRequestName(infraNode string) string { return requestName(infraNode, "outage") }

// requestName is "dpu-<infra node>-<suffix>", with a long node name cut and
// hashed so the result stays a valid object name (253 characters).
func requestName(infraNode, suffix string) string {
	const maxLen = 253
	name := "dpu-" + infraNode + "-" + suffix
	if len(name) <= maxLen {
		return name
	}
	sum := sha256.Sum256([]byte(infraNode))
	h := hex.EncodeToString(sum[:])[:10]
	keep := maxLen - len("dpu-") - len("-"+h) - len("-"+suffix)
	return "dpu-" + infraNode[:keep] + "-" + h + "-" + suffix
}
