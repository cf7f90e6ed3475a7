package monitoring_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/manifests/internal/mcosrc"
	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/metrics"
)

// promRule is the part of a monitoring.coreos.com/v1 PrometheusRule that
// Prometheus reads: its spec is a Prometheus rule file.
type promRule struct {
	Kind     string                `json:"kind"`
	Metadata struct{ Name string } `json:"metadata"`
	Spec     map[string]any        `json:"spec"`
}

// mcoRules is the MCO's alert rules file in its repository. The MCO ships
// it (the CVO applies it from the release payload); tandem keeps no copy
// (kustomization.yaml) and reads it from the pinned checkout.
const mcoRules = "install/0000_90_machine-config_01_prometheus-rules.yaml"

// ruleFile is a file of PrometheusRules: its path and how messages name it.
type ruleFile struct{ path, name string }

// ruleFiles are tandem's prometheusrule*.yaml in this directory and the
// MCO's rules file at the commit fork/mco.env pins. Without the checkout
// the tests fail, saying how to get it (mcosrc.Locate).
func ruleFiles(t *testing.T) []ruleFile {
	t.Helper()
	own, err := filepath.Glob("prometheusrule*.yaml")
	if err != nil || len(own) == 0 {
		t.Fatalf("no PrometheusRule files: %v", err)
	}
	src, err := mcosrc.Locate()
	if err != nil {
		t.Fatalf("the MCO's alerts: %v", err)
	}
	files := []ruleFile{{src.Path(mcoRules), src.Cite(mcoRules)}}
	for _, f := range own {
		files = append(files, ruleFile{f, f})
	}
	return files
}

// loadRuleGroups parses every PrometheusRule of ruleFiles with Prometheus'
// own rule file parser (which also parses each expression).
func loadRuleGroups(t *testing.T) map[string][]rulefmt.RuleGroup {
	t.Helper()
	out := map[string][]rulefmt.RuleGroup{}
	for _, rf := range ruleFiles(t) {
		f := rf.name
		b, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("\n---")) {
			var pr promRule
			if err := yaml.Unmarshal(doc, &pr); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			if pr.Kind != "PrometheusRule" {
				t.Fatalf("%s document %d: kind %q, want PrometheusRule", f, i, pr.Kind)
			}
			spec, err := yaml.Marshal(pr.Spec)
			if err != nil {
				t.Fatal(err)
			}
			groups, errs := rulefmt.Parse(spec, false, model.UTF8Validation)
			if len(errs) > 0 {
				t.Fatalf("%s (%s): Prometheus rejects the rules: %v", f, pr.Metadata.Name, errs)
			}
			out[f+" ("+pr.Metadata.Name+")"] = groups.Groups
		}
	}
	return out
}

// check is one look at an alert: at this time after the first sample, is
// an alert with (at least) these labels firing?
type check struct {
	at     time.Duration
	firing bool
	labels map[string]string
}

// alertCase feeds recorded series (promqltest's load syntax, samples from
// time 0) to one alert and looks at it.
type alertCase struct {
	load   string
	checks []check
}

const ns = `namespace="openshift-machine-config-operator"`

