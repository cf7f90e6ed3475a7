package dpu

import (
	"flag"
	"testing"
	"time"
)

func TestConfigFlags(t *testing.T) {
	tests := []struct {
		args []string
		want Config
	}{
		{nil, Config{Mode: "leader", RebootHost: true, HoldThreshold: time.Hour}},
		{[]string{"--dpu-tenant", "--dpu-tenant-kubeconfig=/k", "--dpu-mode=external", "--dpu-reboot-host=false",
			"--dpu-drain-on-demand", "--dpu-hold-threshold=2h", "--dpu-pairing-configmap=ns/env-overrides"},
			Config{Tenant: true, TenantKubeconfig: "/k", Mode: "external", DrainOnDemand: true, HoldThreshold: 2 * time.Hour,
				PairingConfigMap: "ns/env-overrides"}},
	}
	for _, tt := range tests {
		var c Config
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		c.BindFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if c != tt.want {
			t.Errorf("%v: got %+v, want %+v", tt.args, c, tt.want)
		}
	}
}

func TestConfigSetupRejectsBadInput(t *testing.T) {
	for _, c := range []Config{
		{TenantKubeconfig: "/nonexistent/kubeconfig"},
	} {
		if _, _, err := c.Setup(nil, nil, nil, nil, nil, nil); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if gates, runs, err := (Config{}).Setup(nil, nil, nil, nil, nil, nil); err != nil || gates != nil || runs != nil {
		t.Errorf("nothing configured: got %v %v %v", gates, runs, err)
	}
}
