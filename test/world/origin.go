package world

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/originmon"
)

// judgeAsOrigin adds to sum what openshift/origin's monitors say of the
// tenant cluster's rollout (test/originmon cites the rules): each updated
// node unready once, the workload's budget held, each updated master's
// kube-apiserver seen down during its reboot, and each node's update told
// by the MCO's node events. Nodes a fault took down are left out of the
// once-only and event checks (a power loss is a second unready episode and
// a second stage) and named.
func (w *World) judgeAsOrigin(ctx context.Context, sum *Summary, start time.Time) {
	m := w.monitor
	m.mu.Lock()
	origin := m.origin
	m.mu.Unlock()
	if origin == nil {
		return
	}
	var updated []string
	for _, name := range w.Order {
		if n := w.Nodes[name]; n.Cluster == w.Tenant && !w.unchanged["tenant/"+n.Pool] {
			updated = append(updated, name)
		}
	}
	v := origin.Verdict(updated)
	sum.Origin = &v
	check := func(name string, ok bool, detail string, args ...any) {
		sum.Invariants = append(sum.Invariants, Invariant{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	}
	check("nodes go unready only once, and not after their update (origin)", v.Unready.OK(),
		"%d/%d once, excused (a fault took them down) %v: %s", v.Unready.Once, v.Unready.Total, v.Excused, strings.Join(v.Unready.Failures, "; "))
	check("PDB honoured", v.BudgetBroken == 0,
		"%d episodes below minAvailable %d (pods on a node a fault took down count as available); fewest ready web pods %d of %d",
		v.BudgetBroken, w.Opts.Replicas-1, sum.MinReadyWeb, sum.Replicas)
	if !w.unchanged["tenant/"+constants.MasterPool] && v.APIServers > 0 {
		check("each master's kube-apiserver down during its reboot", v.APIServersDown == v.APIServers && v.APIServers == w.Opts.Masters,
			"%d of %d apiservers seen down, %d masters", v.APIServersDown, v.APIServers, w.Opts.Masters)
	}
	judged := slices.DeleteFunc(slices.Clone(updated), func(n string) bool { return slices.Contains(v.Excused, n) })
	timelines, err := originmon.EventTimelines(ctx, w.Tenant.CP.Kube, []string{constants.MCONamespace, metav1.NamespaceDefault}, judged, start)
	if err != nil {
		sum.OriginEvents = "unread"
		check("MCO node events tell each update (origin)", false, "reading events: %v", err)
		return
	}
	maxStaged, problems := originmon.JudgeTimelines(timelines, judged)
	sum.OriginEvents = "ok"
	if len(problems) > 0 {
		sum.OriginEvents = "broken"
	}
	check("MCO node events tell each update (origin)", len(problems) == 0,
		"%d nodes, longest OSUpdateStarted to OSUpdateStaged %.1fs: %s", len(judged), maxStaged.Seconds(), strings.Join(problems, "; "))
}