// cases hold, per alert, series as Prometheus stores them after scraping
// through the ServiceMonitors (the target's node label from the pod; a
// metric's own node label becomes exported_node), and when the alert must
// and must not fire. They are written from each rule's documented meaning
// (its summary and the MCO runbooks), not from the expression. Every alert
// of the MCO's rules file at the pinned commit has a case (TestAlertRules
// fails on one without), so a new MCO alert on tandem's series, or one
// that no longer fires on them, shows up when fork/mco.env moves.
var cases = map[string]alertCase{
	"MCCDrainError": {
		load: `load 1m
			mcc_drain_err{exported_node="worker-1", node="master-0", ` + ns + `} 0 0 1 1`,
		checks: []check{{1 * time.Minute, false, nil}, {2 * time.Minute, true, map[string]string{"exported_node": "worker-1", "severity": "warning"}}},
	},
	"MCCPoolAlert": {
		load: `load 1m
			mcc_pool_alert{exported_node="master-2", node="master-0", ` + ns + `} 0 1 1`,
		checks: []check{{0, false, nil}, {1 * time.Minute, true, map[string]string{"exported_node": "master-2"}}},
	},
	"MCDRebootError": { // for: 5m
		load: `load 1m
			mcd_reboots_failed_total{node="worker-2", pod="machine-config-daemon-abc", ` + ns + `} 0 0 1+0x20`,
		checks: []check{{6 * time.Minute, false, nil}, {7 * time.Minute, true, map[string]string{"node": "worker-2", "pod": "machine-config-daemon-abc", "severity": "critical"}}},
	},
	"MCDPivotError": { // for: 2m
		load: `load 1m
			mcd_pivot_errors_total{node="worker-3", pod="machine-config-daemon-def", ` + ns + `} 0 1 1 1 1 0 0 0`,
		checks: []check{{2 * time.Minute, false, nil}, {3 * time.Minute, true, map[string]string{"node": "worker-3"}}, {6 * time.Minute, false, nil}},
	},
	"KubeletHealthState": { // more than 2 consecutive failures
		load: `load 1m
			mcd_kubelet_state{node="worker-4", ` + ns + `} 0 1 2 3 0`,
		checks: []check{{2 * time.Minute, false, nil}, {3 * time.Minute, true, map[string]string{"node": "worker-4"}}, {4 * time.Minute, false, nil}},
	},
	"SystemMemoryExceedsReservation": { // for: 15m; reserved = capacity - allocatable = 1 GiB
		load: `load 1m
			container_memory_rss{id="/system.slice", node="worker-6"} 900000000x5 1100000000x30
			kube_node_status_capacity{resource="memory", node="worker-6"} 17073741824x40
			kube_node_status_allocatable{resource="memory", node="worker-6"} 16000000000x40`,
		checks: []check{{10 * time.Minute, false, nil}, {20 * time.Minute, false, nil}, {21 * time.Minute, true, map[string]string{"node": "worker-6"}}},
	},
	"HighOverallControlPlaneMemory": { // above 60% used over all masters, for 1h
		load: `load 5m
			node_memory_MemTotal_bytes{instance="master-0"} 100x30
			node_memory_MemTotal_bytes{instance="master-1"} 100x30
			node_memory_MemFree_bytes{instance="master-0"} 10x30
			node_memory_MemFree_bytes{instance="master-1"} 50x30
			node_memory_Buffers_bytes{instance="master-0"} 0x30
			node_memory_Buffers_bytes{instance="master-1"} 0x30
			node_memory_Cached_bytes{instance="master-0"} 5x30
			node_memory_Cached_bytes{instance="master-1"} 5x30
			node_memory_MemTotal_bytes{instance="worker-0"} 100x30
			node_memory_MemFree_bytes{instance="worker-0"} 100x30
			node_memory_Buffers_bytes{instance="worker-0"} 0x30
			node_memory_Cached_bytes{instance="worker-0"} 0x30
			kube_node_role{role="master", node="master-0"} 1x30
			kube_node_role{role="master", node="master-1"} 1x30
			kube_node_role{role="worker", node="worker-0"} 1x30`,
		// masters: free+cached 70 of 200 -> 65% used (the idle worker must not dilute it)
		checks: []check{{55 * time.Minute, false, nil}, {60 * time.Minute, true, map[string]string{"severity": "warning"}}},
	},
	"ExtremelyHighIndividualControlPlaneMemory": { // one master above 90%, for 45m
		load: `load 5m
			node_memory_MemTotal_bytes{instance="master-0"} 100x20
			node_memory_MemTotal_bytes{instance="master-1"} 100x20
			node_memory_MemFree_bytes{instance="master-0"} 5x20
			node_memory_MemFree_bytes{instance="master-1"} 50x20
			node_memory_Buffers_bytes{instance="master-0"} 0x20
			node_memory_Buffers_bytes{instance="master-1"} 0x20
			node_memory_Cached_bytes{instance="master-0"} 2x20
			node_memory_Cached_bytes{instance="master-1"} 0x20
			kube_node_role{role="master", node="master-0"} 1x20
			kube_node_role{role="master", node="master-1"} 1x20`,
		checks: []check{{40 * time.Minute, false, nil}, {45 * time.Minute, true, map[string]string{"instance": "master-0", "severity": "critical"}}},
	},
	"StageStuck": { // a stage older than 1h, for 10m; a node not staging (0) never fires
		load: `load 1m
			tandem_daemon_stage_started_timestamp_seconds{node="worker-7", pod="machine-config-daemon-s", ` + ns + `} 600x200
			tandem_daemon_stage_started_timestamp_seconds{node="worker-8", pod="machine-config-daemon-t", ` + ns + `} 0x200`,
		// the stage started at 10m: older than 1h from 70m, firing from 80m
		checks: []check{{75 * time.Minute, false, nil}, {81 * time.Minute, true, map[string]string{"node": "worker-7"}}, {81 * time.Minute, false, map[string]string{"node": "worker-8"}}},
	},
	"DisruptionHeldTooLong": { // held over 1h for a reason that is not a person's choice, for 5m
		load: `load 5m
			tandem_mcc_disruption_held_seconds{pool="master", reason="EtcdMemberUnhealthy", node="master-0", ` + ns + `} 0+300x30
			tandem_mcc_disruption_held_seconds{pool="worker", reason="MaintenanceWindow", node="master-0", ` + ns + `} 0+300x30`,
		checks: []check{{60 * time.Minute, false, nil}, {70 * time.Minute, true, map[string]string{"pool": "master", "reason": "EtcdMemberUnhealthy"}},
			{120 * time.Minute, false, map[string]string{"reason": "MaintenanceWindow"}}},
	},
	"TandemEtcdLeaderOrderingOff": { // off, or on from a stale configuration, for 15m; on and sound never fires
		load: `load 5m
			tandem_mcc_etcd_leader_ordering{source="openshift", reason="EtcdObjectsNotFound", node="master-0", ` + ns + `} 0x6
			tandem_mcc_etcd_leader_ordering{source="openshift", reason="EtcdObjectsStale", node="master-1", ` + ns + `} 1x6
			tandem_mcc_etcd_leader_ordering{source="openshift", reason="EtcdObjectsDiscovered", node="master-2", ` + ns + `} 1x6`,
		checks: []check{{10 * time.Minute, false, nil}, {20 * time.Minute, true, map[string]string{"reason": "EtcdObjectsNotFound"}},
			{20 * time.Minute, true, map[string]string{"reason": "EtcdObjectsStale"}}, {25 * time.Minute, false, map[string]string{"reason": "EtcdObjectsDiscovered"}}},
	},
	"TandemSettingsInvalid": { // invalid for 5m
		load: `load 1m
			tandem_mcc_settings_invalid{node="master-0", ` + ns + `} 0 0 1x10`,
		checks: []check{{6 * time.Minute, false, nil}, {8 * time.Minute, true, nil}},
	},
	"RolloutHalted": {
		load: `load 1m
			tandem_mcc_pool_breaker_open{pool="worker", node="master-0", ` + ns + `} 0 0 1 1 0`,
		checks: []check{{1 * time.Minute, false, nil}, {2 * time.Minute, true, map[string]string{"pool": "worker", "severity": "critical"}}, {4 * time.Minute, false, nil}},
	},
	"TandemStagesFailing": { // a node of the pool failing to stage for 15m; a shorter failure never fires
		load: `load 1m
			tandem_mcc_pool_stage_failed_nodes{pool="worker", node="master-0", ` + ns + `} 0 2x20
			tandem_mcc_pool_stage_failed_nodes{pool="infra", node="master-0", ` + ns + `} 0 1x10 0x10`,
		checks: []check{{10 * time.Minute, false, nil}, {15 * time.Minute, false, map[string]string{"pool": "worker"}},
			{16 * time.Minute, true, map[string]string{"pool": "worker", "severity": "warning"}},
			{16 * time.Minute, false, map[string]string{"pool": "infra"}}},
	},
	"TenantHoldsInfraUpdate": { // overdue for 5m
		load: `load 1m
			tandem_dpu_tenant_hold_overdue{infra_node="dpu-0", tenant_node="worker-0", node="infra-master-0", ` + ns + `} 0 0 1x10`,
		checks: []check{{6 * time.Minute, false, nil}, {7 * time.Minute, true, map[string]string{"infra_node": "dpu-0", "tenant_node": "worker-0"}}},
	},
	"TandemDPUHostTainted": { // tainted for 10m; a short taint never fires
		load: `load 1m
			tandem_dpu_host_tainted{infra_node="dpu-1", tenant_node="worker-1", node="infra-master-0", ` + ns + `} 1 1 1 0 0 0 1x12`,
		checks: []check{{3 * time.Minute, false, nil}, {15 * time.Minute, false, nil}, {16 * time.Minute, true, map[string]string{"infra_node": "dpu-1", "tenant_node": "worker-1"}}},
	},
}

