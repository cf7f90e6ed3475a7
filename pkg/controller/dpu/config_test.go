package dpu

import (
	"flag"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/flagerr"
)

func TestConfigFlags(t *testing.T) {
	tests := []struct {
		args []string
		want Config
	}{
		{nil, Config{Mode: "leader", RebootHost: true, HoldThreshold: time.Hour, AnnounceWait: 2 * time.Minute,
			NodeMaintenance: "auto", OutageGrace: time.Minute, OutageRecovery: 30 * time.Second}},
		{[]string{"--dpu-tenant", "--dpu-tenant-kubeconfig=/k", "--dpu-mode=external", "--dpu-reboot-host=false",
			"--dpu-drain-on-demand", "--dpu-hold-threshold=2h", "--dpu-pairing-configmap=ns/env-overrides",
			"--dpu-announce-wait=30s", "--dpu-node-maintenance=false", "--dpu-outage-grace=45s", "--dpu-outage-recovery=1m",
			"--dpu-required-daemonsets=openshift-ovn-kubernetes/ovnkube-node"},
			Config{Tenant: true, TenantKubeconfig: "/k", Mode: "external", DrainOnDemand: true, HoldThreshold: 2 * time.Hour,
				PairingConfigMap: "ns/env-overrides", AnnounceWait: 30 * time.Second, NodeMaintenance: "false",
				OutageGrace: 45 * time.Second, OutageRecovery: time.Minute, RequiredDaemonSets: "openshift-ovn-kubernetes/ovnkube-node"}},
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
		{RequiredDaemonSets: "ovnkube-node"},
		{RequiredDaemonSets: "ns/a,/b"},
	} {
		if _, _, err := c.Setup(nil, nil, nil, nil, nil, nil, nil, nil, nil); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if _, err := (Config{NodeMaintenance: "sometimes"}).nodeMaintenances(nil); err == nil {
		t.Error("--dpu-node-maintenance=sometimes: no error")
	}
	if gates, runs, err := (Config{}).Setup(nil, nil, nil, nil, nil, nil, nil, nil, nil); err != nil || gates != nil || runs != nil {
		t.Errorf("nothing configured: got %v %v %v", gates, runs, err)
	}
}

// Validate names the flag of each bad value, without I/O.
func TestConfigValidate(t *testing.T) {
	ok := Config{Mode: "leader", NodeMaintenance: "auto"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for _, tc := range []struct {
		c    Config
		flag string
	}{
		{Config{Mode: "lead"}, "dpu-mode"},
		{Config{Mode: "leader", NodeMaintenance: "maybe"}, "dpu-node-maintenance"},
		{Config{Mode: "leader", RequiredDaemonSets: "ovnkube-node"}, "dpu-required-daemonsets"},
		{Config{Mode: "leader", PairingConfigMap: "env-overrides"}, "dpu-pairing-configmap"},
		{Config{Mode: "leader", TenantKubeconfig: "/k", TenantKubeconfigSecret: "s"}, TenantKubeconfigSecretFlag},
		{Config{Mode: "leader", OutageGrace: -time.Second}, "dpu-outage-grace"},
	} {
		err := tc.c.Validate()
		if names := flagerr.Names(err); len(names) != 1 || names[0] != tc.flag {
			t.Errorf("%+v: %v; want one error naming %s", tc.c, err, tc.flag)
		}
	}
}
