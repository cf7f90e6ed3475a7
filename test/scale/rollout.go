package scale

import (
	"context"
	"fmt"
	"math"
	"sort"
	"syscall"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// Report is one rollout's figures. Counts are the apiserver's (audit log,
// /metrics) unless named otherwise.
type Report struct {
	Nodes          int     `json:"nodes"`
	DPUs           int     `json:"dpus"`
	MaxUnavailable int     `json:"max_unavailable"`
	StageS         float64 `json:"stage_s"`
	RebootS        float64 `json:"reboot_s"`
	InfraUpdate    bool    `json:"infra_update"`

	// RolloutS: from the new MachineConfig's creation until every tenant
	// worker (and DPU, with InfraUpdate) is done on the new config and the
	// pool says so. IdealS is what maxUnavailable and the simulated times
	// allow: one stage, then ceil(nodes/maxUnavailable) waves of a reboot.
	RolloutS     float64 `json:"rollout_s"`
	IdealS       float64 `json:"ideal_s"`
	RolloutRatio float64 `json:"rollout_ratio"`
	// GrantLag: from a node done (a slot free) to the controller's next
	// grant, as the bench's watch sees both.
	GrantLagP50Ms float64 `json:"grant_lag_p50_ms"`
	GrantLagP99Ms float64 `json:"grant_lag_p99_ms"`
	GrantLags     int     `json:"grant_lags"`
	// PerWaveS is (RolloutS - StageS) / waves: what a wave took, to set
	// against the median node window (grant to Done) and its steps.
	PerWaveS float64      `json:"per_wave_s"`
	Window   WindowReport `json:"node_window"`

	// Plan: tandem_mcc_plan_duration_seconds of the tenant controller over
	// the rollout (P99Bound: the upper bound of the bucket holding it).
	PlanP50Ms      float64 `json:"plan_p50_ms"`
	PlanP99Ms      float64 `json:"plan_p99_ms"`
	PlanP99BoundMs float64 `json:"plan_p99_bucket_ms"`
	Plans          int     `json:"plans"`

	// WritesPerNode: every write tandem's components made to the tenant
	// apiserver during the rollout (controller, daemons, infra identity),
	// per tenant worker.
	WritesPerNode float64                   `json:"writes_per_node"`
	Tenant        map[string]*RequestCounts `json:"tenant_requests"`
	Infra         map[string]*RequestCounts `json:"infra_requests,omitempty"`
	// Daemon-side load, per tenant node.
	DaemonWritesPerNode  float64 `json:"daemon_writes_per_node"`
	DaemonReadsPerNode   float64 `json:"daemon_reads_per_node"`
	DaemonWatchesPerNode float64 `json:"daemon_watches_per_node"`
	// WatchEvents: events the tenant apiserver sent to watchers during the
	// rollout (apiserver_watch_events_total), less the bench's own node
	// watch and kwok's (which watches every node, like the bench).
	WatchEvents           int64              `json:"watch_events"`
	WatchEventsByResource map[string]float64 `json:"watch_events_by_resource"`
	BenchWatchEvents      int64              `json:"bench_watch_events"`

	// The tenant controller process: peak RSS (VmHWM) and CPU during the
	// rollout; the infra one's too.
	ControllerRSSMiB      float64 `json:"controller_rss_mib"`
	ControllerCPUS        float64 `json:"controller_cpu_s"`
	InfraControllerRSSMiB float64 `json:"infra_controller_rss_mib,omitempty"`
	InfraControllerCPUS   float64 `json:"infra_controller_cpu_s,omitempty"`
	// SimCPUS: the bench process (the simulated daemons, the bench's watch).
	SimCPUS float64 `json:"sim_cpu_s"`

	// Checks.
	MaxUnavailableSeen int      `json:"max_unavailable_seen"`
	RebootsMax         int      `json:"reboots_max_per_node"`
	RebootsMin         int      `json:"reboots_min_per_node"`
	Violations         []string `json:"violations"`
}

// Line is the figure line.
func (r Report) Line() string {
	return fmt.Sprintf("bench-scale: nodes=%d rollout_s=%.1f plan_p99_ms=%.2f writes_per_node=%.2f watch_events=%d controller_rss_mib=%.1f controller_cpu_s=%.1f",
		r.Nodes, r.RolloutS, r.PlanP99Ms, r.WritesPerNode, r.WatchEvents, r.ControllerRSSMiB, r.ControllerCPUS)
}

// DetailLines explain the figure line.
func (r Report) DetailLines() []string {
	lines := []string{
		fmt.Sprintf("bench-scale: nodes=%d dpus=%d max_unavailable=%d stage_s=%.0f reboot_s=%.0f ideal_s=%.1f rollout_ratio=%.2f grant_lag_p50_ms=%.0f grant_lag_p99_ms=%.0f plans=%d plan_p50_ms=%.2f plan_p99_bucket_ms=%.0f",
			r.Nodes, r.DPUs, r.MaxUnavailable, r.StageS, r.RebootS, r.IdealS, r.RolloutRatio, r.GrantLagP50Ms, r.GrantLagP99Ms, r.Plans, r.PlanP50Ms, r.PlanP99BoundMs),
		fmt.Sprintf("bench-scale: daemon_writes_per_node=%.2f daemon_reads_per_node=%.2f daemon_watches_per_node=%.2f max_unavailable_seen=%d reboots_per_node=%d..%d sim_cpu_s=%.1f",
			r.DaemonWritesPerNode, r.DaemonReadsPerNode, r.DaemonWatchesPerNode, r.MaxUnavailableSeen, r.RebootsMin, r.RebootsMax, r.SimCPUS),
	}
	lines = append(lines, r.Window.Line()+fmt.Sprintf(" per_wave_s=%.1f", r.PerWaveS))
	n := float64(r.Nodes)
	for _, comp := range []string{"controller", "daemon", "infra"} {
		if c := r.Tenant[comp]; c != nil {
			lines = append(lines, fmt.Sprintf("bench-scale: writes_per_node %s: %s", comp, formatCounts(c.Writes, n)))
		}
	}
	if c := r.Tenant["daemon"]; c != nil {
		lines = append(lines, fmt.Sprintf("bench-scale: reads_per_node daemon: %s", formatCounts(c.Reads, n)))
	}
	for _, comp := range []string{"controller", "daemon", "infra"} {
		if c := r.Tenant[comp]; c != nil && c.FailedWrites > 0 {
			codes := map[string]int{}
			for code, k := range c.FailedByCode {
				codes[fmt.Sprint(code)] = k
			}
			lines = append(lines, fmt.Sprintf("bench-scale: failed_writes %s: %s", comp, formatCounts(codes, 1)))
		}
	}
	return lines
}

// componentOf names the tandem component behind a tenant user.
func componentOf(user string) string {
	switch user {
	case controllerUser:
		return "controller"
	case daemonUser:
		return "daemon"
	case infraIdentity:
		return "infra"
	}
	return "other"
}

type snapshot struct {
	at       time.Time
	api      scrape
	ctrl     scrape
	ctrlUse  usage
	infraUse usage
	simCPU   float64
}

func (w *World) snap(ctx context.Context) (snapshot, error) {
	s := snapshot{at: time.Now()}
	var err error
	if s.api, err = scrapeAPIServer(ctx, w.tenant.cp.Kube); err != nil {
		return s, err
	}
	if s.ctrl, err = scrapeURL(ctx, w.tenant.metricsURL); err != nil {
		return s, err
	}
	if s.ctrlUse, err = w.tenant.controller.usage(); err != nil {
		return s, err
	}
	if w.infra != nil {
		if s.infraUse, err = w.infra.controller.usage(); err != nil {
			return s, err
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		s.simCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	return s, nil
}

// Rollout publishes a new config to the tenant worker pool (and the DPU
// pool, with InfraUpdate), waits until it is rolled out (at most timeout)
// and reports.
func (w *World) Rollout(ctx context.Context, timeout time.Duration) (Report, error) {
	o := w.opts
	maxUnavail, err := node.MaxUnavailable(ptr(o.MaxUnavailable), o.Workers)
	if err != nil {
		return Report{}, err
	}
	r := Report{Nodes: o.Workers, DPUs: o.DPUs, MaxUnavailable: maxUnavail, StageS: o.Sim.StageTime.Seconds(),
		RebootS: o.Sim.RebootTime.Seconds(), InfraUpdate: o.InfraUpdate}
	rolling := []*cluster{w.tenant}
	if o.InfraUpdate && w.infra != nil {
		rolling = append(rolling, w.infra)
	}
	trackers := map[*cluster]*tracker{}
	for _, c := range rolling {
		trackers[c] = startTracker(ctx, c)
		defer trackers[c].close()
	}
	olds := map[*cluster]string{}
	for _, c := range rolling {
		if olds[c], err = w.target(ctx, c, ""); err != nil {
			return r, err
		}
	}
	startNodes := trackers[w.tenant].snapshot()
	before, err := w.snap(ctx)
	if err != nil {
		return r, err
	}
	benchEventsBefore := trackers[w.tenant].events.Load()

	o.Logf("bench-scale: rolling out a new OS image and file to %d workers (maxUnavailable %s = %d)", o.Workers, o.MaxUnavailable, maxUnavail)
	profiled := w.startProfile(ctx)
	for _, c := range rolling {
		if err := createConfig(ctx, c, fmt.Sprintf(updateConfig, c.pool), image(c.pool+"-update"), "update.conf"); err != nil {
			return r, err
		}
	}
	targets := map[*cluster]string{}
	for _, c := range rolling {
		if targets[c], err = w.target(ctx, c, olds[c]); err != nil {
			return r, err
		}
	}
	doneAt, err := w.waitRolledOut(ctx, rolling, trackers, targets, timeout)
	if err != nil {
		return r, err
	}
	if err := profiled(); err != nil {
		return r, err
	}
	r.RolloutS = doneAt.Sub(before.at).Seconds()
	// Trailing writes (the last MachineConfigNode conditions, the pool
	// status) belong to the rollout.
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(5 * time.Second):
	}
	after, err := w.snap(ctx)
	if err != nil {
		return r, err
	}
	w.fill(&r, before, after, trackers[w.tenant], startNodes, targets[w.tenant], benchEventsBefore)
	for _, c := range w.clusters() {
		counts, err := countAudit(c.auditLog, before.at, after.at, componentOf)
		if err != nil {
			return r, err
		}
		if c == w.tenant {
			r.Tenant = counts
		} else {
			r.Infra = counts
		}
	}
	n := float64(o.Workers)
	for _, comp := range []string{"controller", "daemon", "infra"} {
		if c := r.Tenant[comp]; c != nil {
			r.WritesPerNode += float64(c.TotalWrites) / n
		}
	}
	if d := r.Tenant["daemon"]; d != nil {
		r.DaemonWritesPerNode = float64(d.TotalWrites) / n
		r.DaemonReadsPerNode = float64(d.TotalReads) / n
		r.DaemonWatchesPerNode = float64(d.Watches) / n
	}
	w.check(&r, rolling, targets)
	return r, nil
}

func ptr(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

// waitRolledOut waits until every node of the rolling clusters is done on
// its target and each pool reports all machines updated.
func (w *World) waitRolledOut(ctx context.Context, rolling []*cluster, trackers map[*cluster]*tracker, targets map[*cluster]string, timeout time.Duration) (time.Time, error) {
	var doneAt time.Time
	var last string
	start, lastLog := time.Now(), time.Now()
	defer func() { w.opts.Logf("bench-scale: %.0fs: %s", time.Since(start).Seconds(), last) }()
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if time.Since(lastLog) >= 30*time.Second && last != "" {
			w.opts.Logf("bench-scale: %.0fs: %s", time.Since(start).Seconds(), last)
			lastLog = time.Now()
		}
		all := true
		last = ""
		for _, c := range rolling {
			if dead, err := c.controller.exited(); dead {
				return false, fmt.Errorf("%s machine-config-controller exited: %v", c.name, err)
			}
			if err := c.fleet.failures(); err != nil {
				return false, err
			}
			done := 0
			for _, s := range trackers[c].snapshot() {
				if s.doneAt(targets[c]) {
					done++
				}
			}
			p, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, c.pool, metav1.GetOptions{})
			if err != nil {
				all = false
				continue
			}
			st := p.Status
			last += fmt.Sprintf("%s: %d/%d nodes done; pool updated=%d unavailable=%d degraded=%d; ",
				c.name, done, len(c.nodes), st.UpdatedMachineCount, st.UnavailableMachineCount, st.DegradedMachineCount)
			if st.DegradedMachineCount > 0 {
				// The simulated machines never fail: a Degraded node is a
				// broken bench or product, and the rollout would wait its
				// whole bound for nothing.
				return false, fmt.Errorf("%s: %d nodes degraded: %s", c.name, st.DegradedMachineCount, degradedMessage(st.Conditions))
			}
			if done != len(c.nodes) || st.UpdatedMachineCount != int32(len(c.nodes)) || st.Configuration.Name != targets[c] {
				all = false
			}
		}
		if all && doneAt.IsZero() {
			doneAt = time.Now()
		}
		return all, nil
	})
	if err != nil && wait.Interrupted(err) {
		return doneAt, fmt.Errorf("rollout not finished after %s (last: %s): %w", timeout, last, err)
	}
	if err != nil {
		return doneAt, fmt.Errorf("rollout failed (last: %s): %w", last, err)
	}
	return doneAt, nil
}

