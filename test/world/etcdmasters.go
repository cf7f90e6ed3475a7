package world

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/iso/governor"
)

// MasterEtcd is one master's etcd figure: its own member at rest before
// the rollout, and during the master's own stage (from when it began to
// write to when it was staged), with every node that was writing a stage
// at the same time (on this machine all nodes share one disk) and the I/O
// policy and governor target the master's daemon staged with.
type MasterEtcd struct {
	Master, Member string
	// WALP99Before and WALP99During are the member's WAL fsync p99 (ms);
	// FsyncsDuring counts the fsyncs behind the latter.
	WALP99Before, WALP99During float64
	FsyncsDuring               uint64
	// Stage is how long the master's stage wrote (0: no stage seen).
	Stage time.Duration
	// Staging lists the nodes writing a stage while it did, itself first.
	Staging []string
	// IO is the policy and governor target (daemon.StagedInfo.IO).
	IO string
}

// stageWindow is when a node's stage wrote, read from its Staged
// condition: it ends at the condition's transition (whole seconds: the API
// keeps no more) and began Took-Prepared before.
type stageWindow struct {
	From, To time.Time
	IO       string
}

// stageWindowOf reads a node's Staged condition; ok is false when the node
// has none from since on.
func stageWindowOf(conds []metav1.Condition, since time.Time) (stageWindow, bool) {
	for _, c := range conds {
		if c.Type != string(mcfgv1.MachineConfigNodeImagePulledFromRegistry) || c.Status != metav1.ConditionTrue {
			continue
		}
		info, ok := daemon.ParseStaged(c.Message)
		end := c.LastTransitionTime.Time
		// The transition is truncated to the second: a stage that ended
		// within the second before since still counts.
		if !ok || end.Before(since.Truncate(time.Second)) {
			return stageWindow{}, false
		}
		return stageWindow{From: end.Add(-(info.Took - info.Prepared)), To: end, IO: info.IO}, true
	}
	return stageWindow{}, false
}

// stageWindows reads every node's MachineConfigNode in both clusters.
func (w *World) stageWindows(ctx context.Context, since time.Time) (map[string]stageWindow, error) {
	out := map[string]stageWindow{}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		list, err := c.CP.MCO.MachineconfigurationV1().MachineConfigNodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: list MachineConfigNodes: %w", c.Name, err)
		}
		for _, mcn := range list.Items {
			if win, ok := stageWindowOf(mcn.Status.Conditions, since); ok {
				out[mcn.Name] = win
			}
		}
	}
	return out, nil
}

// mastersEtcd builds each master's figure from the members' WAL steps
// (wal: member i's baseline, and what it observed in [from, to]) and the
// nodes' stage windows. members[i] names member i, which is also its
// master node's name.
func mastersEtcd(members []string, windows map[string]stageWindow, wal func(i int, from, to time.Time) (before, during governor.Histogram)) []MasterEtcd {
	var out []MasterEtcd
	for i, name := range members {
		m := MasterEtcd{Master: name, Member: name}
		win, staged := windows[name]
		if !staged {
			before, _ := wal(i, time.Time{}, time.Time{})
			m.WALP99Before = p99(before)
			out = append(out, m)
			continue
		}
		before, during := wal(i, win.From, win.To)
		m.WALP99Before, m.WALP99During, m.FsyncsDuring = p99(before), p99(during), during.Count
		m.Stage, m.IO = win.To.Sub(win.From), win.IO
		m.Staging = []string{name}
		var others []string
		for node, o := range windows {
			// Windows are known to the second: an overlap of a second
			// or less is a stage that began as this one ended (the host
			// lock passed on), not one writing beside it.
			if node != name && minTime(o.To, win.To).Sub(maxTime(o.From, win.From)) > time.Second {
				others = append(others, node)
			}
		}
		slices.Sort(others)
		m.Staging = append(m.Staging, others...)
		out = append(out, m)
	}
	return out
}

// MasterLines are the figure lines, one per master.
func (s *EtcdSLO) MasterLines() []string {
	var out []string
	for _, m := range s.Masters {
		out = append(out, fmt.Sprintf("e2e-etcd-master: master=%s member=%s wal_fsync_p99_ms_before=%.2f wal_fsync_p99_ms_during_stage=%.2f fsyncs_during_stage=%d stage_s=%.1f staging=%s io=%q",
			m.Master, m.Member, m.WALP99Before, m.WALP99During, m.FsyncsDuring, m.Stage.Seconds(), dash(strings.Join(m.Staging, ",")), m.IO))
	}
	return out
}

// printMasters writes the per-master table.
func (s *EtcdSLO) printMasters(out io.Writer) {
	if len(s.Masters) == 0 {
		return
	}
	fmt.Fprintln(out, "etcd per master (WAL fsync p99 of the master's own member; every node stages on this machine's one disk):")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MASTER\tMEMBER\tAT REST\tDURING ITS STAGE\tSTAGE\tWRITING AT THE SAME TIME\tI/O POLICY")
	for _, m := range s.Masters {
		during := "-"
		if m.Stage > 0 {
			during = fmt.Sprintf("%.2f ms (%d fsyncs)", m.WALP99During, m.FsyncsDuring)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f ms\t%s\t%.1fs\t%s\t%s\n", m.Master, m.Member, m.WALP99Before, during, m.Stage.Seconds(),
			dash(strings.Join(m.Staging, ",")), dash(m.IO))
	}
	_ = tw.Flush()
	for _, l := range s.MasterLines() {
		fmt.Fprintln(out, l)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
