package world

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/originmon"
)

// Summary is what a rollout showed: per-node disruption, etcd leader
// changes, failed apiserver writes and every invariant checked.
type Summary struct {
	Nodes              int
	Duration           time.Duration
	LeaderChanges      int
	InitialLeader      string
	MasterOrder        []string
	Writes, Failed     int
	MaxUnavailableSeen map[string]int
	MaxUnavailable     map[string]int
	MinReadyWeb        int
	Replicas           int
	Windows            map[string]time.Duration
	Reboots            map[string]int
	Invariants         []Invariant
	NotDone            []string
	// Faults are the faults the rollout made on purpose (RolloutOptions.Faults).
	Faults []FaultReport
	// EtcdSLO is etcd's disk latency before and during the rollout; nil
	// when not sampled.
	EtcdSLO *EtcdSLO
	// Coalesce counts the DPU hosts' drains and reboots, and pool pauses.
	Coalesce CoalesceCounts
	// ViolationEpisodes sums, per violation, its episodes (a violation is
	// told once when it starts and once when it ends).
	ViolationEpisodes []ViolationTally
	// Origin is the tenant cluster's upgrade as openshift/origin's
	// monitors judge it; OriginEvents the nodes' MCO events (ok, broken).
	Origin       *originmon.Verdict
	OriginEvents string
}

// Invariant is one checked property.
type Invariant struct {
	Name   string
	OK     bool
	Detail string
}

// Violations counts failed invariants.
func (s *Summary) Violations() int {
	n := 0
	for _, i := range s.Invariants {
		if !i.OK {
			n++
		}
	}
	return n
}

// MaxUnavailableSeenOverall is the largest per-pool unavailability seen.
func (s *Summary) MaxUnavailableSeenOverall() int {
	m := 0
	for _, v := range s.MaxUnavailableSeen {
		m = max(m, v)
	}
	return m
}

