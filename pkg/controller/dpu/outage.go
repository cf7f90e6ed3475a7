package dpu

import (
	"fmt"
	"sort"
	"strings"
	"time"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// OutageInput is what DecideOutage knows of one paired infra node.
type OutageInput struct {
	Node string
	Host string
	// Ready is the node's Ready condition; ReadySince its last transition.
	Ready      bool
	ReadySince time.Time
	// Missing lists the required DaemonSets without a Ready pod on the
	// node, with when each was first seen missing or not ready.
	Missing map[string]time.Time
	// UpSince is when the last required DaemonSet pod became Ready (zero:
	// none required or unknown).
	UpSince time.Time
	// Taint is the node's outage request in the tenant cluster, nil if none.
	Taint *dpuv1.HostMaintenance
	// Planned: the infra node is updating (granted), or its maintenance
	// cycle keeps the host drained: its reboot is planned.
	Planned bool
	Now     time.Time
	// Grace is how long the DPU must be down before its host is tainted;
	// Recovery how long it must be back before the taint goes.
	Grace, Recovery time.Duration
}

// DecideOutage decides whether the host of a DPU that is down gets tainted
// (through a Taint HostMaintenance: the infra identity cannot touch tenant
// nodes). It is pure. It returns the actions and, when a deadline decides
// later, how soon to look again (0: on the next event).
//
//   - A DPU is down while its Node is not Ready, or a required DaemonSet has
//     no Ready pod on it. Down for Grace (from the Ready condition's
//     transition time, or from when the pod went missing), outside a planned
//     update reboot, its host is tainted.
//   - The taint goes once the DPU is back and has stayed back for Recovery:
//     a flapping DPU keeps its host tainted instead of taking the taint on
//     and off.
func DecideOutage(in OutageInput) ([]InfraAction, time.Duration) {
	name := OutageRequestName(in.Node)
	if in.Host == "" {
		if in.Taint != nil {
			return []InfraAction{{Kind: DeleteRequest, Name: name}}, 0
		}
		return nil, 0
	}
	downSince, why := outageOf(in)
	if in.Taint != nil {
		if in.Taint.Spec.NodeName != in.Host {
			return []InfraAction{{Kind: DeleteRequest, Name: name}}, 0 // re-paired: the next pass taints the new host
		}
		if !downSince.IsZero() {
			return nil, 0
		}
		up := in.ReadySince
		if in.UpSince.After(up) {
			up = in.UpSince
		}
		if left := up.Add(in.Recovery).Sub(in.Now); left > 0 {
			return nil, left
		}
		return []InfraAction{{Kind: DeleteRequest, Name: name}}, 0
	}
	if downSince.IsZero() || in.Planned {
		return nil, 0
	}
	if left := downSince.Add(in.Grace).Sub(in.Now); left > 0 {
		return nil, left
	}
	return []InfraAction{{Kind: CreateRequest, Name: name, Action: dpuv1.ActionTaint,
		Reason: fmt.Sprintf("DPU %s is down since %s: %s", in.Node, downSince.UTC().Format(time.RFC3339), why)}}, 0
}

// outageOf returns since when the DPU is down (zero: it is up) and why.
func outageOf(in OutageInput) (time.Time, string) {
	var since time.Time
	var why []string
	if !in.Ready {
		since = in.ReadySince
		why = append(why, "its Node is not Ready")
	}
	names := make([]string, 0, len(in.Missing))
	for ds := range in.Missing {
		names = append(names, ds)
	}
	sort.Strings(names)
	for _, ds := range names {
		if t := in.Missing[ds]; since.IsZero() || t.Before(since) {
			since = t
		}
		why = append(why, fmt.Sprintf("DaemonSet %s has no Ready pod on it", ds))
	}
	if len(why) > 0 && since.IsZero() {
		since = in.Now // no transition recorded: count from now
	}
	return since, strings.Join(why, ", ")
}
