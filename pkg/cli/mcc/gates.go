package mcc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// gateFlags are the cluster-wide disruption gates, named as kured names
// them (kubereboot/kured 1.23.0 cmd/kured flags). Maintenance windows and
// holds are pool and node annotations, not flags.
type gateFlags struct {
	blockingPodSelectors stringList
	prometheusURL        string
	prometheusTokenFile  string
	prometheusCAFile     string
	alertFilter          string
	alertFilterMatchOnly bool
	alertFiringOnly      bool
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// Type makes the list a pflag.Value of its own (pflag then keeps it instead
// of wrapping it): the ConfigMap reader recognizes repeatable settings by
// it and takes one value per line.
func (l *stringList) Type() string { return repeatableType }

const repeatableType = "stringList"

// validate checks the gate flags without I/O; errors name their flag.
func (g *gateFlags) validate() error {
	var errs []error
	for _, s := range g.blockingPodSelectors {
		sel, err := labels.Parse(s)
		switch {
		case err != nil:
			errs = append(errs, flagerr.New("blocking-pod-selector", "%q: %v", s, err))
		case sel.Empty():
			errs = append(errs, flagerr.New("blocking-pod-selector", "%q selects every pod", s))
		}
	}
	if g.prometheusURL != "" {
		if u, err := url.Parse(g.prometheusURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, flagerr.New("prometheus-url", "%q is not an http:// or https:// URL", g.prometheusURL))
		}
	} else {
		for name, v := range map[string]string{"prometheus-bearer-token-file": g.prometheusTokenFile, "prometheus-ca-file": g.prometheusCAFile} {
			if v != "" {
				errs = append(errs, flagerr.New(name, "needs --prometheus-url"))
			}
		}
	}
	if _, err := regexp.Compile(g.alertFilter); err != nil {
		errs = append(errs, flagerr.New("alert-filter-regexp", "%v", err))
	}
	if g.alertFilterMatchOnly && g.alertFilter == "" {
		errs = append(errs, flagerr.New("alert-filter-match-only", "needs --alert-filter-regexp"))
	}
	return errors.Join(errs...)
}

func (g *gateFlags) bind(fs *flag.FlagSet) {
	fs.Var(&g.blockingPodSelectors, "blocking-pod-selector",
		"label selector of pods that hold a node's disruption while they run on it (repeatable; kured semantics)")
	fs.StringVar(&g.prometheusURL, "prometheus-url", "", "Prometheus to ask for active alerts (the ALERTS series); while any blocks, no disruption is granted; empty disables")
	fs.StringVar(&g.prometheusTokenFile, "prometheus-bearer-token-file", "", "bearer token sent to --prometheus-url, re-read as it rotates (on OpenShift: the service account token, for thanos-querier)")
	fs.StringVar(&g.prometheusCAFile, "prometheus-ca-file", "", "CA bundle that verifies --prometheus-url's TLS certificate (on OpenShift: the service CA)")
	fs.StringVar(&g.alertFilter, "alert-filter-regexp", "", "alerts whose name matches are ignored (with --alert-filter-match-only: only they block)")
	fs.BoolVar(&g.alertFilterMatchOnly, "alert-filter-match-only", false, "only alerts matching --alert-filter-regexp block")
	fs.BoolVar(&g.alertFiringOnly, "alert-firing-only", false, "only firing alerts block, not pending ones")
}

// setup builds the gates; the pod informer must be started afterwards.
func (g *gateFlags) setup(pods coreinformers.PodInformer) ([]node.DisruptionGate, []func(context.Context) error, error) {
	var gates []node.DisruptionGate
	var runs []func(context.Context) error
	if len(g.blockingPodSelectors) > 0 {
		bg, err := node.NewBlockingPodGate(g.blockingPodSelectors, pods)
		if err != nil {
			return nil, nil, fmt.Errorf("--blocking-pod-selector: %w", err)
		}
		gates = append(gates, bg)
		klog.InfoS("Blocking pods hold disruption", "selectors", g.blockingPodSelectors)
	}
	if g.prometheusURL == "" && (g.prometheusTokenFile != "" || g.prometheusCAFile != "") {
		return nil, nil, fmt.Errorf("--prometheus-bearer-token-file and --prometheus-ca-file need --prometheus-url")
	}
	if g.prometheusURL != "" {
		rt, err := node.PrometheusTransport(g.prometheusTokenFile, g.prometheusCAFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--prometheus-bearer-token-file/--prometheus-ca-file: %w", err)
		}
		ag := &node.AlertGate{URL: g.prometheusURL, FilterMatchOnly: g.alertFilterMatchOnly, FiringOnly: g.alertFiringOnly, RoundTripper: rt}
		if g.alertFilter != "" {
			re, err := regexp.Compile(g.alertFilter)
			if err != nil {
				return nil, nil, fmt.Errorf("--alert-filter-regexp: %w", err)
			}
			ag.Filter = re
		} else if g.alertFilterMatchOnly {
			return nil, nil, fmt.Errorf("--alert-filter-match-only needs --alert-filter-regexp")
		}
		gates = append(gates, ag)
		runs = append(runs, ag.Run)
		klog.InfoS("Active Prometheus alerts hold disruption", "url", g.prometheusURL, "filter", g.alertFilter)
	}
	return gates, runs, nil
}
