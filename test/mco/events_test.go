//go:build mco

package mco

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/test/mcoworld"
)

// nodeEvent is one event of a node's timeline, at the time its name
// carries (client-go's recorder and the MCO name events
// <object>.<unix nanos in hex>; the timestamps keep only seconds).
type nodeEvent struct {
	at     time.Time
	reason string
}

// eventTimelines are each node's events since since, from both places the
// MCO's daemon records them (its namespace, and default for
// OSUpdateStaged), in order.
func eventTimelines(ctx context.Context, w *mcoworld.World, nodes []string, since time.Time) (map[string][]nodeEvent, error) {
	out := map[string][]nodeEvent{}
	for _, ns := range []string{mcoworld.Namespace, metav1.NamespaceDefault} {
		evs, err := w.CP.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Node"})
		if err != nil {
			return nil, err
		}
		for _, e := range evs.Items {
			at, ok := eventTime(e)
			if !ok || at.Before(since) {
				continue
			}
			out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], nodeEvent{at, e.Reason})
		}
	}
	for _, n := range nodes {
		sort.Slice(out[n], func(i, j int) bool { return out[n][i].at.Before(out[n][j].at) })
	}
	return out, nil
}

func eventTime(e corev1.Event) (time.Time, bool) {
	_, hex, ok := strings.Cut(e.Name, ".")
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(hex, 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, n), true
}

// judgeTimelines checks each node's update against what origin reads from
// these events (openshift/origin pkg/monitortests/node/nodestateanalyzer
// and legacycvomonitortests/operators.go testOperatorOSUpdateStaged):
// one OSUpdateStarted then one OSUpdateStaged, the OS staged before the
// node is drained or rebooted, one Reboot, and NodeDone after it. It
// returns the longest Started-to-Staged time (origin flakes over 5 minutes
// and fails over 10) and the problems.
func judgeTimelines(timelines map[string][]nodeEvent, nodes []string) (maxStaged time.Duration, problems []string) {
	for _, n := range nodes {
		first := map[string]time.Time{}
		count := map[string]int{}
		for _, e := range timelines[n] {
			if count[e.reason] == 0 {
				first[e.reason] = e.at
			}
			count[e.reason]++
		}
		for _, r := range []string{"OSUpdateStarted", "OSUpdateStaged", "Reboot", "NodeDone"} {
			if count[r] == 0 {
				problems = append(problems, fmt.Sprintf("%s: no %s event (%v)", n, r, reasons(timelines[n])))
			}
		}
		for _, r := range []string{"OSUpdateStarted", "OSUpdateStaged", "Reboot"} {
			if count[r] > 1 {
				problems = append(problems, fmt.Sprintf("%s: %d %s events, want 1", n, count[r], r))
			}
		}
		if len(problems) > 0 {
			continue
		}
		staged := first["OSUpdateStaged"]
		if !first["OSUpdateStarted"].Before(staged) {
			problems = append(problems, fmt.Sprintf("%s: OSUpdateStaged before OSUpdateStarted", n))
		}
		for _, r := range []string{"Drain", "Reboot"} {
			if t, ok := first[r]; ok && t.Before(staged) {
				problems = append(problems, fmt.Sprintf("%s: %s before OSUpdateStaged", n, r))
			}
		}
		if !first["Reboot"].Before(first["NodeDone"]) {
			problems = append(problems, fmt.Sprintf("%s: NodeDone before Reboot", n))
		}
		maxStaged = max(maxStaged, staged.Sub(first["OSUpdateStarted"]))
	}
	return maxStaged, problems
}

func reasons(evs []nodeEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.reason)
	}
	return out
}