// evalStep is the rule evaluation interval the checks assume.
const evalStep = 30 * time.Second

// firingAt evaluates the alert like Prometheus' rule manager: every step
// the expression's result series become active (pending) if new, are
// dropped if gone, and fire once active for the rule's "for".
func firingAt(t *testing.T, st storage.Queryable, engine *promql.Engine, rule rulefmt.Rule, end time.Duration) map[time.Duration][]labels.Labels {
	t.Helper()
	hold := time.Duration(rule.For)
	activeAt := map[string]time.Duration{}
	out := map[time.Duration][]labels.Labels{}
	for ts := time.Duration(0); ts <= end; ts += evalStep {
		q, err := engine.NewInstantQuery(context.Background(), st, nil, rule.Expr, time.Unix(0, 0).Add(ts))
		if err != nil {
			t.Fatalf("%s: %v", rule.Alert, err)
		}
		res := q.Exec(context.Background())
		vec, err := res.Vector()
		if err != nil {
			t.Fatalf("%s at %s: %v", rule.Alert, ts, err)
		}
		seen := map[string]bool{}
		var firing []labels.Labels
		for _, s := range vec {
			lb := labels.NewBuilder(s.Metric).Del(labels.MetricName)
			for k, v := range rule.Labels {
				lb.Set(k, v)
			}
			l := lb.Labels()
			key := l.String()
			seen[key] = true
			if _, ok := activeAt[key]; !ok {
				activeAt[key] = ts
			}
			if ts-activeAt[key] >= hold {
				firing = append(firing, l)
			}
		}
		for k := range activeAt {
			if !seen[k] {
				delete(activeAt, k)
			}
		}
		q.Close()
		out[ts] = firing
	}
	return out
}

