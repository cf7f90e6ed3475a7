package mcd

import (
	"strings"
	"testing"
)

// The operator's DaemonSet args at release-4.21
// (manifests/machineconfigdaemon/daemonset.yaml) as it renders them, and
// the firstboot unit's (templates/common/_base/units/
// machine-config-daemon-firstboot.service.yaml).
func TestTheMCOsCommandLinesParse(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"operator DaemonSet", []string{"start", "--payload-version=4.21.0", "--v=2",
			"--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
			"--tls-min-version=VersionTLS12"}},
		{"firstboot, persist NICs", []string{"firstboot-complete-machineconfig", "--persist-nics"}},
		{"firstboot", []string{"firstboot-complete-machineconfig"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := New()
			cmd, rest, err := root.Find(c.args)
			if err != nil {
				t.Fatalf("Find(%v): %v", c.args, err)
			}
			if cmd.Name() != c.args[0] {
				t.Fatalf("subcommand %q, want %q", cmd.Name(), c.args[0])
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatalf("flags %v: %v", rest, err)
			}
		})
	}
}

func TestUnsupportedModesAreRefused(t *testing.T) {
	for _, flag := range []string{"--once-from=/tmp/mc.json", "--desired-configmap=cm", "--skip-reboot"} {
		root := New()
		root.SetArgs([]string{"start", flag})
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), "not supported by tandem") {
			t.Errorf("start %s: err = %v, want a refusal", flag, err)
		}
	}
}

func TestNodeNameComesFromTheFlagThenTheEnvironment(t *testing.T) {
	t.Setenv("NODE_NAME", "from-env")
	if got, _ := resolveNodeName("from-flag"); got != "from-flag" {
		t.Errorf("flag: got %q", got)
	}
	if got, _ := resolveNodeName(""); got != "from-env" {
		t.Errorf("env: got %q", got)
	}
	t.Setenv("NODE_NAME", "")
	if _, err := resolveNodeName(""); err == nil {
		t.Error("no flag, no env: want an error")
	}
}

func TestIOUnitDefaultsToRpmOstreedOnSystemdHosts(t *testing.T) {
	cases := []struct {
		flag      string
		set       bool
		host      string
		want      string
		rationale string
	}{
		{"", false, "systemd", "rpm-ostreed.service", "the operator's DaemonSet passes no tandem flag"},
		{"", true, "systemd", "", "an explicit empty flag means none"},
		{"", false, "harness", "", "a simulated node limits a cgroup of its own"},
		{"x.service", true, "harness", "x.service", "the flag wins"},
	}
	for _, c := range cases {
		if got := ioUnitFor(c.flag, c.set, c.host); got != c.want {
			t.Errorf("%s: ioUnitFor(%q, %v, %q) = %q, want %q", c.rationale, c.flag, c.set, c.host, got, c.want)
		}
	}
}