func (w *World) fill(r *Report, before, after snapshot, t *tracker, startNodes map[string]nodeSnap, target string, benchEventsBefore int64) {
	waves := math.Ceil(float64(r.Nodes) / float64(r.MaxUnavailable))
	r.IdealS = r.StageS + waves*r.RebootS
	if r.IdealS > 0 {
		r.RolloutRatio = r.RolloutS / r.IdealS
	}
	if waves > 0 {
		r.PerWaveS = (r.RolloutS - r.StageS) / waves
	}
	h := after.ctrl.histogramOf("tandem_mcc_plan_duration_seconds", map[string]string{"pool": w.tenant.pool}).
		minus(before.ctrl.histogramOf("tandem_mcc_plan_duration_seconds", map[string]string{"pool": w.tenant.pool}))
	r.Plans = int(h.total())
	p50, _ := h.quantile(0.5)
	p99, bound := h.quantile(0.99)
	r.PlanP50Ms, r.PlanP99Ms, r.PlanP99BoundMs = finite(p50*1000), finite(p99*1000), finite(bound*1000)
	r.ControllerRSSMiB = float64(after.ctrlUse.PeakRSS) / (1 << 20)
	r.ControllerCPUS = after.ctrlUse.CPUSeconds - before.ctrlUse.CPUSeconds
	if w.infra != nil {
		r.InfraControllerRSSMiB = float64(after.infraUse.PeakRSS) / (1 << 20)
		r.InfraControllerCPUS = after.infraUse.CPUSeconds - before.infraUse.CPUSeconds
	}
	r.SimCPUS = after.simCPU - before.simCPU
	r.WatchEventsByResource = minusMap(after.api.watchEvents(), before.api.watchEvents())
	r.BenchWatchEvents = t.events.Load() - benchEventsBefore
	var total float64
	for _, v := range r.WatchEventsByResource {
		total += v
	}
	// kwok watches every node as the bench's tracker does: the same events.
	r.WatchEvents = int64(total) - 2*r.BenchWatchEvents
	facts := analyse(t.timeline(before.at), startNodes, target)
	r.MaxUnavailableSeen = facts.MaxUnavailableSeen
	r.GrantLags = len(facts.GrantLags)
	r.GrantLagP50Ms = percentile(facts.GrantLags, 0.5).Seconds() * 1000
	r.GrantLagP99Ms = percentile(facts.GrantLags, 0.99).Seconds() * 1000
	r.Window = windowReport(facts.Windows)
}