func TestAlertRules(t *testing.T) {
	files := loadRuleGroups(t)
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	rules, tested, narrowed, mco := 0, 0, 0, 0
	seen := map[string]bool{}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		for _, g := range files[f] {
			for _, r := range g.Rules {
				if _, err := parser.ParseExpr(r.Expr); err != nil {
					t.Errorf("%s %s%s: PromQL does not parse: %v", f, r.Alert, r.Record, err)
				}
				if r.Alert == "" {
					continue
				}
				rules++
				if strings.Contains(f, mcoRules) {
					mco++
				}
				if seen[r.Alert] {
					t.Errorf("alert %s defined twice", r.Alert)
				}
				seen[r.Alert] = true
				c, ok := cases[r.Alert]
				if !ok {
					t.Errorf("%s: alert %s has no test case", f, r.Alert)
					continue
				}
				// tested counts the cases that ran and passed: t.Run
				// reports a case that -run filtered out as passed.
				ran := false
				ok = t.Run(r.Alert, func(t *testing.T) {
					ran = true
					for _, m := range caseMismatches(t, engine, r, c) {
						t.Error(m)
					}
				})
				switch {
				case !ran:
					narrowed++
				case ok:
					tested++
				}
			}
		}
	}
	for name := range cases {
		if !seen[name] {
			t.Errorf("test case for %s, which no rule defines", name)
		}
	}
	if mco == 0 {
		t.Errorf("no alerts read from the MCO's %s", mcoRules)
	}
	line := fmt.Sprintf("alerts: rules=%d mco=%d tested=%d", rules, mco, tested)
	if narrowed > 0 {
		line += fmt.Sprintf(" narrowed=%d", narrowed)
	}
	fmt.Println(line)
}

