package dpu

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"
)

// TestPrometheusRules checks manifests/monitoring/tandem-dpu-rules.yaml
// against the metrics the controllers export: every series an alert reads
// exists, with the labels the alert groups by and prints. (The expressions
// themselves are PromQL for a Prometheus; this checks they name what we
// export, which is what breaks when code and rules drift apart.)
func TestPrometheusRules(t *testing.T) {
	raw, err := os.ReadFile("../../../manifests/monitoring/tandem-dpu-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Alert       string            `json:"alert"`
					Expr        string            `json:"expr"`
					For         string            `json:"for"`
					Labels      map[string]string `json:"labels"`
					Annotations map[string]string `json:"annotations"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(raw, &rule); err != nil {
		t.Fatal(err)
	}
	if rule.APIVersion != "monitoring.coreos.com/v1" || rule.Kind != "PrometheusRule" {
		t.Fatalf("%s %s, want monitoring.coreos.com/v1 PrometheusRule", rule.APIVersion, rule.Kind)
	}

	// What the controllers export, with one sample each so Gather lists them.
	reg := prometheus.NewRegistry()
	im, err := newInfraMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	im.holdSeconds.WithLabelValues("dpu-0", "host-0").Set(1)
	im.holdOverdue.WithLabelValues("dpu-0", "host-0").Set(1)
	im.hostTainted.WithLabelValues("dpu-0", "host-0").Set(1)
	im.requests.WithLabelValues("Drain").Inc()
	tm, err := newTenantMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	tm.requests.WithLabelValues("Drain", "Pending").Set(1)
	tm.reboots.WithLabelValues("true").Inc()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	labelsOf := map[string][]string{}
	for _, f := range families {
		for _, l := range f.GetMetric()[0].GetLabel() {
			labelsOf[f.GetName()] = append(labelsOf[f.GetName()], l.GetName())
		}
	}

	series := regexp.MustCompile(`\btandem_[a-z_]+\b`)
	by := regexp.MustCompile(`by \(([^)]*)\)`)
	printed := regexp.MustCompile(`\$labels\.([a-z_]+)`)
	alerts := 0
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			alerts++
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("rule %+v: needs alert, expr, a severity, a summary and a description", r)
			}
			names := series.FindAllString(r.Expr, -1)
			if len(names) == 0 {
				t.Errorf("%s: expr %q reads no tandem series", r.Alert, r.Expr)
			}
			var want []string
			for _, m := range by.FindAllStringSubmatch(r.Expr, -1) {
				for _, l := range strings.Split(m[1], ",") {
					want = append(want, strings.TrimSpace(l))
				}
			}
			for _, m := range printed.FindAllStringSubmatch(r.Annotations["description"], -1) {
				want = append(want, m[1])
			}
			for _, name := range names {
				have, ok := labelsOf[name]
				if !ok {
					t.Errorf("%s: reads %s, which no controller exports", r.Alert, name)
					continue
				}
				for _, l := range want {
					if !slices.Contains(have, l) {
						t.Errorf("%s: uses label %s, which %s does not have (it has %v)", r.Alert, l, name, have)
					}
				}
			}
		}
	}
	if alerts < 2 {
		t.Errorf("%d alerts, want the overdue hold and the tainted host", alerts)
	}
}
