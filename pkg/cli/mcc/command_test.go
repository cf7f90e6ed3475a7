package mcc

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The operator's Deployment args at release-4.21
// (manifests/machineconfigcontroller/deployment.yaml) and the installer's
// bootstrap invocation parse.
func TestTheMCOsCommandLinesParse(t *testing.T) {
	for _, args := range [][]string{
		{"start", "--resourcelock-namespace=openshift-machine-config-operator", "--v=2", "--payload-version=4.21.0",
			"--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "--tls-min-version=VersionTLS12"},
		{"bootstrap", "--templates=/etc/mcc/templates", "--manifest-dir=/assets/manifests", "--dest-dir=/assets/mcc", "--pull-secret=/assets/pull.json"},
	} {
		cmd, rest, err := New(nil).Find(args)
		if err != nil || cmd.Name() != args[0] {
			t.Fatalf("Find(%v) = %v, %v", args, cmd, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

func TestBootstrapWithoutTheMCOIsRefused(t *testing.T) {
	root := New(nil)
	root.SetArgs([]string{"bootstrap", "--manifest-dir=/a", "--dest-dir=/b"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "make mco-image") {
		t.Fatalf("err = %v, want a refusal naming the MCO image build", err)
	}
}

func TestFirstFamilyWins(t *testing.T) {
	mk := func(help string, v float64) *prometheus.Registry {
		r := prometheus.NewRegistry()
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mcc_x", Help: help})
		g.Set(v)
		r.MustRegister(g)
		return r
	}
	extra := prometheus.NewRegistry()
	extra.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "a_only_upstream", Help: "u"}))
	fams, err := firstFamilyWins{mk("tandem", 1), mk("mco", 2), extra}.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 2 || fams[0].GetName() != "a_only_upstream" || fams[1].GetHelp() != "tandem" || fams[1].Metric[0].GetGauge().GetValue() != 1 {
		t.Fatalf("families = %v", fams)
	}
	// A plain Gatherers refuses the same pair: the reason for firstFamilyWins.
	if _, err := (prometheus.Gatherers{mk("tandem", 1), mk("mco", 2)}).Gather(); err == nil {
		t.Fatal("prometheus.Gatherers accepted two helps for one name; firstFamilyWins may be unneeded")
	}
}

// recordingUpstream keeps what bootstrap was asked to render.
type recordingUpstream struct{ got *BootstrapParams }

func (recordingUpstream) RendersPools() bool                        { return true }
func (recordingUpstream) Run(context.Context, UpstreamParams) error { return nil }
func (recordingUpstream) Gatherer() prometheus.Gatherer             { return prometheus.NewRegistry() }
func (r recordingUpstream) Bootstrap(_ context.Context, p BootstrapParams) error {
	*r.got = p
	return nil
}

// The installer's bootkube runs the bootstrap render with the release's
// version (bootkube.sh.template, installer release-4.21:
// `bootstrap --payload-version=${VERSION} ...`): it must reach the MCO's
// render, which reads that release's feature gates.
func TestBootstrapGetsThePodsArguments(t *testing.T) {
	var got BootstrapParams
	root := New(recordingUpstream{&got})
	root.SetArgs([]string{"bootstrap", "--templates=/t", "--manifest-dir=/a", "--dest-dir=/b", "--pull-secret=/p", "--payload-version=4.21.3"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := BootstrapParams{Templates: "/t", ManifestDir: "/a", DestDir: "/b", PullSecretFile: "/p", PayloadVersion: "4.21.3"}
	if got != want {
		t.Fatalf("bootstrap got %+v, want %+v", got, want)
	}
}