// finite keeps JSON encodable: -1 stands for +Inf (above the last bucket)
// and for no sample at all.
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return -1
	}
	return x
}

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

// check records what went wrong: maxUnavailable exceeded, a node rebooted
// other than once, a node not booted on the new image.
func (w *World) check(r *Report, rolling []*cluster, targets map[*cluster]string) {
	r.Violations = []string{}
	if r.MaxUnavailableSeen > r.MaxUnavailable {
		r.Violations = append(r.Violations, fmt.Sprintf("maxUnavailable %d exceeded: %d nodes unavailable at once", r.MaxUnavailable, r.MaxUnavailableSeen))
	}
	r.RebootsMin = math.MaxInt
	for _, c := range rolling {
		want := image(c.pool + "-update")
		booted := c.fleet.bootedImages()
		for name, n := range c.fleet.reboots() {
			if c == w.tenant {
				r.RebootsMin, r.RebootsMax = min(r.RebootsMin, n), max(r.RebootsMax, n)
			}
			if n != 1 {
				r.Violations = append(r.Violations, fmt.Sprintf("%s rebooted %d times", name, n))
			}
			if booted[name] != want {
				r.Violations = append(r.Violations, fmt.Sprintf("%s booted %s, want %s", name, booted[name], want))
			}
		}
	}
	if len(r.Violations) > 20 {
		r.Violations = append(r.Violations[:20], fmt.Sprintf("... and %d more", len(r.Violations)-20))
	}
}

// degradedMessage is the pool's NodeDegraded message (each degraded node's
// reason), cut to a line's worth.
func degradedMessage(conds []mcfgv1.MachineConfigPoolCondition) string {
	c := node.FindCondition(conds, mcfgv1.MachineConfigPoolNodeDegraded)
	switch {
	case c == nil:
		return "(no NodeDegraded condition yet)"
	case len(c.Message) > 600:
		return c.Message[:600] + "..."
	}
	return c.Message
}