// summarize checks the invariants; o says which trouble the rollout made
// on purpose (a power-cycled node reboots once more).
func (w *World) summarize(rows []Row, d time.Duration, o RolloutOptions, coalesce *coalesceWatch) *Summary {
	counts, notOnce := coalesce.counts(), coalesce.notDrainedOnce()
	m := w.monitor
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Summary{
		Nodes: len(w.Order), Duration: d, LeaderChanges: m.leaderChanges, InitialLeader: m.initialLeader,
		Writes: m.writes, Failed: m.failedWrites, MaxUnavailableSeen: map[string]int{}, MaxUnavailable: map[string]int{},
		MinReadyWeb: m.minReadyWeb, Replicas: w.Opts.Replicas, Windows: map[string]time.Duration{}, Reboots: map[string]int{},
		Coalesce: counts,
	}
	for k, v := range m.maxUnavailableSeen {
		s.MaxUnavailableSeen[k] = v
	}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool, limit := range c.Pools {
			s.MaxUnavailable[c.Name+"/"+pool] = limit
		}
	}
	for k, v := range m.windows {
		s.Windows[k] = v
	}
	for _, r := range rows {
		s.Reboots[r.Name] = r.Reboots
		if !r.Done {
			s.NotDone = append(s.NotDone, r.Name)
		}
	}
	var leaderRebootedAsLeader []string
	for _, r := range m.masterReboots {
		s.MasterOrder = append(s.MasterOrder, r.name)
		if r.wasLeader {
			leaderRebootedAsLeader = append(leaderRebootedAsLeader, r.name)
		}
	}
	check := func(name string, ok bool, detail string, args ...any) {
		s.Invariants = append(s.Invariants, Invariant{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	}
	check("every node Done on the new config and OS", len(s.NotDone) == 0, "not done: %v", s.NotDone)
	lastMaster := ""
	if len(s.MasterOrder) > 0 {
		lastMaster = s.MasterOrder[len(s.MasterOrder)-1]
	}
	check("etcd followers before the leader", lastMaster == s.InitialLeader && len(s.MasterOrder) == w.Opts.Masters,
		"initial leader %s, master reboot order %v", s.InitialLeader, s.MasterOrder)
	check("no master rebooted while leading etcd", len(leaderRebootedAsLeader) == 0, "rebooted as leader: %v", leaderRebootedAsLeader)
	check("exactly one etcd leader change", s.LeaderChanges == 1, "leader changes: %d", s.LeaderChanges)
	over := []string{}
	for k, seen := range s.MaxUnavailableSeen {
		if seen > s.MaxUnavailable[k] {
			over = append(over, fmt.Sprintf("%s %d>%d", k, seen, s.MaxUnavailable[k]))
		}
	}
	check("maxUnavailable never exceeded", len(over) == 0, "seen %v, limits %v", s.MaxUnavailableSeen, s.MaxUnavailable)
	s.ViolationEpisodes = Tally(m.violations.Episodes(time.Now()))
	dpuViolations, other := 0, []string{}
	for _, t := range s.ViolationEpisodes {
		switch t.Key.Kind {
		case violationHostNotDrained:
			dpuViolations += t.Episodes
		case violationMaxUnavailable: // "maxUnavailable never exceeded" tells it
		default:
			other = append(other, t.First)
		}
	}
	check("no DPU rebooted while its host ran non-DaemonSet pods", dpuViolations == 0, "%d violations", dpuViolations)
	hostReboots, badHosts := w.dpuHostReboots(s.Reboots, o.PowerCycle)
	check("every DPU host rebooted exactly once (power-cycled: at most twice)", len(badHosts) == 0,
		"reboots %v, wrong: %v", hostReboots, badHosts)
	check("every DPU host drained once (one cordon for its update and its DPU's)", len(notOnce) == 0,
		"%d hosts, %d drains: %v", counts.Hosts, counts.HostDrains, notOnce)
	check("no pool paused during the rollout", counts.Pauses == 0, "%d pauses seen", counts.Pauses)
	check("no other violation recorded", len(other) == 0, "%v", other)
	return s
}

// Print writes the summary for a person.
func (s *Summary) Print(out io.Writer) {
	fmt.Fprintf(out, "\nrollout summary (%d nodes, %.0fs)\n", s.Nodes, s.Duration.Seconds())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tDISRUPTION WINDOW\tREBOOTS")
	names := make([]string, 0, len(s.Reboots))
	for n := range s.Reboots {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t%.1fs\t%d\n", n, s.Windows[n].Seconds(), s.Reboots[n])
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "etcd leader changes: %d (initial leader %s, masters rebooted in order %v)\n", s.LeaderChanges, s.InitialLeader, s.MasterOrder)
	fmt.Fprintf(out, "apiserver writes during the rollout: %d, failed: %d\n", s.Writes, s.Failed)
	if e := s.EtcdSLO; e != nil {
		fmt.Fprintf(out, "etcd disk p99 (all members; %s at rest, then the rollout): WAL fsync %.2f -> %.2f ms, backend commit %.2f -> %.2f ms (%d -> %d fsyncs, %d scrapes failed)\n",
			e.Baseline, e.WALFsyncP99Before, e.WALFsyncP99During, e.CommitP99Before, e.CommitP99During, e.WALSamplesBefore, e.WALSamplesDuring, e.ScrapeErrors)
		fmt.Fprintln(out, e.Line())
		e.printMasters(out)
	}
	fmt.Fprintf(out, "max unavailable seen: %v (limits %v)\n", s.MaxUnavailableSeen, s.MaxUnavailable)
	if s.Origin != nil {
		fmt.Fprintln(out, s.Origin.Line("run", s.OriginEvents))
	}
	fmt.Fprintln(out, s.Coalesce.Line())
	if len(s.ViolationEpisodes) > 0 {
		fmt.Fprintln(out, "violations seen:")
		for _, t := range s.ViolationEpisodes {
			still := ""
			if t.StillOpen {
				still = ", still violated at the end"
			}
			fmt.Fprintf(out, "  %s: %d episode(s), longest %.1fs%s; first: %s\n", t.Key, t.Episodes, t.Longest.Seconds(), still, short(t.First, 200))
		}
	}
	fmt.Fprintln(out, "invariants:")
	for _, i := range s.Invariants {
		mark := "ok  "
		if !i.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(out, "  [%s] %s (%s)\n", mark, i.Name, i.Detail)
	}
}

// printTable writes the live table.
func printTable(out io.Writer, rows []Row, elapsed time.Duration) {
	fmt.Fprintf(out, "\n--- rollout at %.0fs\n", elapsed.Seconds())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tCLUSTER\tPOOL\tSTATE\tSTAGE\tSTAGED\tGRANT\tDRAIN\tREBOOTS\tDONE")
	for _, r := range rows {
		staged := yes(r.Target != "" && (r.Staged == r.Target || r.Current == r.Target))
		if staged != "yes" && r.Stage == r.Target && r.Progress != "" {
			// "<config> NN%": the percentage is what a person wants here.
			staged = r.Progress[strings.LastIndex(r.Progress, " ")+1:]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, r.Cluster, r.Pool, stateColumn(r),
			yes(r.Stage == r.Target && r.Target != ""), staged, yes(r.Desired == r.Target && r.Target != ""), dash(r.Drain), r.Reboots, yes(r.Done))
	}
	_ = tw.Flush()
	reasons := FailureReasons(snapshots(rows))
	for i, r := range reasons {
		if i == maxWhyLines && len(reasons) > maxWhyLines+1 {
			fmt.Fprintf(out, "why: ... %d more reasons\n", len(reasons)-i)
			break
		}
		fmt.Fprintln(out, "why:", r.Line(100))
	}
}

// maxWhyLines bounds the reasons under the live table.
const maxWhyLines = 3

// stateColumn is the daemon's state, or fail(N) while its stage fails
// (N: failed attempts).
func stateColumn(r Row) string {
	_, attempts := NodeFailure(r.Annotations)
	if r.Annotations[constants.StageFailureAnnotation] == "" {
		return dash(r.State)
	}
	fail := fmt.Sprintf("fail(%d)", attempts)
	if attempts < 0 {
		fail = "fail(?)"
	}
	if r.State == constants.MachineConfigDaemonStateDegraded || r.State == constants.MachineConfigDaemonStateUnreconcilable {
		return r.State + "," + fail
	}
	return fail
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// dpuHostReboots returns the reboots of every tenant node with a DPU, and
// the hosts whose count is wrong: one reboot after their DPU's, which also
// applies their own update (one drain, one reboot); a node the rollout
// power-cycled on purpose may reboot once more.
func (w *World) dpuHostReboots(reboots map[string]int, powerCycled string) (map[string]int, []string) {
	hosts := map[string]int{}
	var bad []string
	for _, name := range w.Order {
		n := w.Nodes[name]
		if n.Cluster != w.Tenant || n.Pair == "" {
			continue
		}
		got := reboots[name]
		hosts[name] = got
		allowed := got == 1 || (name == powerCycled && got == 2)
		if !allowed {
			bad = append(bad, fmt.Sprintf("%s rebooted %d times", name, got))
		}
	}
	return hosts, bad
}
