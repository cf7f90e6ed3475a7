package mcc

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// mcoArgs is the command line the MCO's operator gives the controller
// (manifests/machineconfigcontroller/deployment.yaml, release-4.21).
var mcoArgs = []string{"--resourcelock-namespace=openshift-machine-config-operator", "--v=2", "--payload-version=4.21.0",
	"--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "--tls-min-version=VersionTLS12"}

// parsed is the start command's options after parsing args, as RunE sees them.
func parsed(t *testing.T, args ...string) options {
	t.Helper()
	root := New(nil)
	cmd, rest, err := root.Find(append([]string{"start"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	var o options
	var payload, templates string
	o.templates, o.payloadVersion = &templates, &payload
	c := &cobra.Command{Use: "start"}
	c.PersistentFlags().AddFlagSet(cmd.InheritedFlags()) // --v, --payload-version
	o.bindMCO(c)
	o.bindTandem(c.PersistentFlags())
	if err := c.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	o.cli = c.Flags()
	return o
}

func TestSettingsConfigMap(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string // beyond mcoArgs
		data       map[string]string
		errKeys    []string // the settings the error names; nil: valid
		errHas     string
		overridden []string
		check      func(t *testing.T, o options)
	}{
		{name: "a tenant cluster's settings on OpenShift",
			data: map[string]string{
				"dpu-tenant":                   "true",
				"blocking-pod-selector":        "app=db\n\nbatch.example.com/critical in (yes)\n",
				"prometheus-url":               "https://thanos-querier.openshift-monitoring.svc:9091",
				"prometheus-bearer-token-file": "/var/run/secrets/kubernetes.io/serviceaccount/token",
				"prometheus-ca-file":           "/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt",
				"alert-filter-regexp":          "^(Watchdog|AlertmanagerReceiversNotConfigured)$",
				"node-update-delay":            "2s",
			},
			check: func(t *testing.T, o options) {
				if !o.dpu.Tenant || o.updateDelay != 2*time.Second || o.gates.prometheusURL == "" || o.gates.alertFilter == "" {
					t.Errorf("settings not applied: %+v", o)
				}
				if !slices.Equal(o.gates.blockingPodSelectors, []string{"app=db", "batch.example.com/critical in (yes)"}) {
					t.Errorf("blocking pod selectors = %q, want one per line", o.gates.blockingPodSelectors)
				}
			}},
		{name: "an infra cluster's settings",
			data: map[string]string{"dpu-tenant-kubeconfig-secret": "tenant-kubeconfig", "dpu-mode": "external", "dpu-required-daemonsets": "openshift-ovn-kubernetes/ovnkube-node"},
			check: func(t *testing.T, o options) {
				if o.dpu.TenantKubeconfigSecret != "tenant-kubeconfig" || o.dpu.Mode != "external" {
					t.Errorf("settings not applied: %+v", o.dpu)
				}
			}},
		{name: "etcd given by the ConfigMap", data: map[string]string{"etcd-endpoints": "https://10.0.0.5:2379,https://10.0.0.6:2379"},
			check: func(t *testing.T, o options) {
				if len(o.etcd.Endpoints) != 2 {
					t.Errorf("etcd endpoints = %v", o.etcd.Endpoints)
				}
			}},
		{name: "the command line overrides a key", args: []string{"--workers=2", "--blocking-pod-selector=app=web"},
			data:       map[string]string{"workers": "9", "drain-workers": "8", "blocking-pod-selector": "app=db"},
			overridden: []string{"blocking-pod-selector", "workers"},
			check: func(t *testing.T, o options) {
				if o.workers != 2 || o.drainWorkers != 8 || !slices.Equal(o.gates.blockingPodSelectors, []string{"app=web"}) {
					t.Errorf("workers=%d drainWorkers=%d selectors=%q; want the flag's 2, the ConfigMap's 8, the flag's app=web",
						o.workers, o.drainWorkers, o.gates.blockingPodSelectors)
				}
			}},
		{name: "a misspelt key", data: map[string]string{"dpu-tennant": "true", "workers": "3"}, errKeys: []string{"dpu-tennant"}, errHas: "not one of tandem's settings"},
		{name: "the MCO's own flag", data: map[string]string{"resourcelock-namespace": "x"}, errKeys: []string{"resourcelock-namespace"}, errHas: "the MCO's own flag"},
		{name: "where the settings are is the command line's", data: map[string]string{settingsFlag: "other"}, errKeys: []string{settingsFlag}},
		{name: "not a bool", data: map[string]string{"dpu-tenant": "yes please"}, errKeys: []string{"dpu-tenant"}, errHas: `invalid argument "yes please"`},
		{name: "not a duration", data: map[string]string{"dpu-hold-threshold": "1 hour"}, errKeys: []string{"dpu-hold-threshold"}},
		{name: "a value no flag parser refuses but the controller would", data: map[string]string{"dpu-mode": "lead"}, errKeys: []string{"dpu-mode"}, errHas: "want leader or external"},
		{name: "two bad keys, both named, the good one not applied",
			data:    map[string]string{"dpu-mode": "lead", "alert-filter-regexp": "([", "workers": "7"},
			errKeys: []string{"dpu-mode", "alert-filter-regexp"}},
		{name: "a key that needs another", data: map[string]string{"prometheus-ca-file": "/ca.crt"}, errKeys: []string{"prometheus-ca-file"}, errHas: "needs --prometheus-url"},
		{name: "a selector that selects every pod", data: map[string]string{"blocking-pod-selector": "app=db\n \n"},
			check: func(t *testing.T, o options) {
				if len(o.gates.blockingPodSelectors) != 1 {
					t.Errorf("blank lines made selectors: %q", o.gates.blockingPodSelectors)
				}
			}},
		{name: "a bad selector", data: map[string]string{"blocking-pod-selector": "app==="}, errKeys: []string{"blocking-pod-selector"}},
		{name: "lease durations client-go refuses", data: map[string]string{"leader-elect-lease-duration": "10s"},
			errKeys: []string{"leader-elect-lease-duration"}, errHas: "longer than --leader-elect-renew-deadline"},
		{name: "a kubeconfig file and a Secret", args: []string{"--dpu-tenant-kubeconfig=/k"}, data: map[string]string{"dpu-tenant-kubeconfig-secret": "s"},
			errKeys: []string{"dpu-tenant-kubeconfig-secret"}},
		{name: "no keys", data: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parsed(t, append(slices.Clone(mcoArgs), tc.args...)...)
			before := o.clone()
			got, rep, err := o.withSettings(tc.data)
			if tc.errKeys != nil {
				if err == nil {
					t.Fatalf("accepted %v", tc.data)
				}
				names := flagerr.Names(err)
				slices.Sort(names)
				want := slices.Sorted(slices.Values(tc.errKeys))
				if !slices.Equal(names, want) {
					t.Errorf("error names %q, want %q: %v", names, want, err)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("error %q lacks %q", err, tc.errHas)
				}
				msg := describeSettingsError("ns/cm", tc.data, err)
				for _, k := range tc.errKeys {
					if !strings.Contains(msg, `key "`+k+`"`) {
						t.Errorf("message %q does not name key %q", msg, k)
					}
				}
				if got.workers != before.workers || got.dpu != before.dpu || !slices.Equal(got.gates.blockingPodSelectors, before.gates.blockingPodSelectors) {
					t.Errorf("a refused ConfigMap changed the settings")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.overridden, tc.overridden) {
				t.Errorf("overridden = %v, want %v", rep.overridden, tc.overridden)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
			// o itself is untouched: the merge works on a copy.
			if !slices.Equal(o.gates.blockingPodSelectors, before.gates.blockingPodSelectors) || o.workers != before.workers || o.dpu != before.dpu {
				t.Errorf("withSettings changed its receiver")
			}
		})
	}
}

// A flag the command line got wrong is the command line's error, reported
// at start (run), not blamed on the ConfigMap.
func TestFlagsAloneAreValidated(t *testing.T) {
	o := parsed(t, append(slices.Clone(mcoArgs), "--dpu-mode=lead")...)
	if err := o.validate(); err == nil || !slices.Equal(flagerr.Names(err), []string{"dpu-mode"}) {
		t.Fatalf("validate = %v, want an error naming dpu-mode", err)
	}
	if err := parsed(t, mcoArgs...).validate(); err != nil {
		t.Fatalf("the MCO's own command line is invalid: %v", err)
	}
}
