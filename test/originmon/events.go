package originmon

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NodeEvent is one event of a node's timeline, at the time its name
// carries (client-go's recorder and the MCO name events
// <object>.<unix nanos in hex>; the timestamps keep only seconds).
type NodeEvent struct {
	At     time.Time
	Reason string
}

// EventTimelines are each node's events since since, from the namespaces
// the MCO's daemon records them in (its own, and default for
// OSUpdateStaged), in order.
func EventTimelines(ctx context.Context, kube kubernetes.Interface, namespaces, nodes []string, since time.Time) (map[string][]NodeEvent, error) {
	out := map[string][]NodeEvent{}
	for _, ns := range namespaces {
		evs, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Node"})
		if err != nil {
			return nil, err
		}
		for _, e := range evs.Items {
			at, ok := eventTime(e)
			if !ok || at.Before(since) {
				continue
			}
			out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], NodeEvent{At: at, Reason: e.Reason})
		}
	}
	for _, n := range nodes {
		sort.Slice(out[n], func(i, j int) bool { return out[n][i].At.Before(out[n][j].At) })
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

// JudgeTimelines checks each node's update against what origin reads from
// these events (openshift/origin pkg/monitortests/node/nodestateanalyzer
// and legacycvomonitortests/operators.go testOperatorOSUpdateStaged):
// one OSUpdateStarted then one OSUpdateStaged, the OS staged before the
// node is drained or rebooted, one Reboot, and NodeDone after it. It
// returns the longest Started-to-Staged time (origin flakes over 5 minutes
// and fails over 10) and the problems.
func JudgeTimelines(timelines map[string][]NodeEvent, nodes []string) (maxStaged time.Duration, problems []string) {
	for _, n := range nodes {
		first := map[string]time.Time{}
		count := map[string]int{}
		for _, e := range timelines[n] {
			if count[e.Reason] == 0 {
				first[e.Reason] = e.At
			}
			count[e.Reason]++
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

func reasons(evs []NodeEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Reason)
	}
	return out
}
