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
	// Missing lists the required DaemonSets whose pods on the node are not
	// Ready, with since when (the pods' own times).
	Missing map[string]time.Time
	// Absent lists the required DaemonSets without any pod on the node:
	// nothing tells since when, so the outage's start is recorded on the
	// node (DownSince).
	Absent []string
	// DownSince is the start of the outage recorded on the node
	// (DPUDownSinceAnnotation); zero when none is recorded.
	DownSince time.Time
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
//     no Ready pod on it. Down for Grace, outside a planned update reboot,
//     its host is tainted.
//   - The outage's clock is read from objects, never from memory, so a
//     restarted controller goes on with it: the Ready condition's
//     transition time, the pod's, or, when nothing has a time (a pod that
//     is absent, a node without a Ready condition), the start recorded on
//     the node (RecordDownSince, at the first decision that sees it; kept
//     while the DPU is down for any reason, cleared once it is up).
//   - The taint goes once the DPU is back and has stayed back for Recovery:
//     a flapping DPU keeps its host tainted instead of taking the taint on
//     and off.
func DecideOutage(in OutageInput) ([]InfraAction, time.Duration) {
	name := OutageRequestName(in.Node)
	var acts []InfraAction
	downSince, why, untimed := outageOf(in)
	switch {
	case (downSince.IsZero() || in.Host == "") && !in.DownSince.IsZero():
		acts = append(acts, InfraAction{Kind: ClearDownSince})
	case in.Host != "" && untimed && in.DownSince.IsZero():
		acts = append(acts, InfraAction{Kind: RecordDownSince, From: in.Now.UTC().Format(time.RFC3339)})
	}
	if in.Host == "" {
		if in.Taint != nil {
			acts = append(acts, InfraAction{Kind: DeleteRequest, Name: name})
		}
		return acts, 0
	}
	if in.Taint != nil {
		if in.Taint.Spec.NodeName != in.Host {
			return append(acts, InfraAction{Kind: DeleteRequest, Name: name}), 0 // re-paired: the next pass taints the new host
		}
		if !downSince.IsZero() {
			return acts, 0
		}
		up := in.ReadySince
		if in.UpSince.After(up) {
			up = in.UpSince
		}
		if left := up.Add(in.Recovery).Sub(in.Now); left > 0 {
			return acts, left
		}
		return append(acts, InfraAction{Kind: DeleteRequest, Name: name}), 0
	}
	if downSince.IsZero() || in.Planned {
		return acts, 0
	}
	if left := downSince.Add(in.Grace).Sub(in.Now); left > 0 {
		return acts, left
	}
	return append(acts, InfraAction{Kind: CreateRequest, Name: name, Action: dpuv1.ActionTaint,
		Reason: fmt.Sprintf("DPU %s is down since %s: %s", in.Node, downSince.UTC().Format(time.RFC3339), why)}), 0
}

// outageOf returns since when the DPU is down (zero: it is up), why, and
// whether a reason has no time of its own. Down at all, the recorded start
// counts too: the outage began then, whatever keeps the DPU down now.
func outageOf(in OutageInput) (since time.Time, why string, untimed bool) {
	var whys []string
	earliest := func(t time.Time) {
		if since.IsZero() || t.Before(since) {
			since = t
		}
	}
	if !in.Ready {
		whys = append(whys, "its Node is not Ready")
		if in.ReadySince.IsZero() {
			untimed = true
		} else {
			earliest(in.ReadySince)
		}
	}
	names := make([]string, 0, len(in.Missing))
	for ds := range in.Missing {
		names = append(names, ds)
	}
	sort.Strings(names)
	for _, ds := range names {
		earliest(in.Missing[ds])
		whys = append(whys, fmt.Sprintf("DaemonSet %s has no Ready pod on it", ds))
	}
	for _, ds := range in.Absent {
		untimed = true
		whys = append(whys, fmt.Sprintf("DaemonSet %s has no Ready pod on it", ds))
	}
	if len(whys) == 0 {
		return time.Time{}, "", false
	}
	switch {
	case !in.DownSince.IsZero():
		earliest(in.DownSince)
	case untimed:
		earliest(in.Now) // recorded by this decision
	}
	return since, strings.Join(whys, ", "), untimed
}