// caseMismatches runs one alert's case and says, per check, where the
// alert's firing differs from what the case wants.
func caseMismatches(t *testing.T, engine *promql.Engine, r rulefmt.Rule, c alertCase) []string {
	t.Helper()
	st := loadSeries(t, c.load)
	end := time.Duration(0)
	for _, ch := range c.checks {
		end = max(end, ch.at)
	}
	byTime := firingAt(t, st, engine, r, end)
	var out []string
	for _, ch := range c.checks {
		firing, ok := byTime[ch.at]
		if !ok {
			out = append(out, fmt.Sprintf("check at %s is not on the %s evaluation grid", ch.at, evalStep))
			continue
		}
		match := slices.ContainsFunc(firing, func(l labels.Labels) bool {
			for k, v := range ch.labels {
				if l.Get(k) != v {
					return false
				}
			}
			return true
		})
		if match != ch.firing {
			out = append(out, fmt.Sprintf("at %s: firing %v with labels %v = %v; firing alerts: %v", ch.at, ch.firing, ch.labels, match, firing))
		}
	}
	return out
}

// TestAlertCasesCanFail: every case disagrees with its rule once each
// check wants the opposite, so "tested" (the cases that passed) means
// something.
func TestAlertCasesCanFail(t *testing.T) {
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	for _, groups := range loadRuleGroups(t) {
		for _, g := range groups {
			for _, r := range g.Rules {
				c, ok := cases[r.Alert]
				if r.Alert == "" || !ok {
					continue
				}
				flipped := alertCase{load: c.load}
				for _, ch := range c.checks {
					ch.firing = !ch.firing
					flipped.checks = append(flipped.checks, ch)
				}
				if got := caseMismatches(t, engine, r, flipped); len(got) != len(flipped.checks) {
					t.Errorf("%s: with every check flipped, %d of %d checks disagree: %v", r.Alert, len(got), len(flipped.checks), got)
				}
			}
		}
	}
}

// notExportedByTandem are series the rules read that come from elsewhere.
var notExportedByTandem = map[string]string{
	"container_memory_rss":           "cAdvisor (kubelet)",
	"kube_node_status_capacity":      "kube-state-metrics",
	"kube_node_status_allocatable":   "kube-state-metrics",
	"kube_node_role":                 "kube-state-metrics",
	"node_memory_MemFree_bytes":      "node-exporter",
	"node_memory_MemTotal_bytes":     "node-exporter",
	"node_memory_Buffers_bytes":      "node-exporter",
	"node_memory_Cached_bytes":       "node-exporter",
	"os_image_url_override":          "not exported by tandem yet (MCO render controller; read only by the recording rule os_image_url_override:sum)",
	"tandem_dpu_tenant_hold_overdue": "pkg/controller/dpu infra metrics (unexported constructor; checked by its TestPrometheusRules)",
	"tandem_dpu_host_tainted":        "pkg/controller/dpu infra metrics (unexported constructor; checked by its TestPrometheusRules)",
}

// descRegistry records the names of the metrics registered with it.
type descRegistry struct{ names map[string]bool }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *descRegistry) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
	return nil
}
func (r *descRegistry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = r.Register(c)
	}
}
func (r *descRegistry) Unregister(prometheus.Collector) bool { return false }

// TestRulesReadSeriesTandemExports: every series an alert reads is one the
// daemon, the node controller (pkg/metrics and node.StageMetrics) or the drain controller registers (by its
// exact name), or is listed above with where it comes from.
func TestRulesReadSeriesTandemExports(t *testing.T) {
	reg := &descRegistry{names: map[string]bool{}}
	metrics.NewDaemon(reg)
	metrics.NewController(reg)
	metrics.NewEtcdOrdering(reg)
	metrics.NewSettingsInvalid(reg)
	node.NewStageMetrics(reg)
	if _, err := drain.NewMetrics(reg); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, groups := range loadRuleGroups(t) {
		for _, g := range groups {
			for _, r := range g.Rules {
				expr, err := parser.ParseExpr(r.Expr)
				if err != nil {
					t.Fatal(err)
				}
				parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
					if vs, ok := n.(*parser.VectorSelector); ok && !reg.names[vs.Name] {
						if _, elsewhere := notExportedByTandem[vs.Name]; !elsewhere {
							missing = append(missing, fmt.Sprintf("%s (in %s%s)", vs.Name, r.Alert, r.Record))
						}
					}
					return nil
				})
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("rules read series nothing exports: %s", strings.Join(missing, ", "))
	}
}
