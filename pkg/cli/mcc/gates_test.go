package mcc

import (
	"flag"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tandem-mco/tandem/pkg/controller/node"
)

// TestGateFlags parses the gate flags as the command line does and checks
// which gates they make, and that bad values are refused with a clear error.
func TestGateFlags(t *testing.T) {
	cases := []struct {
		args    []string
		gates   []string
		wantErr string
	}{
		{args: nil},
		{args: []string{"--blocking-pod-selector=app=db", "--blocking-pod-selector=batch in (nightly)"}, gates: []string{"BlockingPods"}},
		{args: []string{"--prometheus-url=http://127.0.0.1:9090", "--alert-filter-regexp=^Watchdog$", "--alert-firing-only"}, gates: []string{"PrometheusAlerts"}},
		{args: []string{"--blocking-pod-selector=app in (", "--prometheus-url=http://p"}, wantErr: "--blocking-pod-selector"},
		{args: []string{"--blocking-pod-selector="}, wantErr: "selects every pod"},
		{args: []string{"--prometheus-url=http://p", "--alert-filter-regexp=("}, wantErr: "--alert-filter-regexp"},
		{args: []string{"--prometheus-url=http://p", "--alert-filter-match-only"}, wantErr: "needs --alert-filter-regexp"},
		{args: []string{"--prometheus-bearer-token-file=/var/run/secrets/kubernetes.io/serviceaccount/token"}, wantErr: "need --prometheus-url"},
		{args: []string{"--prometheus-url=https://p", "--prometheus-ca-file=/nonexistent/service-ca.crt"}, wantErr: "--prometheus-ca-file"},
	}
	for _, c := range cases {
		var g gateFlags
		fs := flag.NewFlagSet("mcc", flag.ContinueOnError)
		g.bind(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		// A client that is never started: setup only registers an index.
		kube := kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://127.0.0.1:1"})
		pods := informers.NewSharedInformerFactory(kube, 0).Core().V1().Pods()
		gates, _, err := g.setup(pods)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: err %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		var names []string
		for _, gt := range gates {
			names = append(names, gt.Name())
		}
		if strings.Join(names, ",") != strings.Join(c.gates, ",") {
			t.Errorf("%v: gates %v, want %v", c.args, names, c.gates)
		}
		for _, gt := range gates {
			if ag, ok := gt.(*node.AlertGate); ok && (!ag.FiringOnly || ag.Filter == nil) {
				t.Errorf("%v: alert gate options not applied: %+v", c.args, ag)
			}
		}
	}
}
